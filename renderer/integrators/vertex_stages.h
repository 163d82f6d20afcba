#pragma once
// The stages of a path vertex (integrator.h's path_vertex), as Mitsuba's path.cpp and prb.py read:
// the medium's free flight, emission (the environment's on a miss, a surface's on a hit), a mask's
// pass, the surface's shading, the light sample with MIS, the BSDF sample and Russian roulette.
// A replay (prb.h) reads what the float pass drew from VertexEvents instead of drawing again, and
// volpath's differences (media on shadow rays, null events) sit in the stage they change.
// Part of the kernel: included by integrator.h only.
#include <cmath>
#include <optional>
#include <type_traits>
#include <utility>

#include <glm/geometric.hpp>

#include "renderer/bsdfs/bsdf.h"
#include "renderer/integrators/light_sample.h"
#include "renderer/integrators/masks.h"
#include "renderer/integrators/media_vertex.h"
#include "renderer/integrators/path_state.h"
#include "renderer/integrators/shading_frame.h"
#include "renderer/integrators/surface.h"
#include "renderer/integrators/two_types.h"

namespace dray {

// Whether world direction d (float) leaves on the side its local z says: directions on one side of
// the shading normal and the other of the geometric normal would leak light through the surface.
inline bool same_side(const glm::vec3& n_geometric, const glm::vec3& d, float local_z) {
  const float g = glm::dot(n_geometric, d);
  return local_z != 0.f && g != 0.f && (g > 0.f) == (local_z > 0.f);
}

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

// What every stage of one vertex reads and writes.
template <class G, class S>
struct Vertex {
  const Scene& scene;
  const ParamView<S>& P;
  ParamView<G> PG;  // the parameters in the geometry type
  PathState<G, S>& state;
  Sampler& sampler;
  VertexEvents& events;
  bool replay;         // reading the float pass's draws (prb.h)
  bool volpath;        // paths cross media and null surfaces
  int depth;           // this vertex's bounce
  bool hide_emission;  // emission reached here is not counted
  float light_pick;    // a light's probability in next-event estimation
  Ray ray_f;           // the ray, in float

