#pragma once
// Mitsuba 3's `point`: `intensity` (W/sr) sent from `position` in every direction. Seen from x it
// arrives along wi = (p − x) / |p − x| with irradiance I / |p − x|², a Dirac in direction (no
// density to sample). Point lights whose intensity depends on the direction draw their samples
// and light paths with point_light_sample and point_emission too.
#include <optional>
#include <string>

#include "renderer/emitters/emitter_props.h"
#include "renderer/core/type_crossing.h"
#include "renderer/emitters/emitter_sample.h"

namespace dray {

// Where a point light is as seen from x.
template <class T>
struct PointArrival {
  Vec3<T> wi;           // unit, toward the light
  T inv_dist2;          // 1 / |p − x|²
  glm::vec3 position;   // where the shadow ray ends
};

template <class T>
PointArrival<T> point_arrival(const ParamView<T>& P, Slot position, const Vec3<T>& x) {
  const Vec3<T> to = P.vec3(position) - x;
  const T dist2 = dot(to, to);
  return {to / sqrt(dist2), T(1.f) / dist2, value(P.vec3(position))};
}

// The next-event sample of a point light at `position` whose intensity toward the point is
// I(−wi) (`intensity`, in S); `aimed`: a light that sends nothing some ways draws no sample where
// it sends nothing.
template <class G, class S, class Intensity>
LightSample<G, S> point_light_sample(const ParamView<S>& P, Slot position, const Vec3<G>& x, float pick,
                                     const Intensity& intensity, bool aimed) {
  LightSample<G, S> s;
  const PointArrival<G> a = point_arrival(geometry_view<G>(P), position, x);
  s.wi = a.wi;
  const Vec3<S> I = intensity(to_shading<S>(-s.wi));
  if (aimed && !any_light(I)) return s;
  s.weight = I * to_shading<S>(a.inv_dist2 / G(pick));
  s.target = a.position;
  s.valid = true;
  return s;
}

struct PointEmitter {
  static constexpr std::string_view kPlugins[] = {"point"};
  static constexpr EmitterPlacement kPlacement = EmitterPlacement::point;
  static constexpr EmitterWorld kWorld = EmitterWorld::position;
  static PointEmitter read(EmitterProps& p) {
    p.keys({"position", "intensity"});
    PointEmitter e;
    e.position = p.param("position", p.vec3_or("position", glm::vec3(0.f)));
    e.intensity = p.param("intensity", p.colour_or("intensity", glm::vec3(1.f)), Domain::at_least(0));
    return e;
  }

  Slot position = kNoSlot, intensity = kNoSlot;

  EmitterParams params() const { return {{{{position, 3}}}, {{{intensity, 3}}}, -1}; }
  Slot place() const { return position; }
  template <class G, class S, class SceneT>
  LightSample<G, S> sample(const SceneT&, const ParamView<S>& P, const Vec3<G>& x, float pick, float, float, float) const {
    return point_light_sample<G, S>(P, position, x, pick, [&](const Vec3<S>&) { return P.vec3(intensity); }, false);
  }
  template <class SceneT>
  bool emit(const SceneT& scene, float pick, Sampler& s, Emission& e) const {
    const ParamView<float> P(scene.params);
    return point_emission(value(P.vec3(position)), pick, s, e, [&](const glm::vec3&) { return value(P.vec3(intensity)); });
  }
  // What reaches y from the light along wi (unit, toward it), per 1 / distance².
  template <class SceneT>
  glm::vec3 toward(const SceneT& scene, const ParamView<float>&, const glm::vec3&, const glm::vec3&) const {
    return scene.params.get_vec3(intensity);
  }
  std::optional<std::string> violation(const ParamTable&, const auto&) const { return std::nullopt; }
};

}  // namespace dray
