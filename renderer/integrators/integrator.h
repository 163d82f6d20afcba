#pragma once
// The path-tracing kernel, written once for every scalar type (DESIGN.md invariant 1); its entry
// points are declared in renderer/integrators/radiance.h, and only radiance_*.cpp include this
// body to compile them (other files include it for its helpers):
// unidirectional path tracing with next-event estimation for any BSDF lobe that is not a Dirac,
// multiple importance sampling with BSDF sampling (power heuristic), and Russian roulette.
// Discrete choices (traversal, occlusion, which light, which lobe, which direction) are made in
// float; positions, normals and directions are evaluated in the geometry type G, BSDF values,
// emission and throughput in the shading type S (invariant 2; G is S, or float when the pass seeds
// no geometry: renderer/integrators/two_types.h). The kernel never throws.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include <glm/geometric.hpp>

#include "renderer/bsdfs/bsdf.h"
#include "renderer/sensors/camera.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/light_sample.h"
#include "renderer/integrators/masks.h"
#include "renderer/integrators/path_state.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/media_vertex.h"
#include "renderer/integrators/shading_frame.h"
#include "renderer/core/ray_offset.h"
#include "renderer/samplers/sampler.h"
#include "renderer/integrators/surface.h"
#include "renderer/integrators/two_types.h"

namespace dray {

namespace detail {

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
    const T g = abs(dot(n, to) * dot(prim_normal(prim, q), to)) / (d2 * d2);
    return g / T(value(g));
  }
}

}  // namespace detail

// Whether world direction d (float) leaves on the side its local z says: directions on one side of
// the shading normal and the other of the geometric normal would leak light through the surface.
inline bool same_side(const glm::vec3& n_geometric, const glm::vec3& d, float local_z) {
  const float g = glm::dot(n_geometric, d);
  return local_z != 0.f && g != 0.f && (g > 0.f) == (local_z > 0.f);
}

