#pragma once
// The state a path carries between the vertices of the kernel (renderer/integrators/integrator.h)
// and the outcomes of a vertex that path replay reads back.
#include <glm/vec3.hpp>

#include "renderer/accel/bvh.h"
#include "renderer/core/frame.h"
#include "renderer/core/ray.h"
#include "renderer/integrators/light_sample.h"

namespace dray {

namespace detail {

// Paths past three bounces continue with this probability (Russian roulette).
inline constexpr float kRouletteSurvival = 0.8f;

inline float power_heuristic(float a, float b) { return a * a / (a * a + b * b); }

// The weights of the two strategies, either of which Mitsuba's direct integrator may turn off
// (emitter_samples, bsdf_samples 0): a light sample's, and a BSDF-sampled ray's hit on an emitter
// (0 with BSDF sampling off; 1 where it alone is on). Both on: the power heuristic.
inline float light_mis(int bsdf_samples, float light_pdf, float bsdf_pdf) {
  return bsdf_samples == 0 || !(light_pdf > 0.f) ? 1.f : power_heuristic(light_pdf, bsdf_pdf);
}
inline float bsdf_mis(int emitter_samples, float bsdf_pdf, float light_pdf) {
  return emitter_samples == 0 ? 1.f : power_heuristic(bsdf_pdf, light_pdf);
}

}  // namespace detail

// What a path carries from one vertex to the next: the ray, the radiance gathered, the
// throughput, and the MIS state of the previous bounce: the ray and vertices in the geometry type
// G, the radiance and throughput in the shading type S.
template <class G, class S = G>
struct PathState {
  RayT<G> ray;
  Vec3<S> L{S(0.f)}, beta{S(1.f)};
  // The previous BSDF sample's d cos / cos (value 1), not yet in beta: its direction is fixed,
  // but a light it reaches is differentiated at a fixed point on the light (see area_turn).
  G turn{1.f};
  Vec3<G> prev_p, prev_n;  // the previous vertex and its shading normal
  bool specular = true;    // the previous bounce was a Dirac (or the camera): no MIS
  float bsdf_pdf = 0.f;    // solid-angle pdf of the previous BSDF sample
  int depth = 0;
  // The next vertex adds no emission (the boundary term's paths, where another term counts it).
  bool hide_emission = false;
  int medium = -1;            // the medium the ray travels in (volpath), or -1
  bool prev_medium = false;   // the previous vertex scattered in a medium (prev_n: its direction)
};

// A vertex's outcomes that cost a traversal: what the ray hit (or that it missed) and the
// transmittance of the next-event shadow ray. The float pass finds them; path replay
// (renderer/integrators/prb.h) reads them back instead of tracing again.
struct VertexEvents {
  bool hit = false;
  Hit h;
  float passed = 0.f;  // next-event shadow ray: the transmittance found in float
  bool masked = false; // whether that shadow ray crossed a mask (else its transmittance is a constant)
  // What the float pass drew, for replay to read instead of drawing again: the BSDF sample, the
  // next-event light sample (read where geometry is float and the light not differentiated) and
  // its MIS weight. Draws depend on values only, which a replay reproduces bit for bit.
  BsdfSample bsdf;
  LightSample<float> light;
  float light_mis = 1.f;
  glm::vec3 env{0.f};  // a miss: the environment's radiance along the ray, and its MIS weight
  float env_mis = 1.f;
};

}  // namespace dray
