#pragma once
// The light interface of next-event estimation: every light kind samples a direction toward it
// from a shading point, with the radiance it sends divided by the sampling density (one function,
// dispatched over the closed set Light::Kind to each kind's file in emitters/; area lights are
// sampled here, through their shape's primitives). Positions and directions are in the geometry
// type G, radiance in the shading type S (renderer/integrators/two_types.h); choices (which
// primitive, which direction on the sphere) are made in float.
#include <algorithm>
#include <cmath>

#include "renderer/core/ray_offset.h"
#include "renderer/emitters/directional.h"
#include "renderer/emitters/environment.h"
#include "renderer/emitters/point.h"
#include "renderer/emitters/projector.h"
#include "renderer/emitters/spot.h"
#include "renderer/integrators/surface.h"
#include "renderer/integrators/two_types.h"

namespace dray {

// The radiance an emissive material sends from point p of BVH primitive `prim` (lifted as pt):
// its emission, a colour, or a texture at the point's UV. That UV moves with p over the surface
// (as any texture's), unless `material_point`: p is then the light's own material point (sampled
// on it, or a path's hit taken there, as next-event estimation takes it), whose UV is fixed.
template <class S, class G>
Vec3<S> emitted(const Scene& scene, const ParamView<S>& P, const Material& m, uint32_t prim, const PrimT<G>& pt,
                const Vec3<G>& p, bool material_point) {
  if (m.emission.texture < 0) return P.vec3(m.emission.slot);
  const TexCoord<S> at = material_point ? surface_texcoord<S>(scene, prim, value(pt), value(p))
                                        : to_shading<S>(surface_coord(scene, prim, pt, p));
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
template <class G, class S = G>
struct LightSample {
  bool valid = false;
  Vec3<G> wi;             // world, unit, toward the light
  Vec3<S> weight;         // radiance arriving along wi / (density × the light's pick)
  float pdf = 0.f;        // solid-angle density (with the pick), for MIS; 0 for a Dirac light
  bool infinite = false;  // the shadow ray runs to infinity (environment, directional)
  glm::vec3 target{0.f};  // else: the point the shadow ray ends at (offset off an area light)
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
    return r;
  }
}

// Whether the pass seeds a parameter of the radiance `light` sends (or of where it is).
template <class T>
bool light_seeded(const Scene& scene, const ParamView<T>& P, const Light& l) {
  auto texture = [&](int t) { return detail::texture_seeded_any(scene, t, P); };
  if (l.kind == Light::Kind::area) {
    const Material& m = scene.materials[scene.material_of(l.prims.front())];
    return P.active(m.emission.slot, 3) || texture(m.emission.texture);
  }
  return P.active(l.intensity, 3) || P.active(l.cutoff, 1) || P.active(l.beam, 1) || P.active(l.scale, 1) ||
         texture(l.texture) || P.active(l.position, 3) || P.active(l.target, 3) || P.active(l.direction, 3) ||
         P.active(l.env.data, uint32_t(3 * size_t(l.env.width) * size_t(l.env.height))) || P.active(l.env.scale, 1);
}

// With G = float (nothing geometric seeded), the light's position and the point x are constants:
// a spot's or projector's radiance, evaluated in S, sees them as such.
template <class G, class S>
LightSample<G, S> sample_light(const Scene& scene, const ParamView<S>& P, const Light& light, const Vec3<G>& x,
                               float pick, float u1, float u2, float u3) {
  const ParamView<G> PG = geometry_view<G>(P);
  LightSample<G, S> s;
  switch (light.kind) {
    case Light::Kind::point:
    case Light::Kind::spot: {
      const PointArrival<G> a = point_arrival(PG, light, x);
      s.wi = a.wi;
      const Vec3<S> I = light.kind == Light::Kind::spot
                            ? spot_intensity(scene.textures.data(), P, light, to_shading<S>(-s.wi))
                            : P.vec3(light.intensity);
      if (light.kind == Light::Kind::spot && !(value(I.x) > 0.f || value(I.y) > 0.f || value(I.z) > 0.f)) return s;
      s.weight = I * to_shading<S>(a.inv_dist2 / G(pick));
      s.target = a.position;
      break;
    }
    case Light::Kind::projector: {
      const ProjectorArrival<S> a = projector_arrival(scene.textures.data(), P, light, to_shading<S>(x));
      if (!a.valid || !(value(a.weight.x) > 0.f || value(a.weight.y) > 0.f || value(a.weight.z) > 0.f)) return s;
      s.wi = to_geometry<G>(a.wi);
      s.weight = a.weight * S(1.f / pick);
      s.target = value(P.vec3(light.position));
      break;
    }
    case Light::Kind::directional:
      s.wi = directional_wi(PG, light);
      s.weight = P.vec3(light.intensity) * S(1.f / pick);
      s.infinite = true;
      break;
    case Light::Kind::environment: {
      float pdf;
      const glm::vec3 d = sample_environment(light, u1, u2, pdf);
      if (!(pdf > 0.f)) return s;
      s.wi = Vec3<G>(d);
      s.pdf = pick * pdf;
      s.weight = environment_radiance(light, P, d) * S(1.f / s.pdf);
      s.infinite = true;
      break;
    }
    case Light::Kind::area: {
      const size_t k = std::min(size_t(std::upper_bound(light.cdf.begin(), light.cdf.end(), u3 * light.area) -
                                        light.cdf.begin()),
                                light.prims.size() - 1);
      const PrimT<G> lp = lift_prim(scene, PG, light.prims[k]);
      SurfacePoint<G> q = sample_prim(lp, u1, u2);
      const Vec3<G> to = q.p - x;
      s.wi = to / sqrt(dot(to, to));
      const Material& lm = scene.materials[scene.material_of(light.prims[k])];
      if (lm.directional) return s;  // its one direction misses x
      const G cos_l = -dot(q.n, s.wi);  // > 0: x sees the front side
      if (lm.two_sided && value(cos_l) < 0.f) q.n = -q.n;
      else if (!(value(cos_l) > 0.f)) return s;
      const G pdf = area_light_pdf(scene, light, lp, q, x);
      s.pdf = value(pdf);
      s.weight = emitted(scene, P, lm, light.prims[k], lp, q.p, true) / to_shading<S>(pdf);
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
