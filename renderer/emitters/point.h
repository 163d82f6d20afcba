#pragma once
// Mitsuba 3's `point`: `intensity` (W/sr) sent from `position` in every direction. Seen from x it
// arrives along wi = (p − x) / |p − x| with irradiance I / |p − x|², a Dirac in direction (no
// density to sample). `spot` is a point light whose intensity depends on the direction (spot.h).
#include "renderer/emitters/light.h"
#include "renderer/core/vec.h"

namespace dray {

// Where a point (or spot) light is as seen from x.
template <class T>
struct PointArrival {
  Vec3<T> wi;           // unit, toward the light
  T inv_dist2;          // 1 / |p − x|²
  glm::vec3 position;   // where the shadow ray ends
};

template <class T>
PointArrival<T> point_arrival(const ParamView<T>& P, const Light& light, const Vec3<T>& x) {
  const Vec3<T> to = P.vec3(light.position) - x;
  const T dist2 = dot(to, to);
  return {to / sqrt(dist2), T(1.f) / dist2, value(P.vec3(light.position))};
}

}  // namespace dray
