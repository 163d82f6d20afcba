#pragma once
// Path replay backpropagation (PRB; Vicini, Speierer and Jakob, SIGGRAPH 2021) for the interior
// term of reverse mode, on the CPU. The float pass records each vertex of a path (the state
// arriving there, the sampler's state, what its rays hit: integrator.h's VertexRecord). The
// adjoint then walks the path once, last vertex first: each vertex runs the same kernel step
// (path_vertex) in Var on a small local tape, from the recorded state lifted to tape inputs,
// without tracing; its radiance is seeded with d loss / d sample and its outgoing state with the
// adjoint the next vertex handed back; one sweep gives the parameters' adjoints and the adjoint
// of its incoming state for the vertex before it. That is reverse mode of the whole path with a
// checkpoint per vertex: the same derivative as a whole-path tape, in O(path length) memory, with
// no second BVH traversal and no division by a BSDF value (a zero BSDF value is harmless).
#include <array>
#include <span>
#include <vector>

#include "ad/var.h"
#include "renderer/sensors/camera.h"
#include "renderer/integrators/radiance.h"

namespace dray {

// A pixel's paths as its float pass recorded them, sample by sample from sample 0. Recording
// stops at max_vertices (the per-thread memory bound); the samples after that are traced again
// at replay.
struct RecordedPaths {
  struct Sample {
    FilmSample film;         // the camera ray's film point (and lens point)
    uint32_t first, count;   // its vertices
  };
  std::vector<VertexRecord> vertices;
  std::vector<Sample> samples;
  std::vector<FlightStep> flights;         // the samples' tracked flights (renderer/media/flight_log.h)
  size_t max_vertices = size_t(1) << 14;
  size_t max_flight_steps = size_t(1) << 18;  // 3 MB
  bool open = true;                        // still recording