  // A null event (volpath): no bounce, the MIS state of the last one kept.
  void null_event() {
    state.depth = depth;
    state.hide_emission = hide_emission;
  }
};

// Inside a medium, a free flight first: the path scatters before the surface (the medium's vertex
// says whether it goes on), is absorbed, or passes on to the surface (nothing).
template <class G, class S>
std::optional<bool> medium_flight(Vertex<G, S>& v) {
  const Medium& medium = v.scene.media[size_t(v.state.medium)];
  const FreeFlight<S> flight =
      sample_free_flight(medium, v.scene.volumes, v.P, v.ray_f, v.events.hit ? v.events.h.t : INFINITY, v.sampler);
  v.state.beta *= flight.weight;
  if (flight.scattered) return medium_vertex(v.scene, v.P, v.state, v.sampler, medium, flight.t, v.depth);
  if (value(v.state.beta) == glm::vec3(0.f)) return false;
  return std::nullopt;
}

// A miss: the environment's light along the ray, weighed against next-event estimation.
template <class G, class S>
void add_environment(Vertex<G, S>& v) {
  const Scene& scene = v.scene;
  if (scene.environment < 0 || v.hide_emission) return;
  const Light& env = scene.lights[scene.environment];
  // A replay in float geometry reads the float pass's values where the environment is not differentiated.
  const bool read = v.replay && std::is_same_v<G, float> && !light_seeded(scene, v.P, env);
  const Vec3<S> Le = read ? Vec3<S>(v.events.env) : environment_radiance(env, v.P, v.ray_f.d);
  if (!v.replay) {
    v.events.env = value(Le);
    v.events.env_mis = v.state.specular ? 1.f
                                     : bsdf_mis(scene.render.emitter_samples, v.state.bsdf_pdf,
                                                v.light_pick * environment_pdf(env, v.ray_f.d));
  }
  v.state.L = add_product(v.state.L, v.state.beta, to_shading<S>(v.state.turn), Le, S(v.events.env_mis));
}

// An emitting surface's light reached by the path, weighed against next-event estimation. It
// leaves the front side only (the side the geometric normal points to), or both.
template <class G, class S>
void add_surface_emission(Vertex<G, S>& v, const PrimT<G>& prim, const SurfacePoint<G>& sp, const Material& mat, bool back) {
  if (!mat.emissive || mat.directional || (!mat.two_sided && back) || v.hide_emission) return;
  const Scene& scene = v.scene;
  PathState<G, S>& state = v.state;
  const uint32_t hit_prim = v.events.h.prim;
  if (state.specular) {
    state.L += state.beta * emitted(scene, v.P, mat, hit_prim, prim, sp.p, false);
    return;
  }
  const Shape& shape = scene.shapes[scene.bvh.prim_ref(hit_prim).shape];
  const AreaEmitter& light = std::get<AreaEmitter>(scene.lights[shape.light].model);
  // Only the value weighs the sample: computed without derivatives (no tape work).
  const float light_pdf = light.pdf<float>(scene, value(prim), value(sp), Vec3<float>(value(state.prev_p)));
  // From the camera's first hit, at the light's material point (where the shadow edges' boundary
  // term is taken); further on (no boundary term there) at the fixed direction, which has lighter
  // tails: at a fixed light point, indirect vertices sliding past a lamp's contact with the floor
  // gave 1/distance fireflies.
  const G turn_here = v.depth == 1 && !state.prev_medium ? area_turn(prim, value(sp.p), state.prev_p, state.prev_n) : state.turn;
  const Vec3<S> Le = emitted(scene, v.P, mat, hit_prim, prim, sp.p, v.depth == 1);
  state.L = add_product(state.L, state.beta, to_shading<S>(turn_here), Le, S(bsdf_mis(scene.render.emitter_samples, state.bsdf_pdf, light_pdf)));
}

// A mask lets the path through with probability 1 - opacity (a float decision; the weights carry
// opacity's derivative). The path keeps its direction and its MIS state: shadow rays cross masks
// with transmittance 1 - opacity, so the light found through one is weighed against next-event
// estimation as if the mask were not there.
enum class MaskPass { through, stop, opaque };
template <class G, class S>
MaskPass pass_mask(Vertex<G, S>& v, const SurfacePoint<G>& sp, const Material& mat, bool back, float eps, bool last) {
  const Scene& scene = v.scene;
  PathState<G, S>& state = v.state;
  const S opacity = mask_opacity(scene, v.P, mat, mask_uv(scene, mat, v.events.h.prim, value(sp.p)));
  if (v.sampler.next() >= value(opacity)) {
    state.beta *= (S(1.f) - opacity) / S(1.f - value(opacity));
    const Vec3<G> n_in = back ? sp.n : -sp.n;  // the side the ray goes on to
    state.medium = medium_toward(scene, v.events.h.prim, value(sp.n), v.ray_f.d, state.medium);
    if (v.volpath) v.null_event();
    state.ray = {sp.p + n_in * G(eps), state.ray.d};
    return MaskPass::through;
  }
  state.beta *= opacity / S(value(opacity));
  return last ? MaskPass::stop : MaskPass::opaque;
}

// The surface as its BSDF sees it. Reflecting BSDFs face the side the ray came from (dray's
// surfaces are two-sided, with a material per side under `twosided`); transmitting ones keep the
// outward normal and tell inside from outside by wo. n, the geometric normal, decides sides and
// offsets; the shading normal (smooth meshes) is the BSDF's frame.
template <class G, class S>
struct SurfaceShading {
  const Bsdf& bsdf;
  uint32_t flags;
  Vec3<G> p, n;          // the point, and the geometric normal on the side the BSDF sees
  glm::vec3 n_f;         // n's value
  glm::vec3 outward_f;   // the geometric normal as the shape gives it (media are on its sides)
  float eps;             // the offset of rays leaving the point
  Inputs<S> in;          // parameters and textures at the point's UV (moving with it)
  Inputs<float> in_f;
  ShadingFrame<G> frames;    // the frame, turned by a normal or bump map (light_factor weighs light there)
  Vec3<G> wo;
  Vec3<S> wo_s;
  glm::vec3 wo_f;

