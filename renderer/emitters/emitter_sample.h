#pragma once
// What an emitter gives the integrators (emitter.h lists the plugins): a direction toward it from
// a shading point (next-event estimation), a light path leaving it (light tracing), and what its
// shadow edges need. Positions and directions are in the geometry type G, radiance in the
// shading type S (integrators/two_types.h); choices are made in float.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include "renderer/accel/bvh.h"
#include "renderer/core/frame.h"
#include "renderer/core/param_table.h"
#include "renderer/samplers/sampler.h"
#include "renderer/core/vec.h"

namespace dray {

// Where an emitter's light comes from, as shadows and light paths see it:
//   point      from one point, a parameter (point lights, and the lights a lookat aims);
//   direction  from infinitely far along one direction, a parameter (directional);
//   sky        from infinitely far, every direction (constant, envmap, sunsky);
//   surface    from a shape's emissive surface (area).
enum class EmitterPlacement { point, direction, sky, surface };

// How Mitsuba's to_world places an emitter (the XML reader and writer follow it):
//   none       it has none (constant; area: its shape's);
//   position   its translation is `position` (point);
//   lookat     a lookat: `position`, `target` and `up` (a light aimed at a target);
//   direction  its +z is `direction` (directional);
//   rotation   its 3x3, a rotation, is `matrix` (a sky; an envmap's about +y is `rotate_y`).
enum class EmitterWorld { none, position, lookat, direction, rotation };

// An emitter's parameters: where it is (its position, target or direction: they move shadows)
// and what it sends (intensities, a map's texels), as blocks (first slot, entries; kNoSlot where
// absent), and the texture it projects (-1: none).
struct ParamBlock {
  Slot first = kNoSlot;
  uint32_t n = 0;
};
struct EmitterParams {
  std::array<ParamBlock, 2> where{};
  std::array<ParamBlock, 3> what{};
  int texture = -1;
};

// A direction toward a light, from a shading point.
template <class G, class S = G>
struct LightSample {
  bool valid = false;
  Vec3<G> wi;             // world, unit, toward the light
  Vec3<S> weight;         // radiance arriving along wi / (density × the light's pick)
  float pdf = 0.f;        // solid-angle density (with the pick), for MIS; 0 for a Dirac light
  bool infinite = false;  // the shadow ray runs to infinity (environment, directional)
  glm::vec3 target{0.f};  // else: the point the shadow ray ends at (offset off an area light)
  uint32_t prim = 0;      // an area light's: the primitive the point is on
};

// A sample the float pass drew, as the shading type's constant (a replay's, where the light's
// radiance is not differentiated).
template <class S>
LightSample<float, S> constant_light_sample(const LightSample<float>& l) {
  if constexpr (std::is_same_v<S, float>) {
    return l;
  } else {
    LightSample<float, S> r;
    r.valid = l.valid;
    r.wi = l.wi;
    r.weight = Vec3<S>(l.weight);
    r.pdf = l.pdf;
    r.infinite = l.infinite;
    r.target = l.target;
    r.prim = l.prim;
    return r;
  }
}

// Where a light path starts: a point (and its surface normal, zero for a point light), the
// direction it leaves along and its flux weight β (with the light's pick).
struct Emission {
  glm::vec3 p, n{0.f}, d, beta{0.f};
};

// Whether a colour has any light.
template <class T>
bool any_light(const Vec3<T>& c) {
  return value(c.x) > 0.f || value(c.y) > 0.f || value(c.z) > 0.f;
}

// A direction uniform on the unit sphere, from two uniform numbers.
inline glm::vec3 uniform_sphere(float u1, float u2) {
  const float z = 1.f - 2.f * u1, rxy = std::sqrt(std::max(0.f, 1.f - z * z)), phi = 2.f * kPi * u2;
  return {rxy * std::cos(phi), rxy * std::sin(phi), z};
}

// A particle arriving from infinitely far along d (Mitsuba's sample_ray of directional and
// environment lights): from a point uniform on the disk of the scene's bounding sphere across d,
// placed behind the scene. Returns the disk's area π R².
inline float far_origin(const Aabb& bounds, const glm::vec3& d, Sampler& s, glm::vec3& p) {
  const glm::vec3 c = 0.5f * (bounds.lo + bounds.hi);
  const float r = std::max(0.5f * glm::length(bounds.hi - bounds.lo), 1e-6f) * 1.001f;
  const glm::vec2 q = concentric_disk(s.next(), s.next()) * r;
  p = c - d * r + to_glm(Frame<float>(Vec3<float>(d)).to_world(Vec3<float>(glm::vec3(q, 0.f))));
  return kPi * r * r;
}

// A particle leaving a point light at p: a direction uniform on the sphere, β = I(d) 4π / pick
// (I the intensity along d, from `intensity`).
template <class Intensity>
bool point_emission(const glm::vec3& p, float pick, Sampler& s, Emission& e, const Intensity& intensity) {
  const float z = 1.f - 2.f * s.next(), r = std::sqrt(std::max(0.f, 1.f - z * z)), phi = 2.f * kPi * s.next();
  e.d = {r * std::cos(phi), r * std::sin(phi), z};
  e.p = p;
  e.beta = intensity(e.d) * (4.f * kPi / pick);
  return e.beta != glm::vec3(0.f);
}

}  // namespace dray