  void clear() {
    vertices.clear();
    samples.clear();
    flights.clear();
    open = true;
  }
  // Where the next sample's vertices go, or nullptr once a bound is reached.
  std::vector<VertexRecord>* begin_sample(const FilmSample& film) {
    if (!open || vertices.size() >= max_vertices || flights.size() >= max_flight_steps) {
      open = false;
      return nullptr;
    }
    samples.push_back({film, uint32_t(vertices.size()), 0});
    return &vertices;
  }
  void end_sample() { samples.back().count = uint32_t(vertices.size()) - samples.back().first; }
  std::span<const VertexRecord> path(size_t s) const { return {vertices.data() + samples[s].first, samples[s].count}; }
};

// The state a vertex receives, as tape inputs: throughput (3), ray origin (3) and direction (3),
// turn (1), previous point (3) and normal (3).
inline constexpr int kCarriedState = 16;

struct ReplaySetup {
  int carry_first = 0;     // gradient index of the first state input (past parameters and lifted ones)
  bool rays_move = false;  // whether rays, points and normals carry derivatives (camera, geometry or IOR)
  bool geometry = false;   // whether the pass seeds geometry (two_types.h): else it is replayed in float
  const Camera* camera = nullptr;  // the shot's camera: its ray's derivative at the first vertex
};

namespace detail {

// The recorded float state as tape inputs (constants where they carry no derivative): G the
// geometry type of the replay, float when the pass seeds no geometry (the throughput alone is an
// input). At the camera vertex (`first`) the throughput is a constant: no vertex before it takes
// its adjoint (only the camera ray's, below).
template <class G>
PathState<G, ad::Var> lift_state(const PathState<float>& f, const ReplaySetup& rs, bool first) {
  auto in = [&](float v, int k) { return ad::Var::carried(v, rs.carry_first + k); };
  auto vec = [&](const Vec3<float>& v, int k) { return Vec3<ad::Var>(in(v.x, k), in(v.y, k + 1), in(v.z, k + 2)); };
  PathState<G, ad::Var> state;
  state.beta = first ? Vec3<ad::Var>(f.beta) : vec(f.beta, 0);
  if constexpr (std::is_same_v<G, float>) {
    state.ray = f.ray;
    state.turn = f.turn;
    state.prev_p = f.prev_p;
    state.prev_n = f.prev_n;
  } else if (rs.rays_move) {
    state.ray = {vec(f.ray.o, 3), vec(f.ray.d, 6)};
    state.turn = in(f.turn, 9);
    state.prev_p = vec(f.prev_p, 10);
    state.prev_n = vec(f.prev_n, 13);
  } else {
    state.ray = {Vec3<ad::Var>(f.ray.o), Vec3<ad::Var>(f.ray.d)};
    state.turn = f.turn;
    state.prev_p = Vec3<ad::Var>(f.prev_p);
    state.prev_n = Vec3<ad::Var>(f.prev_n);
  }
  state.specular = f.specular;
  state.bsdf_pdf = f.bsdf_pdf;
  state.depth = f.depth;
  state.hide_emission = f.hide_emission;
  state.medium = f.medium;
  state.prev_medium = f.prev_medium;
  return state;
}

// Seeds the outgoing state's statements with the adjoints of the next vertex's inputs.
inline void seed_state(ad::Tape& tape, const PathState<float, ad::Var>& state, const std::array<float, kCarriedState>& a) {
  for (int k = 0; k < 3; ++k)
    if (a[size_t(k)] != 0.f) tape.seed(state.beta[k].i, a[size_t(k)]);
}
inline void seed_state(ad::Tape& tape, const PathState<ad::Var>& state, const std::array<float, kCarriedState>& a) {
  const ad::Var* v[kCarriedState] = {&state.beta.x,   &state.beta.y,   &state.beta.z,   &state.ray.o.x,  &state.ray.o.y,  &state.ray.o.z,
                                     &state.ray.d.x,  &state.ray.d.y,  &state.ray.d.z,  &state.turn,     &state.prev_p.x, &state.prev_p.y,
                                     &state.prev_p.z, &state.prev_n.x, &state.prev_n.y, &state.prev_n.z};
  for (int k = 0; k < kCarriedState; ++k)
    if (a[size_t(k)] != 0.f) tape.seed(v[k]->i, a[size_t(k)]);
}

}  // namespace detail

// Replays one recorded path (`path`, whose camera ray went through film sample `film`; its flights
// in `flights`, the recording's flight log) with
// d loss / d sample radiance `dL`: hands sink(gradient index, adjoint) every parameter's and
// lifted entry's adjoint. Returns false when an adjoint was not finite (what was handed before
// is then the caller's to drop). G is the geometry type: ad::Var when rs.geometry, else float.
template <class G, class Sink>
bool replay_path(const Scene& scene, const ParamView<ad::Var>& P, const ReplaySetup& rs, std::span<const VertexRecord> path,
                 std::span<const FlightStep> flights, const FilmSample& film, const glm::vec3& dL, Sink&& sink) {
  ad::Tape& tape = ad::Tape::local();
  const ReplayFlights replay(flights);
  std::array<float, kCarriedState> carry{};  // adjoint of the next vertex's incoming state
  bool ok = true;
  auto sweep = [&](std::array<float, kCarriedState>& into) {
    into.fill(0.f);
    ok = tape.backward_to([&](int g, float adj) {
      if (g >= rs.carry_first) into[size_t(g - rs.carry_first)] += adj;
      else sink(g, adj);
    }) && ok;
  };
  for (size_t i = path.size(); ok && i-- > 0;) {
    tape.clear();
    PathState<G, ad::Var> state = detail::lift_state<G>(path[i].state, rs, i == 0);
    replay.seek(path[i].flight_at);
    Sampler sampler = path[i].sampler;
    VertexEvents events = path[i].events;
    path_vertex(scene, P, state, sampler, events, true);
    tape.begin_adjoints();
    for (int c = 0; c < 3; ++c) tape.seed(state.L[c].i, dL[c]);
    detail::seed_state(tape, state, carry);
    sweep(carry);
  }
  // The camera ray: the first vertex's incoming ray, when the camera is being differentiated.
  if constexpr (std::is_same_v<G, float>) {
    tape.clear();
    return ok;
  }
  if (ok && rs.rays_move && P.lifted(rs.camera->origin)) {
    tape.clear();
    const RayT<ad::Var> ray = camera_ray(camera_frame(*rs.camera, P), film);
    tape.begin_adjoints();
    for (int c = 0; c < 3; ++c) {
      tape.seed(ray.o[c].i, carry[size_t(3 + c)]);
      tape.seed(ray.d[c].i, carry[size_t(6 + c)]);
    }
    sweep(carry);
  }
  tape.clear();
  return ok;
}

}  // namespace dray
