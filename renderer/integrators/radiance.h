#pragma once
// The path kernel's entry points, declared (DESIGN.md invariant 1). Their bodies
// (renderer/integrators/integrator.h) are compiled once for each pair of scalar types a pass uses,
// in radiance_*.cpp (explicit instantiation); every other file includes this header and links
// those instances instead of compiling the kernel again.
//
// The pairs (geometry G, shading S; renderer/integrators/two_types.h): float alone (the primal,
// the boundary term's paths); Dual<1>, Dual<4> and Dual<8> (forward mode, render_tiles.h's chunks),
// each on its own geometry or on float geometry; Var (path replay and the whole-path tape), the
// same two ways.
#include <vector>

#include "ad/dual.h"
#include "ad/var.h"
#include "renderer/core/param_table.h"
#include "renderer/core/ray.h"
#include "renderer/samplers/sampler.h"
#include "renderer/integrators/path_state.h"
#include "renderer/scene.h"

namespace dray {

// One vertex as the float pass saw it: the state arriving there, the random numbers it drew
// (the sampler's state on arrival) and its traversal outcomes. Path replay starts from these.
struct VertexRecord {
  PathState<float> state;
  Sampler sampler;
  VertexEvents events;
  uint32_t flight_at = 0;  // its first flight in the recording's flight log (renderer/media/flight_log.h)
};

// One vertex of a path: the ray of `state` meets the scene (or the environment), emission and
// next-event estimation add to state.L, the BSDF sample (or a mask's pass-through) continues the
// path in state. Returns false when the path ends here. With `replay`, `events` holds the outcomes of the
// same vertex's float pass (its traversals are not repeated, except shadow rays across masks,
// whose transmittance carries opacity's derivative); otherwise they are found and stored in `events`.
template <class G, class S>
bool path_vertex(const Scene& scene, const ParamView<S>& P, PathState<G, S>& state, Sampler& sampler, VertexEvents& events,
                 bool replay = false);

// The radiance a path gathers from state `state` on (one path sample). With `record` (float only),
// each vertex is appended to it.
template <class G, class S>
Vec3<S> radiance(const Scene& scene, const ParamView<S>& P, PathState<G, S> state, Sampler& sampler,
                 std::vector<VertexRecord>* record = nullptr);

// The medium a camera path of the shot starts in: its sensor's, for an integrator of media; -1 else.
int camera_start_medium(const Scene& scene, const Shot& shot);

// The state of a camera path of the shot along `ray`.
template <class S, class G>
PathState<G, S> camera_path(const Scene& scene, const Shot& shot, const RayT<G>& ray) {
  PathState<G, S> state;
  state.ray = ray;
  state.medium = camera_start_medium(scene, shot);
  state.hide_emission = scene.render.hide_emitters;
  state.beta = Vec3<S>(S(sensor_weight(scene.camera(shot).model)));
  return state;
}

// The radiance arriving along `ray` from the scene's own sensor (one path sample from its camera;
// the tests' and tools' entry: a pass starts its paths with camera_path of its shot).
template <class G, class S>
Vec3<S> radiance(const Scene& scene, const ParamView<S>& P, RayT<G> ray, Sampler& sampler,
                 std::vector<VertexRecord>* record = nullptr) {
  return radiance(scene, P, camera_path<S>(scene, scene.shot(), ray), sampler, record);
}

// The kernel's instances for the pair (G, S): `KIND` is `template` where they are compiled
// (radiance_*.cpp) and `extern template` everywhere else (below).
#define DRAY_RADIANCE_INSTANCES(KIND, G, S)                                                                      \
  KIND bool path_vertex<G, S>(const Scene&, const ParamView<S>&, PathState<G, S>&, Sampler&, VertexEvents&, bool); \
  KIND Vec3<S> radiance<G, S>(const Scene&, const ParamView<S>&, PathState<G, S>, Sampler&,                       \
                              std::vector<VertexRecord>*)

// A scalar type S's two pairs: (S, S), and (float, S) where the pass seeds no geometry.
#define DRAY_RADIANCE_INSTANCES_OF(KIND, S) \
  DRAY_RADIANCE_INSTANCES(KIND, S, S);      \
  DRAY_RADIANCE_INSTANCES(KIND, float, S)

DRAY_RADIANCE_INSTANCES(extern template, float, float);
DRAY_RADIANCE_INSTANCES_OF(extern template, ad::Dual<1>);
DRAY_RADIANCE_INSTANCES_OF(extern template, ad::Dual<4>);
DRAY_RADIANCE_INSTANCES_OF(extern template, ad::Dual<8>);
DRAY_RADIANCE_INSTANCES_OF(extern template, ad::Var);

}  // namespace dray
