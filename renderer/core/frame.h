#pragma once
// What every BSDF shares: lobe flags, the local shading frame (z along the shading normal), and
// the records of a sampled direction. BSDFs work in local coordinates: wo (toward the viewer)
// and wi (toward the light) are unit, cos θ is the z component.
#include <cmath>
#include <cstdint>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "renderer/core/vec.h"

namespace dray {

// The kinds of scattering a lobe does (Mitsuba 3's BSDFFlags, reduced to what the integrator asks).
enum Lobe : uint32_t {
  kLobeDelta = 1u,          // a Dirac: no next-event estimation, no MIS
  kLobeGlossy = 2u,
  kLobeDiffuse = 4u,
  kLobeReflection = 8u,
  kLobeTransmission = 16u,
};

// Whether lobes `flags` include any that next-event estimation can hit (not a Dirac).
inline bool has_smooth_lobe(uint32_t flags) { return (flags & (kLobeGlossy | kLobeDiffuse)) != 0; }

// An orthonormal basis around unit n (Duff et al., "Building an Orthonormal Basis, Revisited",
// JCGT 2017). The sign is a float decision.
template <class T>
void basis(const Vec3<T>& n, Vec3<T>& t, Vec3<T>& b) {
  float sign = std::copysign(1.f, value(n.z));
  T a = T(-1.f) / (T(sign) + n.z);
  T c = n.x * n.y * a;
  t = {T(1.f) + T(sign) * n.x * n.x * a, T(sign) * c, T(-sign) * n.x};
  b = {c, T(sign) + n.y * n.y * a, -n.y};
}

// The shading frame: s, t tangent, n the shading normal.
template <class T>
struct Frame {
  Vec3<T> s, t, n;
  explicit Frame(const Vec3<T>& n_) : n(n_) { basis(n, s, t); }
  Frame(const Vec3<T>& s_, const Vec3<T>& t_, const Vec3<T>& n_) : s(s_), t(t_), n(n_) {}
  Vec3<T> to_local(const Vec3<T>& v) const { return {dot(v, s), dot(v, t), dot(v, n)}; }
  Vec3<T> to_world(const Vec3<T>& v) const { return s * v.x + t * v.y + n * v.z; }
};

// The smooth part of a BSDF made of Dirac lobes only: none (f and pdf 0 everywhere).
struct DiracOnly {
  template <class In, class T>
  Vec3<T> f(const In&, const Vec3<T>&, const Vec3<T>&) const {
    return Vec3<T>(T(0.f));
  }
  template <class In>
  float pdf(const In&, const glm::vec3&, const glm::vec3&) const {
    return 0.f;
  }
};

// A frame's values, without derivatives.
template <class T>
Frame<float> value(const Frame<T>& f) {
  return {Vec3<float>(value(f.s)), Vec3<float>(value(f.t)), Vec3<float>(value(f.n))};
}

// A direction drawn from a BSDF, in float (sampling is a decision: DESIGN.md invariant 2).
struct BsdfSample {
  glm::vec3 wi{0.f};      // local
  float pdf = 0.f;        // solid-angle density; for a Dirac lobe the probability of choosing it
  glm::vec3 weight{0.f};  // f |cos θi| / pdf, or a Dirac lobe's value / pdf
  uint32_t lobe = 0;      // the flags of the lobe drawn; 0: no direction (absorbed)
  float eta = 1.f;        // relative index of refraction crossed (1 for reflection)
  uint32_t component = 0;  // blends: which nested BSDF drew it, one bit per level (innermost lowest)
};

// A Dirac lobe re-evaluated in T: its direction and value / pdf follow the parameters and the
// frame (a mirror turning with its normal, a refraction bending with the IOR).
template <class T>
struct DeltaLobe {
  Vec3<T> wi;
  Vec3<T> weight;
};

// Mirror reflection about the local normal.
template <class T>
Vec3<T> reflect_local(const Vec3<T>& wo) {
  return {-wo.x, -wo.y, wo.z};
}
inline glm::vec3 reflect_local(const glm::vec3& wo) { return {-wo.x, -wo.y, wo.z}; }

// Reflection of v about the unit vector m.
inline glm::vec3 reflect_about(const glm::vec3& v, const glm::vec3& m) {
  const float c = v.x * m.x + v.y * m.y + v.z * m.z;
  return {2.f * c * m.x - v.x, 2.f * c * m.y - v.y, 2.f * c * m.z - v.z};
}

// Cosine-weighted direction on the upper hemisphere (Malley's method, polar mapping).
inline glm::vec3 cosine_hemisphere(glm::vec2 u) {
  const float r = std::sqrt(u.x), phi = 2.f * kPi * u.y;
  return {r * std::cos(phi), r * std::sin(phi), std::sqrt(std::max(0.f, 1.f - u.x))};
}

// A point of the unit disk from two uniform numbers (Shirley and Chiu's concentric map, as
// Mitsuba's square_to_uniform_disk_concentric): a thin lens's aperture sample, a far light's disk.
inline glm::vec2 concentric_disk(float u, float v) {
  const float a = 2.f * u - 1.f, b = 2.f * v - 1.f;
  if (a == 0.f && b == 0.f) return glm::vec2(0.f);
  float r, phi;
  if (a * a > b * b) {
    r = a;
    phi = (kPi / 4.f) * (b / a);
  } else {
    r = b;
    phi = kPi / 2.f - (kPi / 4.f) * (a / b);
  }
  return {r * std::cos(phi), r * std::sin(phi)};
}

inline float mean(const glm::vec3& v) { return (v.x + v.y + v.z) * (1.f / 3.f); }

}  // namespace dray
