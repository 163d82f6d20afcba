#pragma once
// The light interface of next-event estimation: every light kind samples a direction toward it
// from a shading point, with the radiance it sends divided by the sampling density (one function,
// dispatched over the closed set Light::Kind to each kind's file in emitters/; area lights are
// sampled here, through their shape's primitives). Positions, directions and radiance are in T;
// choices (which primitive, which direction on the sphere) are made in float.
#include <algorithm>
#include <cmath>

#include "renderer/core/ray_offset.h"
#include "renderer/emitters/directional.h"
#include "renderer/emitters/environment.h"
#include "renderer/emitters/point.h"
#include "renderer/emitters/projector.h"
#include "renderer/emitters/spot.h"
#include "renderer/integrators/surface.h"

namespace dray {

// The radiance an emissive material sends from point p of BVH primitive `prim` (lifted as pt):
// its emission, a colour, or a texture at the point's UV. That UV moves with p over the surface
// (as any texture's), unless `material_point`: p is then the light's own material point (sampled
// on it, or a path's hit taken there, as next-event estimation takes it), whose UV is fixed.
template <class T>
Vec3<T> emitted(const Scene& scene, const ParamView<T>& P, const Material& m, uint32_t prim, const PrimT<T>& pt,
                const Vec3<T>& p, bool material_point) {
  if (m.emission.texture < 0) return P.vec3(m.emission.slot);
  const TexCoord<T> at = material_point ? TexCoord<T>(surface_uv(scene, prim, value(pt), value(p)))
                                        : surface_coord(scene, prim, pt, p);
  return eval_texture(scene.textures[size_t(m.emission.texture)], P, at);
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
      const PointArrival<T> a = point_arrival(P, light, x);
      s.wi = a.wi;
      const Vec3<T> I = light.kind == Light::Kind::spot ? spot_intensity(scene.textures.data(), P, light, -s.wi)
                                                        : P.vec3(light.intensity);
      if (light.kind == Light::Kind::spot && !(value(I.x) > 0.f || value(I.y) > 0.f || value(I.z) > 0.f)) return s;
      s.weight = I * (a.inv_dist2 / T(pick));
      s.target = a.position;
      break;
    }
    case Light::Kind::projector: {
      const ProjectorArrival<T> a = projector_arrival(scene.textures.data(), P, light, x);
      if (!a.valid || !(value(a.weight.x) > 0.f || value(a.weight.y) > 0.f || value(a.weight.z) > 0.f)) return s;
      s.wi = a.wi;
      s.weight = a.weight * T(1.f / pick);
      s.target = value(P.vec3(light.position));
      break;
    }
    case Light::Kind::directional:
      s.wi = directional_wi(P, light);
      s.weight = P.vec3(light.intensity) * T(1.f / pick);
      s.infinite = true;
      break;
    case Light::Kind::environment: {
      float pdf;
      const glm::vec3 d = sample_environment(light, u1, u2, pdf);
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
      s.weight = emitted(scene, P, lm, light.prims[k], lp, q.p, true) / pdf;
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