template <class G, class S>
bool path_vertex(const Scene& scene, const ParamView<S>& P, PathState<G, S>& st, Sampler& sampler, VertexEvents& ev,
                 bool replay) {
  using detail::power_heuristic;
  const ParamView<G> PG = geometry_view<G>(P);
  const SceneAccel& bvh = scene.bvh;
  const int n_lights = int(scene.lights.size());
  const float light_pick = n_lights > 0 ? 1.f / float(n_lights) : 0.f;
  RayT<G>& ray = st.ray;
  Vec3<S>& L = st.L;
  Vec3<S>& beta = st.beta;
  const int depth = st.depth++;

  Ray fray = ray.detached();
  if (!replay) ev.hit = bvh.intersect(fray, ev.h);
  const Hit& hit = ev.h;
  // Emission reached by a BSDF-sampled ray: not counted with BSDF sampling off (Mitsuba's direct).
  const bool hide_emission = std::exchange(st.hide_emission, false) || (depth > 0 && scene.render.bsdf_samples == 0);
  // Inside a medium, a free flight first: the path scatters before the surface, or passes.
  if (st.medium >= 0) {
    const Medium& medium = scene.media[size_t(st.medium)];
    const FreeFlight<S> ff = sample_free_flight(medium, scene.volumes, P, fray, ev.hit ? hit.t : INFINITY, sampler);
    beta *= ff.weight;
    if (ff.scattered) return medium_vertex(scene, P, st, sampler, medium, ff.t, depth);
    if (value(beta) == glm::vec3(0.f)) return false;
  }
  if (!ev.hit) {
    if (scene.environment >= 0 && !hide_emission) {
      const Light& env = scene.lights[scene.environment];
      // A replay in float geometry reads the float pass's values where the environment is not differentiated.
      const bool read = replay && std::is_same_v<G, float> && !light_seeded(scene, P, env);
      const Vec3<S> Le = read ? Vec3<S>(ev.env) : environment_radiance(env, P, fray.d);
      if (!replay) {
        ev.env = value(Le);
        ev.env_mis = st.specular ? 1.f : detail::bsdf_mis(scene.render.emitter_samples, st.bsdf_pdf, light_pick * environment_pdf(env, fray.d));
      }
      L = add_product(L, beta, to_shading<S>(st.turn), Le, S(ev.env_mis));
    }
    return false;
  }
  PrimT<G> prim = lift_prim(scene, PG, hit.prim);
  SurfacePoint<G> sp = eval_hit(prim, ray, hit, 0.f);
  if constexpr (ad::is_differentiable_v<G>)
    if (st.medium >= 0) moved_exit(scene, P, st, sampler, fray, hit.t, sp.p, depth);
  const Material& mat = scene.materials[scene.material_of(hit.prim)];
  const bool back = value(dot(sp.n, ray.d)) > 0.f;

  // Emission leaves the front side only (the side the geometric normal points to), or both.
  if (mat.emissive && !mat.directional && (mat.two_sided || !back) && !hide_emission) {
    if (st.specular) {
      L += beta * emitted(scene, P, mat, hit.prim, prim, sp.p, false);
    } else {
      const Shape& shape = scene.shapes[bvh.prim_ref(hit.prim).shape];
      const AreaEmitter& light = std::get<AreaEmitter>(scene.lights[shape.light].model);
      // Only the value weighs the sample: computed without derivatives (no tape work).
      float light_pdf = light.pdf<float>(scene, value(prim), value(sp), Vec3<float>(value(st.prev_p)));
      // From the camera's first hit, at the light's material point (where the shadow edges'
      // boundary term is taken); further on (no boundary term there) at the fixed direction,
      // which has lighter tails: at a fixed light point, indirect vertices sliding past a
      // lamp's contact with the floor gave 1/distance fireflies.
      const G turn_here = depth == 1 && !st.prev_medium ? detail::area_turn(prim, value(sp.p), st.prev_p, st.prev_n) : st.turn;
      const Vec3<S> Le = emitted(scene, P, mat, hit.prim, prim, sp.p, depth == 1);
      L = add_product(L, beta, to_shading<S>(turn_here), Le, S(detail::bsdf_mis(scene.render.emitter_samples, st.bsdf_pdf, light_pdf)));
    }
  }
  beta *= to_shading<S>(st.turn);
  st.turn = G(1.f);
  // With volpath, a surface with a null part (a mask, a thin dielectric's straight pass) is
  // crossed without counting a bounce, also past the last one (Mitsuba's volpath).
  const bool volpath = integrator_traits(scene.render).media;
  const Bsdf* front_or_back = &scene.bsdfs[back ? mat.back : mat.front];
  const bool last = depth >= scene.render.max_depth;
  if (last && !(volpath && (is_mask(mat) || is_thin_dielectric(*front_or_back)))) return false;

  const float eps = detail::ray_epsilon(value(sp.p), fray.o, hit.t);

  // A mask lets the path through with probability 1 - opacity (a float decision; the weights
  // carry opacity's derivative). The path keeps its direction and its MIS state: shadow rays
  // cross masks with transmittance 1 - opacity, so the light found through one is weighed
  // against next-event estimation as if the mask were not there.
  if (is_mask(mat)) {
    const S opacity = mask_opacity(scene, P, mat, mask_uv(scene, mat, hit.prim, value(sp.p)));
    if (sampler.next() >= value(opacity)) {
      beta *= (S(1.f) - opacity) / S(1.f - value(opacity));
      const Vec3<G> n_in = back ? sp.n : -sp.n;  // the side the ray goes on to
      st.medium = medium_toward(scene, hit.prim, value(sp.n), fray.d, st.medium);
      if (volpath) {  // a null event: no bounce
        st.depth = depth;
        st.hide_emission = hide_emission;
      }
      ray = {sp.p + n_in * G(eps), ray.d};
      return true;
    }
    beta *= opacity / S(value(opacity));
    if (last) return false;
  }

  // Reflecting BSDFs face the side the ray came from (dray's surfaces are two-sided, with a
  // material per side under `twosided`); transmitting ones keep the outward normal and tell
  // inside from outside by wo. n, the geometric normal, decides sides and offsets; ns, the
  // shading normal (smooth meshes), is the BSDF's frame.
  const Bsdf& bsdf = *front_or_back;
  const uint32_t flags = bsdf_flags(bsdf);
  const bool flip = back && !(flags & kLobeTransmission);
  if (flip && mat.one_sided) return false;  // a one-sided surface seen from the back: black
  const Vec3<G> n = flip ? -sp.n : sp.n;
  const glm::vec3 n_f = value(n);
  // The BSDF's inputs: parameters and textures at the UV of the point the path sees (moving with
  // it: surface_coord); its frame (turned by a normal or bump map; sf.light_factor weighs light
  // directions there).
  const TexCoord<G> coord = scene.textures.empty() ? TexCoord<G>() : surface_coord(scene, hit.prim, prim, sp.p);
  const glm::vec2 uv = coord.at;
  const Inputs<S> in(P, scene.textures.data(), to_shading<S>(coord));
  const ShadingFrame<G> sf = shading_frame(scene, PG, mat, hit.prim, prim, sp,
                                           shading_normal(scene, PG, hit.prim, prim, sp.p, sp.n), flip, -ray.d, uv);
  const Frame<G>& frame = sf.frame;
  const Frame<float> frame_f = value(frame);
  const Vec3<G>& ns = sf.base.n;  // the shading normal, on the side the BSDF sees
  const Vec3<G> wo = frame.to_local(-ray.d);
  const Vec3<S> wo_s = to_shading<S>(wo);
  const Inputs<float> in_f = in.values_only();
  const glm::vec3 wo_f = value(wo);
  // The start of a ray leaving toward world direction d: off the surface on d's side.
  auto origin_toward = [&](const glm::vec3& d) { return sp.p + n * G(glm::dot(n_f, d) > 0.f ? eps : -eps); };

  // Next-event estimation: one light, chosen uniformly.
  if (n_lights > 0 && has_smooth_lobe(flags) && scene.render.emitter_samples > 0) {
    const int li = std::min(int(sampler.next() * float(n_lights)), n_lights - 1);
    const glm::vec2 u12 = sampler.next_2d();
    const float u1 = u12.x, u2 = u12.y, u3 = sampler.next();
    const Light& light = scene.lights[size_t(li)];
    auto draw = [&]() -> LightSample<G, S> {
      if constexpr (std::is_same_v<G, float> && !std::is_same_v<S, float>) {
        LightSample<float, S> replayed;
        if (replay && replayed_light_sample(scene, P, light, ev.light, replayed)) return replayed;
      }
      return sample_light(scene, P, light, sp.p, light_pick, u1, u2, u3);
    };
    const LightSample<G, S> ls = draw();
    if constexpr (std::is_same_v<S, float>)
      if (!replay) ev.light = ls;
    const glm::vec3 wi_f = value(ls.wi);
    const Vec3<G> wi = frame.to_local(ls.wi);
    if (ls.valid && same_side(n_f, wi_f, sf.base_z(wi_f))) {
      const Vec3<S> f = bsdf_f(bsdf, in, wo_s, to_shading<S>(wi)) * to_shading<S>(sf.light_factor(ls.wi));
      const glm::vec3 f_f = value(f);
      if (f_f.x > 0.f || f_f.y > 0.f || f_f.z > 0.f) {
        const Vec3<G> og = origin_toward(wi_f);
        const glm::vec3 o = value(og);
        const Ray shadow = ls.infinite ? Ray{o, wi_f, INFINITY} : detail::shadow_ray(o, ls.target);
        S passed;
        if (volpath) {
          const int from = medium_toward(scene, hit.prim, value(sp.n), wi_f, st.medium);
          const Vec3<S> tr = volume_transmittance(scene, P, shadow, from, sampler, og);
          if (value(tr) != glm::vec3(0.f)) {
            if (!replay) ev.light_mis = detail::light_mis(scene.render.bsdf_samples, ls.pdf, dray::bsdf_pdf(bsdf, in_f, wo_f, value(wi)));
            L = add_product(L, beta, f * tr, ls.weight, to_shading<S>(abs(wi.z) * G(ev.light_mis)));
          }
          passed = S(0.f);
        } else if (replay && !ev.masked) {
          passed = S(ev.passed);
        } else {
          ev.masked = false;
          passed = transmittance(scene, P, shadow, &ev.masked);
          ev.passed = value(passed);
        }
        if (value(passed) > 0.f) {
          if (!replay) ev.light_mis = detail::light_mis(scene.render.bsdf_samples, ls.pdf, dray::bsdf_pdf(bsdf, in_f, wo_f, value(wi)));
          const float w = ev.light_mis;
          L = add_product(L, beta, f, ls.weight, to_shading<S>(abs(wi.z) * G(w)) * passed);
        }
      }
    }
  }

  // BSDF sampling. A Dirac lobe's direction is re-evaluated in S, carried on in G (it turns with the normal and
  // bends with the IOR). Other directions are detached (drawn in the float frame): the
  // derivative is taken at a fixed direction, the parameterisation the boundary term of shadows
  // uses (light from a fixed ω or light point), so the surface's turning shows as d cos / cos,
  // not as a turning ray.
  const glm::vec2 u12 = sampler.next_2d();
  const float u1 = u12.x, u2 = u12.y, uc = sampler.next();
  if (!replay) ev.bsdf = bsdf_sample(bsdf, in_f, wo_f, uc, {u1, u2});
  const BsdfSample& s = ev.bsdf;
  if (!s.lobe) return false;
  if (s.lobe & kLobeDelta) {
    const DeltaLobe<S> d = bsdf_delta(bsdf, in, wo_s, s);
    const Vec3<G> wi = frame.to_world(to_geometry<G>(d.wi));
    const glm::vec3 wi_f = value(wi);
    if (!same_side(n_f, wi_f, sf.base_z(wi_f))) return false;  // would leave through the wrong side
    const G k = sf.light_factor(wi);
    if (!(value(k) > 0.f)) return false;
    beta *= d.weight * to_shading<S>(k);
    st.medium = medium_toward(scene, hit.prim, value(sp.n), wi_f, st.medium);
    ray = {origin_toward(wi_f), wi};
    if (volpath && is_thin_dielectric(bsdf) && (s.lobe & kLobeTransmission)) {
      st.depth = depth;  // a null event: no bounce, the MIS state of the last one kept
      st.hide_emission = hide_emission;
      return true;
    }
    if (last) return false;
    st.specular = true;
    st.prev_medium = false;
  } else {
    const glm::vec3 wi_f = to_glm(frame_f.to_world(Vec3<float>(s.wi)));
    if (!same_side(n_f, wi_f, sf.base_z(wi_f))) return false;
    const G k = sf.light_factor(Vec3<G>(wi_f));
    if (!(value(k) > 0.f)) return false;
    // The value is recomputed in G as in float, so that every scalar type renders the same image.
    const Vec3<G> wi = frame.to_local(Vec3<G>(wi_f));
    const float c = std::fabs(value(wi.z));
    beta = scale_product(beta, bsdf_f(bsdf, in, wo_s, to_shading<S>(wi)), to_shading<S>(k), S(c / s.pdf));
    st.turn = abs(wi.z) / G(c);  // value: exactly 1
    st.bsdf_pdf = s.pdf;
    st.specular = false;
    st.prev_p = sp.p;
    st.prev_n = ns;
    st.prev_medium = false;
    st.medium = medium_toward(scene, hit.prim, value(sp.n), wi_f, st.medium);
    ray = {origin_toward(wi_f), Vec3<G>(wi_f)};
  }

  // Russian roulette from bounce render.rr_depth on (default 3), with a survival probability that
  // depends on no parameter: a throughput-based probability would flip roulette decisions between
  // renders at nearby parameter values, and finite differences with the same random numbers would
  // no longer match the derivative. Unbiased either way.
  if (depth >= scene.render.rr_depth) {
    if (sampler.next() >= detail::kRouletteSurvival) return false;
    beta /= S(detail::kRouletteSurvival);
  }
  return true;
}

template <class G, class S>
Vec3<S> radiance(const Scene& scene, const ParamView<S>& P, PathState<G, S> st, Sampler& sampler,
                 std::vector<VertexRecord>* record) {
  VertexEvents ev;
  for (;;) {
    if constexpr (std::is_same_v<S, float>) {
      if (record) {
        record->push_back({st, sampler, {}, FlightCursor::local().position()});
        const bool more = path_vertex(scene, P, st, sampler, record->back().events);
        if (!more) break;
        continue;
      }
    }
    if (!path_vertex(scene, P, st, sampler, ev)) break;
  }
  return st.L;
}

template <class G, class S>
Vec3<S> radiance(const Scene& scene, const ParamView<S>& P, RayT<G> ray, Sampler& sampler,
                 std::vector<VertexRecord>* record) {
  PathState<G, S> st;
  st.ray = ray;
  st.medium = integrator_traits(scene.render).media ? scene.camera_medium() : -1;
  st.hide_emission = scene.render.hide_emitters;
  return radiance(scene, P, st, sampler, record);
}

}  // namespace dray
