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
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <glm/geometric.hpp>

#include "renderer/bsdfs/bsdf.h"
#include "renderer/core/ray_offset.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/path_state.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/vertex_stages.h"
#include "renderer/samplers/sampler.h"
#include "renderer/sensors/camera.h"

namespace dray {

// One vertex of the path: its stages (vertex_stages.h) in Mitsuba's order. Returns whether the path
// goes on. With `replay`, the float pass's draws are read from `events` (prb.h).
template <class G, class S>
bool path_vertex(const Scene& scene, const ParamView<S>& P, PathState<G, S>& state, Sampler& sampler, VertexEvents& events,
                 bool replay) {
  const int depth = state.depth++;
  const Ray ray_f = state.ray.detached();
  if (!replay) events.hit = scene.bvh.intersect(ray_f, events.h);
  // Emission reached by a BSDF-sampled ray: not counted with BSDF sampling off (Mitsuba's direct).
  const bool hide_emission = std::exchange(state.hide_emission, false) || (depth > 0 && scene.render.bsdf_samples == 0);
  const int n_lights = int(scene.lights.size());
  detail::Vertex<G, S> v{scene, P, geometry_view<G>(P), state, sampler, events, replay, integrator_traits(scene.render).media,
                         depth, hide_emission, n_lights > 0 ? 1.f / float(n_lights) : 0.f, ray_f};
  if (state.medium >= 0)
    if (const std::optional<bool> flight = detail::medium_flight(v)) return *flight;
  if (!events.hit) {
    detail::add_environment(v);
    return false;
  }
  const Hit& hit = events.h;
  const PrimT<G> prim = lift_prim(scene, v.PG, hit.prim);
  const SurfacePoint<G> sp = eval_hit(prim, state.ray, hit, 0.f);
  if constexpr (ad::is_differentiable_v<G>)
    if (state.medium >= 0) moved_exit(scene, P, state, sampler, ray_f, hit.t, sp.p, depth);
  const Material& mat = scene.materials[scene.material_of(hit.prim)];
  const bool back = value(dot(sp.n, state.ray.d)) > 0.f;
  detail::add_surface_emission(v, prim, sp, mat, back);
  state.beta *= to_shading<S>(state.turn);
  state.turn = G(1.f);
  // With volpath, a surface with a null part (a mask, a thin dielectric's straight pass) is
  // crossed without counting a bounce, also past the last one (Mitsuba's volpath).
  const Bsdf& bsdf = scene.bsdfs[back ? mat.back : mat.front];
  const bool last = depth >= scene.render.max_depth;
  if (last && !(v.volpath && (is_mask(mat) || is_thin_dielectric(bsdf)))) return false;
  const float eps = detail::ray_epsilon(value(sp.p), ray_f.o, hit.t);
  if (is_mask(mat)) {
    const detail::MaskPass pass = detail::pass_mask(v, sp, mat, back, eps, last);
    if (pass != detail::MaskPass::opaque) return pass == detail::MaskPass::through;
  }
  const bool flip = back && !(bsdf_flags(bsdf) & kLobeTransmission);
  if (flip && mat.one_sided) return false;  // a one-sided surface seen from the back: black
  const detail::SurfaceShading<G, S> shading = detail::shade_surface(v, prim, sp, mat, bsdf, flip, eps);
  detail::add_light_sample(v, shading);
  const detail::Bounce bounce = detail::sample_bsdf(v, shading, last);
  if (bounce != detail::Bounce::bounced) return bounce == detail::Bounce::null_event;
  return detail::survives_roulette(v);
}

template <class G, class S>
Vec3<S> radiance(const Scene& scene, const ParamView<S>& P, PathState<G, S> state, Sampler& sampler,
                 std::vector<VertexRecord>* record) {
  VertexEvents events;
  for (;;) {
    if constexpr (std::is_same_v<S, float>) {
      if (record) {
        record->push_back({state, sampler, {}, FlightCursor::local().position()});
        const bool more = path_vertex(scene, P, state, sampler, record->back().events);
        if (!more) break;
        continue;
      }
    }
    if (!path_vertex(scene, P, state, sampler, events)) break;
  }
  return state.L;
}


}  // namespace dray
