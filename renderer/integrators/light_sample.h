#pragma once
// The light interface of next-event estimation: every light kind samples a direction toward it
// from a shading point, with the radiance it sends divided by the sampling density (one function,
// dispatched over the closed set Light::Kind). Positions, directions and radiance are in T;
// choices (which primitive, which direction on the sphere) are made in float.
#include <algorithm>
#include <cmath>

#include "renderer/core/ray_offset.h"
#include "renderer/integrators/surface.h"

namespace dray {

// A spot light's falloff for light leaving it along unit direction d (Mitsuba 3's `spot`): 1
// within beam_width of its axis, then linear in the angle to 0 at cutoff_angle (continuous: no
// edge to sample). The angles and the axis are parameters.
template <class T>
T spot_falloff(const ParamView<T>& P, const Light& light, const Vec3<T>& d) {
  const Vec3<T> axis = normalize(P.vec3(light.target) - P.vec3(light.position));
  const T cos_theta = dot(axis, d);
  const T deg = T(kPi / 180.f);
  const T cutoff = P.scalar(light.cutoff) * deg, beam = P.scalar(light.beam) * deg;
  if (value(cos_theta) >= std::cos(value(beam))) return T(1.f);
  if (value(cos_theta) <= std::cos(value(cutoff))) return T(0.f);
  return (cutoff - acos(cos_theta)) / (cutoff - beam);
}

// The intensity (W/sr) a spot light sends along unit direction d: its intensity times the
// falloff, times its projected texture where it has one. The texture is looked up as Mitsuba's
// spot does: in the light's frame (z its axis, y its up, x = y × z), at
// uv = 0.5 + 0.5 (x, y) / (z tan cutoff_angle); uv is a float (the lookup point, not a parameter).
template <class T>
Vec3<T> spot_intensity(const Scene& scene, const ParamView<T>& P, const Light& light, const Vec3<T>& d) {
  const T falloff = spot_falloff(P, light, d);
  if (!(value(falloff) > 0.f)) return Vec3<T>(T(0.f));
  Vec3<T> I = P.vec3(light.intensity) * falloff;
  if (light.texture < 0) return I;
  const glm::vec3 axis = glm::normalize(value(P.vec3(light.target)) - value(P.vec3(light.position)));
  const glm::vec3 left = glm::normalize(glm::cross(light.up, axis)), up = glm::cross(axis, left);
  const glm::vec3 df = value(d);
  const float z = glm::dot(df, axis) * std::tan(value(P.scalar(light.cutoff)) * kPi / 180.f);
  const glm::vec2 uv(0.5f + 0.5f * glm::dot(df, left) / z, 0.5f + 0.5f * glm::dot(df, up) / z);
  return I * eval_texture(scene.textures[size_t(light.texture)], P, uv);
}

// The radiance an environment light sends along direction d (toward it): constant, or its map's.
template <class T>
Vec3<T> environment_radiance(const Light& l, const ParamView<T>& P, const glm::vec3& d) {
  return l.env.data == kNoSlot ? P.vec3(l.intensity) : envmap_radiance(l.env, P, d);
}

// The solid-angle density with which next-event estimation draws d from an environment light
// (before the light's pick): uniform on the sphere, or its map's.
inline float environment_pdf(const Light& l, const glm::vec3& d) {
  return l.env.data == kNoSlot ? 1.f / (4.f * kPi) : envmap_pdf(l.env, d);
}

// The probability (per unit solid angle, as seen from `from`) that next-event estimation picks the
// point `at` on primitive `prim` of area light `light`.
template <class T>
T area_light_pdf(const Scene& scene, const Light& light, const PrimT<T>& prim, const SurfacePoint<T>& at,
                 const Vec3<T>& from) {
  Vec3<T> d = at.p - from;
  T dist2 = dot(d, d);
  T cos_l = abs(dot(at.n, d)) / sqrt(dist2);
  // Light chosen uniformly and primitive by area (discrete: float); point uniform in the
  // primitive's area (T: the area is the Jacobian of the sample's reparameterisation).
  T area = prim_area(prim);
  float pick = value(area) / (float(scene.lights.size()) * light.area);
  return T(pick) * dist2 / (cos_l * area);
}

// A direction toward a light, from a shading point.
template <class T>
struct LightSample {
  bool valid = false;
  Vec3<T> wi;             // world, unit, toward the light
  Vec3<T> weight;         // radiance arriving along wi / (density × the light's pick)
  float pdf = 0.f;        // solid-angle density (with the pick), for MIS; 0 for a Dirac light
  bool infinite = false;  // the shadow ray runs to infinity (environment, directional)
  glm::vec3 target{0.f};  // else: the point the shadow ray ends at (offset off an area light)
};

template <class T>
LightSample<T> sample_light(const Scene& scene, const ParamView<T>& P, const Light& light, const Vec3<T>& x,
                            float pick, float u1, float u2, float u3) {
  LightSample<T> s;
  switch (light.kind) {
    case Light::Kind::point:
    case Light::Kind::spot: {
      const Vec3<T> to = P.vec3(light.position) - x;
      const T dist2 = dot(to, to);
      s.wi = to / sqrt(dist2);
      T scale = T(1.f) / (dist2 * T(pick));
      const Vec3<T> I = light.kind == Light::Kind::spot ? spot_intensity(scene, P, light, -s.wi) : P.vec3(light.intensity);
      if (light.kind == Light::Kind::spot && !(value(I.x) > 0.f || value(I.y) > 0.f || value(I.z) > 0.f)) return s;
      s.weight = I * scale;
      s.target = value(P.vec3(light.position));
      break;
    }
    case Light::Kind::directional:
      s.wi = -normalize(P.vec3(light.direction));
      s.weight = P.vec3(light.intensity) * T(1.f / pick);
      s.infinite = true;
      break;
    case Light::Kind::environment: {
      glm::vec3 d;
      float pdf;
      if (light.env.data != kNoSlot) {
        d = sample_envmap(light.env, u1, u2, pdf);
      } else {
        const float z = 1.f - 2.f * u1, rxy = std::sqrt(std::max(0.f, 1.f - z * z)), phi = 2.f * kPi * u2;
        d = glm::vec3(rxy * std::cos(phi), rxy * std::sin(phi), z);
        pdf = 1.f / (4.f * kPi);
      }
      if (!(pdf > 0.f)) return s;
      s.wi = Vec3<T>(d);
      s.pdf = pick * pdf;
      s.weight = environment_radiance(light, P, d) * T(1.f / s.pdf);
      s.infinite = true;
      break;
    }
    case Light::Kind::area: {
      const size_t k = std::min(size_t(std::upper_bound(light.cdf.begin(), light.cdf.end(), u3 * light.area) -
                                        light.cdf.begin()),
                                light.prims.size() - 1);
      const PrimT<T> lp = lift_prim(scene, P, light.prims[k]);
      SurfacePoint<T> q = sample_prim(lp, u1, u2);
      const Vec3<T> to = q.p - x;
      s.wi = to / sqrt(dot(to, to));
      const Material& lm = scene.materials[scene.material_of(light.prims[k])];
      const T cos_l = -dot(q.n, s.wi);  // > 0: x sees the front side
      if (lm.two_sided && value(cos_l) < 0.f) q.n = -q.n;
      else if (!(value(cos_l) > 0.f)) return s;
      const T pdf = area_light_pdf(scene, light, lp, q, x);
      s.pdf = value(pdf);
      s.weight = P.vec3(lm.emission) / pdf;
      // The light point, offset to its emitting side (the side facing x).
      const glm::vec3 q_f = value(q.p);
      s.target = q_f + value(q.n) * detail::ray_epsilon(q_f);
      break;
    }
  }
  s.valid = true;
  return s;
}

}  // namespace dray
