#pragma once
// The media part of the path kernel (renderer/integrators/integrator.h), as Mitsuba 3's `volpath`:
// a path inside a medium samples a free flight before the surface it would reach; where it
// scatters, the medium vertex estimates light (next-event, phase function against the light by
// MIS) and samples the phase function. Surfaces with a null part (`null`, a mask, the straight
// pass of a `thindielectric`) are crossed by paths without counting a bounce, and by shadow rays
// with their transmission; a shape that names media (`interior`, `exterior`) changes the path's
// medium when it is crossed. Only scenes rendered with `volpath` track media (as Mitsuba's `path`
// ignores them).
#include <variant>

#include <glm/geometric.hpp>

#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/light_sample.h"
#include "renderer/integrators/masks.h"
#include "renderer/integrators/path_state.h"
#include "renderer/integrators/surface.h"
#include "renderer/media/medium.h"

namespace dray {

// The medium on the side of a surface that float direction d goes to: a shape naming media
// divides space into its interior (against the geometric normal n) and exterior; another shape
// leaves the medium as it was.
inline int medium_toward(const Scene& scene, uint32_t prim, const glm::vec3& n, const glm::vec3& d, int current) {
  if (!integrator_traits(scene.render).media) return current;
  const Shape& s = scene.shapes[scene.bvh.prim_ref(prim).shape];
  if (s.interior < 0 && s.exterior < 0) return current;
  return glm::dot(n, d) > 0.f ? s.exterior : s.interior;
}

inline bool is_thin_dielectric(const Bsdf& b) { return std::holds_alternative<ThinDielectricBsdf>(b); }

// A moving surface between media: where the crossing at distance t (in G, value that of the
// float traversal) moves along the ray by dt, the medium before it (σ_before at p, none: -1) gains
// dt of optical depth and the one after it loses it: the transmittance factor exp(−(σ_before −
// σ_after) dt), of value 1, that carries the derivative of the media's extent with the surface.
// (A shadow ray's transmittance is all it changes; a path's segment also gains the light
// scattered in the added length: moved_exit.)
template <class S, class G>
Vec3<S> crossing_factor(const Scene& scene, const ParamView<S>& P, int before, int after, const G& t, const glm::vec3& p) {
  if constexpr (!ad::is_differentiable_v<G>) {
    return Vec3<S>(S(1.f));
  } else {
    const S dt = to_shading<S>(t - G(value(t)));
    Vec3<S> sigma(S(0.f));
    if (before >= 0) sigma = sigma + medium_sigma_t(scene.media[size_t(before)], scene.volumes, P, p);
    if (after >= 0) sigma = sigma - medium_sigma_t(scene.media[size_t(after)], scene.volumes, P, p);
    return {exp(-sigma.x * dt), exp(-sigma.y * dt), exp(-sigma.z * dt)};
  }
}

// The radiance in-scattered toward −d at x in medium `medium`, per unit σs: a medium vertex at x
// with throughput 1 and the path from it, in float (it multiplies a change of distance whose
// value is 0: only its value counts), drawn from the path's stream moved far past its own draws
// and with no flight log, so that no decision of the path moves. Depth: the vertex's. (A template
// so that medium_vertex and radiance, defined later, are found where it is instantiated.)
template <class F = float>
glm::vec3 inscattered(const Scene& scene, int medium, const glm::vec3& x, const glm::vec3& d, int depth, const Sampler& path) {
  const ParamView<F> PF(scene.params);
  PathState<F, F> state;
  state.ray = {Vec3<F>(x), Vec3<F>(d)};
  state.medium = medium;
  state.depth = depth + 1;
  Sampler aux = path;
  aux.seek(0x40000000u + uint32_t(depth) * 0x100000u);
  const ReplayFlights no_log({});
  if (!medium_vertex(scene, PF, state, aux, scene.media[size_t(medium)], 0.f, depth)) return value(state.L);
  return value(radiance(scene, PF, state, aux));  // the path on from state (state.L included)
}

// The fraction of light that passes along a shadow ray starting in `medium` (volpath): the media
// it crosses, times the null transmission of the surfaces it crosses (a mask's 1 − opacity, a
// thin dielectric's 1 − R); 0 past any other surface. With geometry differentiated (G), the
// ray's origin (`origin`, in G: its value is ray.o) and the crossings move along it, changing the
// media's extent (crossing_factor, distances from the moving origin; a finite end fixed).
template <class G, class T>
Vec3<T> volume_transmittance(const Scene& scene, const ParamView<T>& P, Ray ray, int medium, Sampler& sampler,
                             const Vec3<G>& origin) {
  Vec3<T> passed(T(1.f));
  const ParamView<float> PF(scene.params);
  const RayT<G> rg{origin, Vec3<G>(ray.d)};
  float travelled = 0.f;  // from the origin to ray.o
  // The distance from the moving origin to point q (in G) on the ray.
  auto along = [&](const Vec3<G>& q) { return dot(q - rg.o, rg.d) / dot(rg.d, rg.d); };
  for (int crossed = 0; crossed < 64; ++crossed) {
    Hit hit;
    const bool found = scene.bvh.intersect(ray, hit);
    const float t_end = found ? hit.t : ray.t_max;
    if (medium >= 0) {
      passed = passed * medium_transmittance(scene.media[size_t(medium)], scene.volumes, P, ray, t_end, sampler);
      if (value(passed) == glm::vec3(0.f)) return passed;
    }
    if (!found) {
      if constexpr (ad::is_differentiable_v<G>)
        if (medium >= 0 && std::isfinite(t_end)) {
          const glm::vec3 end = ray.o + ray.d * t_end;
          passed = passed * crossing_factor(scene, P, medium, -1, along(Vec3<G>(end)), end);
        }
      return passed;
    }
    const Material& m = scene.materials[scene.material_of(hit.prim)];
    const glm::vec3 p = ray.o + ray.d * hit.t;
    const PrimT<float> pf = lift_prim(scene, PF, hit.prim);
    const glm::vec3 n = value(eval_hit(pf, RayT<float>{Vec3<float>(ray.o), Vec3<float>(ray.d)}, hit, 0.f).n);
    const Bsdf& b = scene.bsdfs[glm::dot(n, ray.d) > 0.f ? m.back : m.front];
    const int after = medium_toward(scene, hit.prim, n, ray.d, medium);
    if constexpr (ad::is_differentiable_v<G>)
      if (after != medium) {
        // The root past ray.o, from the moving origin.
        const Vec3<G> pg = eval_hit(lift_prim(scene, geometry_view<G>(P), hit.prim), rg, hit, travelled).p;
        passed = passed * crossing_factor(scene, P, medium, after, along(pg), p);
      }
    if (is_mask(m)) {
      passed = passed * (T(1.f) - mask_opacity(scene, P, m, mask_uv(scene, m, hit.prim, p)));
    } else if (is_thin_dielectric(b)) {
      const auto& thin = std::get<ThinDielectricBsdf>(b);
      const TexCoord<T> uv = scene.textures.empty() ? TexCoord<T>() : surface_texcoord<T>(scene, hit.prim, pf, p);
      const Inputs<T> in(P, scene.textures.data(), uv);
      passed = passed * in.vec3(thin.specular_transmittance) * (T(1.f) - thin.reflectance(in, T(glm::dot(n, ray.d))));
    } else {
      return Vec3<T>(T(0.f));
    }
    medium = after;
    const float step = hit.t + detail::ray_epsilon(p, ray.o, hit.t);
    ray.o += ray.d * step;
    ray.t_max -= step;
    travelled += step;
    if (!(ray.t_max > 0.f)) return passed;
  }
  return Vec3<T>(T(0.f));
}

// A path scattered by medium m at distance t along state.ray (the vertex of index `depth`):
// next-event estimation through the phase function, then a phase-function sample continues the
// path. Returns false when the path ends here.
template <class G, class S>
bool medium_vertex(const Scene& scene, const ParamView<S>& P, PathState<G, S>& state, Sampler& sampler, const Medium& m,
                   float t, int depth) {
  RayT<G>& ray = state.ray;
  const Vec3<G> p = ray.o + ray.d * G(t);
  const glm::vec3 p_f = value(p), d_f = value(ray.d);
  state.beta *= to_shading<S>(state.turn);
  state.turn = G(1.f);
  if (depth >= scene.render.max_depth) return false;
  const ParamView<float> PF = P.values_only();
  const int n_lights = int(scene.lights.size());
  if (n_lights > 0 && m.sample_emitters) {
    const float pick = 1.f / float(n_lights);
    const int li = std::min(int(sampler.next() * float(n_lights)), n_lights - 1);
    const glm::vec2 u12 = sampler.next_2d();
    const float u1 = u12.x, u2 = u12.y, u3 = sampler.next();
    const LightSample<G, S> light_sample = sample_light(scene, P, scene.lights[size_t(li)], p, pick, u1, u2, u3);
    if (light_sample.valid) {
      const glm::vec3 wi = value(light_sample.wi);
      const Ray shadow = light_sample.infinite ? Ray{p_f, wi, INFINITY} : detail::shadow_ray(p_f, light_sample.target);
      const Vec3<S> tr = volume_transmittance(scene, P, shadow, state.medium, sampler, p);
      if (value(tr) != glm::vec3(0.f)) {
        const float cos_s = glm::dot(d_f, wi);
        const float w = light_sample.pdf > 0.f ? detail::power_heuristic(light_sample.pdf, phase_eval(m.phase, PF, cos_s)) : 1.f;
        state.L = add_product(state.L, state.beta, light_sample.weight, tr, phase_eval(m.phase, P, S(cos_s)) * S(w));
      }
    }
  }
  const glm::vec2 u12 = sampler.next_2d();
  const float u1 = u12.x, u2 = u12.y;
  const PhaseSample ps = phase_sample(m.phase, PF, d_f, {u1, u2});
  if (!(ps.pdf > 0.f)) return false;
  state.beta *= phase_eval(m.phase, P, S(glm::dot(d_f, ps.d))) / S(ps.pdf);
  state.specular = false;
  state.bsdf_pdf = ps.pdf;
  state.prev_p = p;
  state.prev_n = Vec3<G>(ps.d);
  state.prev_medium = true;
  ray = {p, Vec3<G>(ps.d)};
  if (depth >= scene.render.rr_depth) {
    if (sampler.next() >= detail::kRouletteSurvival) return false;
    state.beta /= S(detail::kRouletteSurvival);
  }
  return true;
}

// The path crossed medium state.medium to the surface it hit at p (in G; at distance t along the
// float ray fray). Where geometry is differentiated, the surface's motion along the ray changes
// the crossing by dc (value 0): the light that passed changes by exp(−σt dc), and the light that
// scattered in the added length adds β σs Ls dc (the free flight's density at its end; Ls in
// float, inscattered). The next segment starts at p, in G: its own length follows.
template <class G, class S>
void moved_exit(const Scene& scene, const ParamView<S>& P, PathState<G, S>& state, const Sampler& sampler, const Ray& fray, float t,
                const Vec3<G>& p, int depth) {
  const RayT<G>& ray = state.ray;
  const G tg = dot(p - ray.o, ray.d) / dot(ray.d, ray.d);
  const glm::vec3 x = value(p);
  const Medium& m = scene.media[size_t(state.medium)];
  const ParamView<float> PF = P.values_only();
  const glm::vec3 sigma_s = value(medium_sigma_t(m, scene.volumes, PF, x) * medium_albedo(m, scene.volumes, PF, x));
  if (sigma_s != glm::vec3(0.f) && depth < scene.render.max_depth) {
    const glm::vec3 inside = x - fray.d * detail::ray_epsilon(x, fray.o, t);
    const glm::vec3 w = value(state.beta) * sigma_s * inscattered(scene, state.medium, inside, fray.d, depth, sampler);
    if (std::isfinite(w.x + w.y + w.z) && w != glm::vec3(0.f)) state.L = state.L + Vec3<S>(w) * to_shading<S>(tg - G(value(tg)));
  }
  state.beta *= crossing_factor(scene, P, state.medium, -1, tg, x);
}

}  // namespace dray
