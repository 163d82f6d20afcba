#pragma once
// Where an emitter placed by a lookat sits (Mitsuba's to_world of `spot` and `projector`):
// `position` (default the origin) and `target` (default one along +z from it), parameters, and
// `up` (default +y), which orients the image it projects; its frame in T (z the axis, x = up × z,
// y = z × x).
#include <optional>
#include <string>

#include <glm/geometric.hpp>

#include "renderer/core/load_error.h"
#include "renderer/core/param_table.h"
#include "renderer/core/vec.h"
#include "renderer/emitters/emitter_props.h"

namespace dray {

template <class T>
struct LookAtFrame {
  Vec3<T> axis, left, up;
};

struct LookAt {
  Slot position = kNoSlot, target = kNoSlot;
  glm::vec3 up{0.f, 1.f, 0.f};

  // Its keys; `oriented`: it projects an image, which `up` orients (then not parallel to the axis).
  static LookAt read(EmitterProps& p, bool oriented, const char* image) {
    LookAt l;
    const glm::vec3 pos = p.vec3_or("position", glm::vec3(0.f)), target = p.vec3_or("target", pos + glm::vec3(0, 0, 1));
    if (!(glm::length(target - pos) > 0.f)) p.fail("target", "must differ from position");
    l.up = p.vec3_or("up", l.up);
    if (oriented && !(glm::length(glm::cross(l.up, target - pos)) > 0.f))
      p.fail("up", std::string("must not be parallel to the axis (target - position): it orients the ") + image +
                       " (default [0, 1, 0])");
    l.position = p.param("position", pos);
    l.target = p.param("target", target);
    return l;
  }

  template <class T>
  Vec3<T> axis(const ParamView<T>& P) const {
    return normalize(P.vec3(target) - P.vec3(position));
  }
  // The frame, its position p (read once by the caller, who uses it too).
  template <class T>
  LookAtFrame<T> frame(const ParamView<T>& P, const Vec3<T>& p) const {
    const Vec3<T> z = normalize(P.vec3(target) - p), x = normalize(cross(Vec3<T>(up), z));
    return {z, x, cross(z, x)};
  }
  // The axis of some length.
  std::optional<std::string> violation(const ParamTable& t, const auto& name_of) const {
    if (!(glm::length(t.get_vec3(target) - t.get_vec3(position)) > 0.f))
      return name_of(target) + ": must differ from " + name_of(position);
    return std::nullopt;
  }
};

}  // namespace dray
