#pragma once
// What the emitters of light from every direction share (constant.h, envmap.h, sunsky.h): each
// gives the radiance arriving along a direction (toward it), the solid-angle density with which it
// draws that direction, and the draw; next-event estimation and light paths follow from those.
#include "renderer/emitters/emitter_sample.h"

namespace dray {

// A direction toward the sky by its own sampling: its radiance over the density (with the pick).
template <class G, class S, class Sky>
LightSample<G, S> sky_light_sample(const Sky& sky, const ParamView<S>& P, float pick, float u1, float u2) {
  LightSample<G, S> s;
  float pdf;
  const glm::vec3 d = sky.sample_direction(u1, u2, pdf);
  if (!(pdf > 0.f)) return s;
  s.wi = Vec3<G>(d);
  s.pdf = pick * pdf;
  s.weight = sky.radiance(P, d) * S(1.f / s.pdf);
  s.infinite = true;
  s.valid = true;
  return s;
}

// Mitsuba's envmap sample_ray: a direction toward the sky by its importance (as next-event
// estimation draws it), the particle coming from there: β = L π R² / (pdf pick).
template <class Sky>
bool sky_emission(const Sky& sky, const ParamView<float>& P, const Aabb& bounds, float pick, Sampler& s, Emission& e) {
  float pdf = 0.f;
  const glm::vec3 wi = sky.sample_direction(s.next(), s.next(), pdf);
  if (!(pdf > 0.f)) return false;
  e.d = -wi;
  e.beta = value(sky.radiance(P, wi)) * (far_origin(bounds, e.d, s, e.p) / (pdf * pick));
  return e.beta != glm::vec3(0.f);
}

// What every sky plugin (Derived) has beside its radiance and sampling.
template <class Derived>
struct SkyEmitter {
  static constexpr EmitterPlacement kPlacement = EmitterPlacement::sky;
  static constexpr EmitterWorld kWorld = EmitterWorld::rotation;
  static constexpr bool kRotateY = false;  // whether a turn about +y is its `rotate_y`
  Slot place() const { return kNoSlot; }
  template <class G, class S, class SceneT>
  LightSample<G, S> sample(const SceneT&, const ParamView<S>& P, const Vec3<G>&, float pick, float u1, float u2,
                           float) const {
    return sky_light_sample<G, S>(self(), P, pick, u1, u2);
  }
  template <class SceneT>
  bool emit(const SceneT& scene, float pick, Sampler& s, Emission& e) const {
    return sky_emission(self(), ParamView<float>(scene.params), scene.bvh.bounds(), pick, s, e);
  }
  template <class SceneT>
  glm::vec3 toward(const SceneT&, const ParamView<float>& P, const glm::vec3&, const glm::vec3& wi) const {
    return to_glm(self().radiance(P, wi));
  }
  std::optional<std::string> violation(const ParamTable&, const auto&) const { return std::nullopt; }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

}  // namespace dray
