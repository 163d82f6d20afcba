#pragma once
// Where a ray leaving a surface starts, and where a shadow ray ends: offsets that grow with the
// rounding error of the points involved.
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/core/ray.h"

namespace dray::detail {

inline float max_abs(const glm::vec3& p) { return std::max({std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)}); }

// Offset for a ray leaving surface point p, reached at distance t along a ray from `from`: p's
// rounding error grows with its coordinates and with the ray that computed it (o + t d), about
// 1e-7 of each. ~100 ulps of margin; larger offsets bias: a ray from a raised point sees a
// nearby light under a larger solid angle (1e-4 |p| brightened a lamp 1 unit over a floor at
// 500 units by 0.4%).
inline float ray_epsilon(const glm::vec3& p, const glm::vec3& from = glm::vec3(0.f), float t = 0.f) {
  return 1e-5f * (1.f + max_abs(p)) + 2e-6f * (max_abs(from) + t);
}

// A shadow ray from `from` (a point already offset off its surface) to `to`: aimed from the point
// it starts at, so that it ends short of `to` whatever the offsets. Aiming it from the surface
// point instead shifts it sideways by the offset, and at large coordinates (offset ~0.05 at 500
// units) its end crossed the light's own plane: the light occluded itself.
inline Ray shadow_ray(const glm::vec3& from, const glm::vec3& to) {
  glm::vec3 d = to - from;
  float dist = glm::length(d);
  return Ray{from, d / dist, dist * (1.f - 1e-4f)};
}

}  // namespace dray::detail
