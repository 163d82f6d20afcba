#pragma once
// The path-tracing kernel, written once for every scalar type T (DESIGN.md invariant 1):
// unidirectional path tracing with next-event estimation (point lights, emissive shapes,
// the environment), multiple importance sampling with BSDF sampling (power heuristic), and
// Russian roulette. Discrete choices (traversal, occlusion, which light, which direction) are
// made in float; positions, normals, BSDF values and emission are evaluated in T
// (invariant 2). The kernel never throws.
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/camera.h"
#include "renderer/sampler.h"
#include "renderer/surface.h"

namespace dray {

namespace detail {

inline constexpr float kRouletteSurvival = 0.8f;

inline float power_heuristic(float a, float b) { return a * a / (a * a + b * b); }

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

// An orthonormal basis around unit n (Duff et al., "Building an Orthonormal Basis,
// Revisited", JCGT 2017). The sign is a float decision.
template <class T>
void basis(const Vec3<T>& n, Vec3<T>& t, Vec3<T>& b) {
  float sign = std::copysign(1.f, value(n.z));
  T a = T(-1.f) / (T(sign) + n.z);
  T c = n.x * n.y * a;
  t = {T(1.f) + T(sign) * n.x * n.x * a, T(sign) * c, T(-sign) * n.x};
  b = {c, T(sign) + n.y * n.y * a, -n.y};
}

// The probability (per unit solid angle, as seen from the shading point) that next-event
// estimation picks the point `at` on primitive `prim` of area light `light`.
template <class T>
T area_light_pdf(const Scene& scene, const Light& light, const PrimT<T>& prim,
                 const SurfacePoint<T>& at, const Vec3<T>& from) {
  using ad::abs;
  Vec3<T> d = at.p - from;
  T dist2 = dot(d, d);
  T cos_l = abs(dot(at.n, d)) / ad::sqrt(dist2);
  // Light chosen uniformly and primitive by area (discrete: float); point uniform in the
  // primitive's area (T: the area is the Jacobian of the sample's reparameterisation).
  T area = prim_area(prim);
  float pick = value(area) / (float(scene.lights.size()) * light.area);
  return T(pick) * dist2 / (cos_l * area);
}

// A light reached by BSDF sampling from the vertex (x, n): the derivative is taken at the fixed
// material point of the light that was hit, as next-event estimation and the boundary term of
// shadows take it, not at the fixed direction: the factor G / value(G) (value 1) of the geometry
// term G = |cos_x cos_q| / d² in T replaces the direction's d cos / cos. With a fixed direction
// instead, a moving receiver's MIS weights and shadow edges were differentiated in two
// parameterisations at once (measured: 30% off on a sphere next to a sphere lamp).
template <class T>
T area_turn(const PrimT<T>& prim, const glm::vec3& hit, const Vec3<T>& x, const Vec3<T>& n) {
  if constexpr (!ad::is_differentiable_v<T>) {
    return T(1.f);
  } else {
    PrimCoords c;
    if (!prim_coords(value(prim), hit, c)) return T(1.f);
    const Vec3<T> q = prim_point(prim, c), to = q - x;
    const T d2 = dot(to, to);
    const T g = ad::abs(dot(n, to) * dot(prim_normal(prim, q), to)) / (d2 * d2);
    return g / T(value(g));
  }
}

}  // namespace detail

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
  return (cutoff - ad::acos(cos_theta)) / (cutoff - beam);
}

