#pragma once
// Mitsuba 3's `directional`: `irradiance` (W/m² on a surface facing it) arriving from infinitely
// far along `direction` (the way the light travels, any length; Mitsuba's default +z): from every
// point the light is along wi = −direction / |direction|, a Dirac in direction; its shadow ray runs
// to infinity.
#include <glm/geometric.hpp>

#include "renderer/core/type_crossing.h"
#include "renderer/emitters/emitter_props.h"
#include "renderer/emitters/emitter_sample.h"

namespace dray {

struct DirectionalEmitter {
  static constexpr std::string_view kPlugins[] = {"directional"};
  static constexpr EmitterPlacement kPlacement = EmitterPlacement::direction;
  static constexpr EmitterWorld kWorld = EmitterWorld::direction;
  static DirectionalEmitter read(EmitterProps& p) {
    p.keys({"direction", "irradiance"});
    DirectionalEmitter e;
    const glm::vec3 d = p.vec3_or("direction", glm::vec3(0, 0, 1));
    if (!(glm::dot(d, d) > 0.f)) p.fail("direction", "must not be zero");
    e.direction = p.param("direction", d);
    e.irradiance = p.param("irradiance", p.colour_or("irradiance", glm::vec3(1.f)), Domain::at_least(0));
    return e;
  }

  Slot direction = kNoSlot, irradiance = kNoSlot;

  EmitterParams params() const { return {{{{direction, 3}}}, {{{irradiance, 3}}}, -1}; }
  Slot place() const { return direction; }
  template <class T>
  Vec3<T> wi(const ParamView<T>& P) const {
    return -normalize(P.vec3(direction));
  }

  template <class G, class S, class SceneT>
  LightSample<G, S> sample(const SceneT&, const ParamView<S>& P, const Vec3<G>&, float pick, float, float, float) const {
    LightSample<G, S> s;
    s.wi = wi(geometry_view<G>(P));
    s.weight = P.vec3(irradiance) * S(1.f / pick);
    s.infinite = true;
    s.valid = true;
    return s;
  }
  // A particle from a point of the disk across the scene: β = E π R² / pick.
  template <class SceneT>
  bool emit(const SceneT& scene, float pick, Sampler& s, Emission& e) const {
    const ParamView<float> P(scene.params);
    e.d = -to_glm(wi(P));
    e.beta = value(P.vec3(irradiance)) * (far_origin(scene.bvh.bounds(), e.d, s, e.p) / pick);
    return e.beta != glm::vec3(0.f);
  }
  template <class SceneT>
  glm::vec3 toward(const SceneT& scene, const ParamView<float>&, const glm::vec3&, const glm::vec3&) const {
    return scene.params.get_vec3(irradiance);
  }
  std::optional<std::string> violation(const ParamTable& t, const auto& name_of) const {
    if (!(glm::length(t.get_vec3(direction)) > 0.f)) return name_of(direction) + ": must not be zero";
    return std::nullopt;
  }
};

}  // namespace dray
