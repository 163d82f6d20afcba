#pragma once
// Mitsuba 3's `constant` (dray's JSON also calls it `environment`): `radiance` arriving from every
// direction, drawn uniformly on the sphere.
#include "renderer/emitters/emitter_props.h"
#include "renderer/emitters/sky.h"

namespace dray {

struct ConstantEmitter : SkyEmitter<ConstantEmitter> {
  static constexpr std::string_view kPlugins[] = {"constant", "environment"};
  static constexpr EmitterWorld kWorld = EmitterWorld::none;
  static ConstantEmitter read(EmitterProps& p) {
    p.keys({"radiance"});
    ConstantEmitter e;
    e.radiance_slot = p.param("radiance", p.colour_or("radiance", glm::vec3(1.f)), Domain::at_least(0));
    return e;
  }

  Slot radiance_slot = kNoSlot;

  EmitterParams params() const { return {{}, {{{radiance_slot, 3}}}, -1}; }
  template <class T>
  Vec3<T> radiance(const ParamView<T>& P, const glm::vec3&) const {
    return P.vec3(radiance_slot);
  }
  float pdf(const glm::vec3&) const { return 1.f / (4.f * kPi); }
  glm::vec3 sample_direction(float u1, float u2, float& pdf) const {
    pdf = 1.f / (4.f * kPi);
    return uniform_sphere(u1, u2);
  }
};

}  // namespace dray