// The radiance arriving along `ray` (one path sample).
template <class T>
Vec3<T> radiance(const Scene& scene, const ParamView<T>& P, RayT<T> ray, Sampler& sampler) {
  using detail::power_heuristic;
  const Bvh& bvh = scene.bvh;
  const int n_lights = int(scene.lights.size());
  const float light_pick = n_lights > 0 ? 1.f / float(n_lights) : 0.f;
  const float inv_pi = 1.f / kPi;

  Vec3<T> L(T(0.f)), beta(T(1.f));
  bool specular = true;   // the previous bounce was a delta (or the camera): no MIS
  float bsdf_pdf = 0.f;   // solid-angle pdf of the previous BSDF sample
  Vec3<T> prev_p, prev_n; // the previous vertex and its (facing) normal
  // The previous BSDF sample's d cos / cos (value 1), not yet in beta: its direction is fixed,
  // but a light it reaches is differentiated at a fixed point on the light (see below).
  T turn(1.f);

  for (int depth = 0;; ++depth) {
    Ray fray = ray.detached();
    Hit hit;
    if (!bvh.intersect(fray, hit)) {
      if (scene.environment >= 0) {
        Vec3<T> Le = P.vec3(scene.lights[scene.environment].intensity);
        float w = specular ? 1.f : power_heuristic(bsdf_pdf, light_pick / (4.f * kPi));
        L += beta * turn * Le * T(w);
      }
      break;
    }
    PrimT<T> prim = lift_prim(scene, P, hit.prim);
    SurfacePoint<T> sp = eval_hit(prim, ray, hit, 0.f);
    const Material& mat = scene.materials[scene.material_of(hit.prim)];

    // Two-sided surfaces: face the normal towards the incoming ray. n, the geometric normal,
    // decides sides and offsets; ns, the shading normal (smooth meshes), shades. Light never
    // leaks through a surface: a direction must be above both.
    const bool back = value(dot(sp.n, ray.d)) > 0.f;
    Vec3<T> n = back ? -sp.n : sp.n;
    Vec3<T> ns = shading_normal(scene, P, hit.prim, prim, sp.p, sp.n);
    if (back) ns = -ns;
    glm::vec3 p_f = value(sp.p), n_f = value(n), ns_f = value(ns);

    // Emission leaves the front side only (the side the geometric normal points to), or both.
    if (mat.emissive && (mat.two_sided || value(dot(sp.n, ray.d)) < 0.f)) {
      Vec3<T> Le = P.vec3(mat.emission);
      if (specular) {
        L += beta * Le;
      } else {
        const Shape& shape = scene.shapes[bvh.prim_refs()[hit.prim].shape];
        const Light& light = scene.lights[shape.light];
        // Only the value weighs the sample: computed without derivatives (no tape work).
        float light_pdf = detail::area_light_pdf(scene, light, value(prim), value(sp), Vec3<float>(value(prev_p)));
        // From the camera's first hit, at the light's material point (where the shadow edges'
        // boundary term is taken); further on (no boundary term there) at the fixed direction,
        // which has lighter tails: at a fixed light point, indirect vertices sliding past a
        // lamp's contact with the floor gave 1/distance fireflies.
        const T turn_here = depth == 1 ? detail::area_turn(prim, p_f, prev_p, prev_n) : turn;
        L += beta * turn_here * Le * T(power_heuristic(bsdf_pdf, light_pdf));
      }
    }
    beta *= turn;
    turn = T(1.f);
    if (depth >= scene.render.max_depth) break;

    float eps = detail::ray_epsilon(p_f, fray.o, hit.t);
    Vec3<T> origin = sp.p + n * T(eps);
    const glm::vec3 origin_f = value(origin);

    if (mat.kind == Material::Kind::mirror) {
      Vec3<T> d = ray.d - ns * (T(2.f) * dot(ray.d, ns));
      if (!(glm::dot(value(d), n_f) > 0.f)) break;  // reflected below the surface
      beta *= P.vec3(mat.reflectance);
      ray = {origin, d};
      specular = true;
    } else {
      Vec3<T> albedo = P.vec3(mat.reflectance);
      Vec3<T> f = albedo * T(inv_pi);

      // Next-event estimation: one light, chosen uniformly.
      if (n_lights > 0) {
        int li = std::min(int(sampler.next() * float(n_lights)), n_lights - 1);
        float u1 = sampler.next(), u2 = sampler.next(), u3 = sampler.next();
        const Light& light = scene.lights[li];
        switch (light.kind) {
          case Light::Kind::point: {
            Vec3<T> to = P.vec3(light.position) - sp.p;
            T dist2 = dot(to, to);
            T dist = ad::sqrt(dist2);
            Vec3<T> wi = to / dist;
            T cos = dot(ns, wi);
            if (value(cos) <= 0.f || glm::dot(n_f, value(wi)) <= 0.f) break;
            if (bvh.occluded(detail::shadow_ray(origin_f, value(P.vec3(light.position))))) break;
            L += beta * f * P.vec3(light.intensity) * (cos / (dist2 * T(light_pick)));
            break;
          }
          case Light::Kind::spot: {
            Vec3<T> to = P.vec3(light.position) - sp.p;
            T dist2 = dot(to, to);
            Vec3<T> wi = to / ad::sqrt(dist2);
            T cos = dot(ns, wi);
            if (value(cos) <= 0.f || glm::dot(n_f, value(wi)) <= 0.f) break;
            const T falloff = spot_falloff(P, light, -wi);
            if (!(value(falloff) > 0.f)) break;
            if (bvh.occluded(detail::shadow_ray(origin_f, value(P.vec3(light.position))))) break;
            L += beta * f * P.vec3(light.intensity) * (falloff * cos / (dist2 * T(light_pick)));
            break;
          }
          case Light::Kind::directional: {
            const Vec3<T> wi = -normalize(P.vec3(light.direction));
            const glm::vec3 wi_f = value(wi);
            T cos = dot(ns, wi);
            if (value(cos) <= 0.f || glm::dot(n_f, wi_f) <= 0.f) break;
            if (bvh.occluded(Ray{origin_f, wi_f, INFINITY})) break;
            L += beta * f * P.vec3(light.intensity) * (cos / T(light_pick));
            break;
          }
          case Light::Kind::environment: {
            float z = 1.f - 2.f * u1, rxy = std::sqrt(std::max(0.f, 1.f - z * z));
            float phi = 2.f * kPi * u2;
            glm::vec3 wi(rxy * std::cos(phi), rxy * std::sin(phi), z);
            float cos_f = glm::dot(ns_f, wi);
            if (cos_f <= 0.f || glm::dot(n_f, wi) <= 0.f) break;
            if (bvh.occluded(Ray{origin_f, wi, INFINITY})) break;
            float light_pdf = light_pick / (4.f * kPi);
            float w = power_heuristic(light_pdf, cos_f * inv_pi);
            T cos = dot(ns, Vec3<T>(wi));
            L += beta * f * P.vec3(light.intensity) * (cos * T(w / light_pdf));
            break;
          }
          case Light::Kind::area: {
            size_t k = std::min(size_t(std::upper_bound(light.cdf.begin(), light.cdf.end(),
                                                        u3 * light.area) - light.cdf.begin()),
                                light.prims.size() - 1);
            PrimT<T> lp = lift_prim(scene, P, light.prims[k]);
            SurfacePoint<T> q = sample_prim(lp, u1, u2);
            Vec3<T> to = q.p - sp.p;
            T dist2 = dot(to, to);
            T dist = ad::sqrt(dist2);
            Vec3<T> wi = to / dist;
            T cos = dot(ns, wi);
            const Material& lm = scene.materials[scene.material_of(light.prims[k])];
            T cos_l = -dot(q.n, wi);  // > 0: the shading point sees the front side
            if (lm.two_sided && value(cos_l) < 0.f) {
              cos_l = -cos_l;
              q.n = -q.n;
            }
            if (value(cos) <= 0.f || value(cos_l) <= 0.f || glm::dot(n_f, value(wi)) <= 0.f) break;
            // The light point, offset to its emitting side (the side facing the shading point).
            const glm::vec3 q_f = value(q.p);
            if (bvh.occluded(detail::shadow_ray(origin_f, q_f + value(q.n) * detail::ray_epsilon(q_f)))) break;
            T light_pdf = detail::area_light_pdf(scene, light, lp, q, sp.p);
            float w = power_heuristic(value(light_pdf), value(cos) * inv_pi);
            L += beta * f * P.vec3(lm.emission) * (cos * T(w) / light_pdf);
            break;
          }
        }
      }

      // BSDF sampling: cosine-weighted hemisphere; f cos / pdf = albedo. The direction is
      // detached (drawn in the float frame): the derivative is taken at a fixed direction, the
      // parameterisation the boundary term of shadows uses (light from a fixed ω or light
      // point), so the surface's turning shows as d cos / cos, not as a turning ray.
      float u1 = sampler.next(), u2 = sampler.next();
      float r = std::sqrt(u1), phi = 2.f * kPi * u2;
      float lx = r * std::cos(phi), ly = r * std::sin(phi), lz = std::sqrt(std::max(0.f, 1.f - u1));
      Vec3<float> t, b;
      detail::basis(Vec3<float>(ns_f), t, b);
      const glm::vec3 wi = to_glm(t) * lx + to_glm(b) * ly + ns_f * lz;
      if (!(glm::dot(wi, n_f) > 0.f)) break;  // below the geometric surface: the path ends
      beta *= albedo;
      if constexpr (ad::is_differentiable_v<T>) {
        const T cos = dot(ns, Vec3<T>(wi));
        turn = cos / T(value(cos));  // value: exactly 1
      }
      bsdf_pdf = lz * inv_pi;
      specular = false;
      prev_p = sp.p;
      prev_n = ns;
      ray = {origin, Vec3<T>(wi)};
    }

    // Russian roulette after three bounces, with a survival probability that depends on no
    // parameter: a throughput-based probability would flip roulette decisions between renders
    // at nearby parameter values, and finite differences with the same random numbers would
    // no longer match the derivative. Unbiased either way.
    if (depth >= 3) {
      if (sampler.next() >= detail::kRouletteSurvival) break;
      beta /= T(detail::kRouletteSurvival);
    }
  }
  return L;
}

}  // namespace dray
