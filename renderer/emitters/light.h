#pragma once
// The emitter interface: Mitsuba 3's src/emitters as a closed set (one header each) in a
// std::variant, dispatched without virtual calls. Every emitter provides (emitter_sample.h's types)
//   kPlacement                  where its light comes from (a point, a direction, the sky, a surface);
//   kWorld                      how Mitsuba's to_world places it (emitter_sample.h);
//   params()                    its parameters: where it is, what it sends, the texture it projects;
//   place()                     the slot of its position (point) or direction (direction), else kNoSlot;
//   sample(scene, P, x, pick, u1, u2, u3)  a direction toward it from x (next-event estimation);
//   emit(scene, pick, sampler, e)          a light path leaving it (light tracing);
//   toward(scene, P, y, wi)     what reaches y from it along wi (a point light's per 1 / distance²),
//                               for shadow edges (not a surface's);
//   violation(table, name_of)   what an optimization step may not do to its parameters;
// a sky also radiance(P, d), pdf(d) and sample_direction(u1, u2, pdf) (sky.h), and for loading
// kPlugins (Mitsuba's names) and static read(EmitterProps&). The variant's list below is the
// registry (core/registry.h): adding an emitter touches its header, this list and its test.
#include <string>
#include <type_traits>
#include <variant>

#include "renderer/emitters/area.h"
#include "renderer/emitters/constant.h"
#include "renderer/emitters/directional.h"
#include "renderer/emitters/envmap.h"
#include "renderer/emitters/point.h"
#include "renderer/emitters/projector.h"
#include "renderer/emitters/spot.h"
#include "renderer/emitters/sunsky.h"

namespace dray {

using EmitterModel = std::variant<PointEmitter, SpotEmitter, ProjectorEmitter, DirectionalEmitter, ConstantEmitter,
                                  EnvMapEmitter, SunSkyEmitter, AreaEmitter>;

struct Light {
  std::string name;
  EmitterModel model;
};

// The plugin's name (Mitsuba's).
inline std::string_view emitter_type(const Light& l) {
  return std::visit([](const auto& e) { return e.kPlugins[0]; }, l.model);
}
inline EmitterPlacement placement(const Light& l) {
  return std::visit([](const auto& e) { return e.kPlacement; }, l.model);
}
inline EmitterParams emitter_params(const Light& l) {
  return std::visit([](const auto& e) { return e.params(); }, l.model);
}
inline Slot light_place(const Light& l) {
  return std::visit([](const auto& e) { return e.place(); }, l.model);
}
// Its area light's data (a surface's), or nullptr.
inline const AreaEmitter* area_emitter(const Light& l) { return std::get_if<AreaEmitter>(&l.model); }
inline AreaEmitter* area_emitter(Light& l) { return std::get_if<AreaEmitter>(&l.model); }

// A light's tables built from its parameters' values (an envmap's sampling), rebuilt when they change.
inline void refresh_light_tables(Light& l, const ParamTable& params) {
  std::visit([&](auto& e) {
    if constexpr (requires { e.refresh_tables(params); }) e.refresh_tables(params);
  }, l.model);
}

// A sky's radiance arriving along direction d (toward it), its density of drawing d, and a draw
// (sky.h); zero for any other light.
template <class T>
Vec3<T> environment_radiance(const Light& l, const ParamView<T>& P, const glm::vec3& d) {
  return std::visit([&](const auto& e) -> Vec3<T> {
    if constexpr (std::decay_t<decltype(e)>::kPlacement == EmitterPlacement::sky) return e.radiance(P, d);
    else return Vec3<T>(T(0.f));
  }, l.model);
}
inline float environment_pdf(const Light& l, const glm::vec3& d) {
  return std::visit([&](const auto& e) {
    if constexpr (std::decay_t<decltype(e)>::kPlacement == EmitterPlacement::sky) return e.pdf(d);
    else return 0.f;
  }, l.model);
}
inline glm::vec3 sample_environment(const Light& l, float u1, float u2, float& pdf) {
  return std::visit([&](const auto& e) {
    if constexpr (std::decay_t<decltype(e)>::kPlacement == EmitterPlacement::sky) return e.sample_direction(u1, u2, pdf);
    pdf = 0.f;
    return glm::vec3(0.f);
  }, l.model);
}

}  // namespace dray