  const Frame<G>& frame() const { return frames.frame; }
  // The start of a ray leaving toward world direction d: off the surface on d's side.
  Vec3<G> origin_toward(const glm::vec3& d) const { return p + n * G(glm::dot(n_f, d) > 0.f ? eps : -eps); }
};

template <class G, class S>
SurfaceShading<G, S> shade_surface(const Vertex<G, S>& v, const PrimT<G>& prim, const SurfacePoint<G>& sp, const Material& mat,
                                   const Bsdf& bsdf, bool flip, float eps) {
  const Scene& scene = v.scene;
  const uint32_t hit_prim = v.events.h.prim;
  const Vec3<G> n = flip ? -sp.n : sp.n;
  const TexCoord<G> coord = scene.textures.empty() ? TexCoord<G>() : surface_coord(scene, hit_prim, prim, sp.p);
  const Inputs<S> in(v.P, scene.textures.data(), to_shading<S>(coord));
  const ShadingFrame<G> frames = shading_frame(scene, v.PG, mat, hit_prim, prim, sp,
                                           shading_normal(scene, v.PG, hit_prim, prim, sp.p, sp.n), flip, -v.state.ray.d, coord.at);
  const Vec3<G> wo = frames.frame.to_local(-v.state.ray.d);
  return SurfaceShading<G, S>{bsdf, bsdf_flags(bsdf), sp.p, n, value(n), value(sp.n), eps, in, in.values_only(),
                              frames, wo, to_shading<S>(wo), value(wo)};
}


// Next-event estimation: one light, chosen uniformly, its sample weighed against BSDF sampling by
// MIS; its shadow ray crosses masks (path) or media and null surfaces (volpath).
template <class G, class S>
void add_light_sample(Vertex<G, S>& v, const SurfaceShading<G, S>& s) {
  const Scene& scene = v.scene;
  const int n_lights = int(scene.lights.size());
  if (n_lights == 0 || !has_smooth_lobe(s.flags) || scene.render.emitter_samples == 0) return;
  PathState<G, S>& state = v.state;
  VertexEvents& events = v.events;
  const int li = std::min(int(v.sampler.next() * float(n_lights)), n_lights - 1);
  const glm::vec2 u12 = v.sampler.next_2d();
  const float u1 = u12.x, u2 = u12.y, u3 = v.sampler.next();
  const Light& light = scene.lights[size_t(li)];
  auto draw = [&]() -> LightSample<G, S> {
    if constexpr (std::is_same_v<G, float> && !std::is_same_v<S, float>) {
      LightSample<float, S> replayed;
      if (v.replay && replayed_light_sample(scene, v.P, light, events.light, replayed)) return replayed;
    }
    return sample_light(scene, v.P, light, s.p, v.light_pick, u1, u2, u3);
  };
  const LightSample<G, S> drawn = draw();
  if constexpr (std::is_same_v<S, float>)
    if (!v.replay) events.light = drawn;
  const glm::vec3 wi_f = value(drawn.wi);
  const Vec3<G> wi = s.frame().to_local(drawn.wi);
  if (!drawn.valid || !same_side(s.n_f, wi_f, s.frames.base_z(wi_f))) return;
  const Vec3<S> f = bsdf_f(s.bsdf, s.in, s.wo_s, to_shading<S>(wi)) * to_shading<S>(s.frames.light_factor(drawn.wi));
  const glm::vec3 f_f = value(f);
  if (!(f_f.x > 0.f || f_f.y > 0.f || f_f.z > 0.f)) return;
  const Vec3<G> origin = s.origin_toward(wi_f);
  const glm::vec3 o = value(origin);
  const Ray shadow = drawn.infinite ? Ray{o, wi_f, INFINITY} : shadow_ray(o, drawn.target);
  auto weigh = [&] {
    if (!v.replay) events.light_mis = light_mis(scene.render.bsdf_samples, drawn.pdf, dray::bsdf_pdf(s.bsdf, s.in_f, s.wo_f, value(wi)));
  };
  if (v.volpath) {
    const int from = medium_toward(scene, events.h.prim, s.outward_f, wi_f, state.medium);
    const Vec3<S> tr = volume_transmittance(scene, v.P, shadow, from, v.sampler, origin);
    if (value(tr) == glm::vec3(0.f)) return;
    weigh();
    state.L = add_product(state.L, state.beta, f * tr, drawn.weight, to_shading<S>(abs(wi.z) * G(events.light_mis)));
    return;
  }
  S passed;
  if (v.replay && !events.masked) {
    passed = S(events.passed);
  } else {
    events.masked = false;
    passed = transmittance(scene, v.P, shadow, &events.masked);
    events.passed = value(passed);
  }
  if (!(value(passed) > 0.f)) return;
  weigh();
  const float w = events.light_mis;
  state.L = add_product(state.L, state.beta, f, drawn.weight, to_shading<S>(abs(wi.z) * G(w)) * passed);
}

// BSDF sampling. A Dirac lobe's direction is re-evaluated in S, carried on in G (it turns with the
// normal and bends with the IOR). Other directions are detached (drawn in the float frame): the
// derivative is taken at a fixed direction, the parameterisation the boundary term of shadows
// uses (light from a fixed ω or light point), so the surface's turning shows as d cos / cos, not
// as a turning ray.
enum class Bounce { ended, bounced, null_event };
template <class G, class S>
Bounce sample_bsdf(Vertex<G, S>& v, const SurfaceShading<G, S>& s, bool last) {
  PathState<G, S>& state = v.state;
  const glm::vec2 u12 = v.sampler.next_2d();
  const float u1 = u12.x, u2 = u12.y, uc = v.sampler.next();
  if (!v.replay) v.events.bsdf = bsdf_sample(s.bsdf, s.in_f, s.wo_f, uc, {u1, u2});
  const BsdfSample& b = v.events.bsdf;
  if (!b.lobe) return Bounce::ended;
  const uint32_t hit_prim = v.events.h.prim;
  if (b.lobe & kLobeDelta) {
    const DeltaLobe<S> d = bsdf_delta(s.bsdf, s.in, s.wo_s, b);
    const Vec3<G> wi = s.frame().to_world(to_geometry<G>(d.wi));
    const glm::vec3 wi_f = value(wi);
    if (!same_side(s.n_f, wi_f, s.frames.base_z(wi_f))) return Bounce::ended;  // would leave through the wrong side
    const G k = s.frames.light_factor(wi);
    if (!(value(k) > 0.f)) return Bounce::ended;
    state.beta *= d.weight * to_shading<S>(k);
    state.medium = medium_toward(v.scene, hit_prim, s.outward_f, wi_f, state.medium);
    state.ray = {s.origin_toward(wi_f), wi};
    if (v.volpath && is_thin_dielectric(s.bsdf) && (b.lobe & kLobeTransmission)) {
      v.null_event();
      return Bounce::null_event;
    }
    if (last) return Bounce::ended;
    state.specular = true;
    state.prev_medium = false;
    return Bounce::bounced;
  }
  const glm::vec3 wi_f = to_glm(value(s.frame()).to_world(Vec3<float>(b.wi)));
  if (!same_side(s.n_f, wi_f, s.frames.base_z(wi_f))) return Bounce::ended;
  const G k = s.frames.light_factor(Vec3<G>(wi_f));
  if (!(value(k) > 0.f)) return Bounce::ended;
  // The value is recomputed in G as in float, so that every scalar type renders the same image.
  const Vec3<G> wi = s.frame().to_local(Vec3<G>(wi_f));
  const float c = std::fabs(value(wi.z));
  state.beta = scale_product(state.beta, bsdf_f(s.bsdf, s.in, s.wo_s, to_shading<S>(wi)), to_shading<S>(k), S(c / b.pdf));
  state.turn = abs(wi.z) / G(c);  // value: exactly 1
  state.bsdf_pdf = b.pdf;
  state.specular = false;
  state.prev_p = s.p;
  state.prev_n = s.frames.base.n;  // the shading normal, on the side the BSDF sees
  state.prev_medium = false;
  state.medium = medium_toward(v.scene, hit_prim, s.outward_f, wi_f, state.medium);
  state.ray = {s.origin_toward(wi_f), Vec3<G>(wi_f)};
  return Bounce::bounced;
}

// Russian roulette from bounce render.rr_depth on (default 3), with a survival probability that
// depends on no parameter: a throughput-based probability would flip roulette decisions between
// renders at nearby parameter values, and finite differences with the same random numbers would
// no longer match the derivative. Unbiased either way.
template <class G, class S>
bool survives_roulette(Vertex<G, S>& v) {
  if (v.depth < v.scene.render.rr_depth) return true;
  if (v.sampler.next() >= kRouletteSurvival) return false;
  v.state.beta /= S(kRouletteSurvival);
  return true;
}

}  // namespace detail

}  // namespace dray
