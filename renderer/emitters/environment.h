#pragma once
// Mitsuba 3's `constant`, `envmap` and `sunsky` as next-event estimation sees them: the radiance
// arriving from infinitely far along a direction (constant `radiance`, the map's, envmap.h, or the
// sun and sky's, sunsky.h), the density of drawing that direction, and the draw.
#include <algorithm>
#include <cmath>

#include "renderer/core/vec.h"
#include "renderer/emitters/light.h"

namespace dray {

// The radiance an environment light sends along direction d (toward it): constant, or its map's.
template <class T>
Vec3<T> environment_radiance(const Light& l, const ParamView<T>& P, const glm::vec3& d) {
  if (l.sunsky) return Vec3<T>(l.sunsky->radiance(d));  // constant: no parameters
  return l.env.data == kNoSlot ? P.vec3(l.intensity) : envmap_radiance(l.env, P, d);
}

// The solid-angle density with which next-event estimation draws d from an environment light
// (before the light's pick): uniform on the sphere, or its map's.
inline float environment_pdf(const Light& l, const glm::vec3& d) {
  if (l.sunsky) return l.sunsky->pdf(d);
  return l.env.data == kNoSlot ? 1.f / (4.f * kPi) : envmap_pdf(l.env, d);
}

// A direction toward an environment light for next-event estimation (its map's sampling, or
// uniform on the sphere) and its solid-angle density.
inline glm::vec3 sample_environment(const Light& l, float u1, float u2, float& pdf) {
  if (l.sunsky) return l.sunsky->sample(u1, u2, pdf);
  if (l.env.data != kNoSlot) return sample_envmap(l.env, u1, u2, pdf);
  const float z = 1.f - 2.f * u1, rxy = std::sqrt(std::max(0.f, 1.f - z * z)), phi = 2.f * kPi * u2;
  pdf = 1.f / (4.f * kPi);
  return {rxy * std::cos(phi), rxy * std::sin(phi), z};
}

}  // namespace dray
