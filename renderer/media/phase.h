#pragma once
// The phase-function interface: Mitsuba 3's src/phase as a closed set (one header each) in a
// std::variant, dispatched without virtual calls. Every phase function provides
//   eval(P, cos θ)      in T   its value at the cosine between the direction light travelled in
//                              and the one it leaves in (1: straight on);
//   sample_cos(P, u)    float  a cosine drawn with density 2π eval (each is sampled exactly: the
//                              sample's weight f / pdf is 1);
// and, for loading, kPlugins (Mitsuba's names) and static read(PhaseProps&) (media/phase_props.h).
// The variant's list below is the registry (core/registry.h): adding a phase function touches its
// header, this list and its test.
#include <algorithm>
#include <cmath>
#include <variant>

#include <glm/geometric.hpp>

#include "renderer/core/frame.h"
#include "renderer/core/param_table.h"
#include "renderer/media/hg.h"
#include "renderer/media/isotropic.h"
#include "renderer/media/rayleigh.h"
#include "renderer/media/tabphase.h"

namespace dray {

struct BlendPhase;
using Phase = std::variant<IsotropicPhase, HgPhase, RayleighPhase, TabPhase, BlendPhase>;

template <class T>
T phase_eval(const Phase& ph, const ParamView<T>& P, const T& cos_s);
inline float phase_sample_cos(const Phase& ph, const ParamView<float>& P, float u);

}  // namespace dray

#include "renderer/media/blendphase.h"

namespace dray {

template <class T>
T phase_eval(const Phase& ph, const ParamView<T>& P, const T& cos_s) {
  return std::visit([&](const auto& x) { return x.eval(P, cos_s); }, ph);
}

inline float phase_sample_cos(const Phase& ph, const ParamView<float>& P, float u) {
  return std::visit([&](const auto& x) { return x.sample_cos(P, u); }, ph);
}

struct PhaseSample {
  glm::vec3 d{0.f};  // world, unit
  float pdf = 0.f;   // solid angle
};

// A direction about the travel direction d (unit), from uniforms u: the cosine from the phase
// function, the azimuth uniform.
inline PhaseSample phase_sample(const Phase& ph, const ParamView<float>& P, const glm::vec3& d, glm::vec2 u) {
  const float c = std::clamp(phase_sample_cos(ph, P, u.x), -1.f, 1.f);
  const float s = std::sqrt(std::max(0.f, 1.f - c * c)), phi = float(2.0 * M_PI) * u.y;
  const Frame<float> f{Vec3<float>(d)};
  const glm::vec3 w = to_glm(f.to_world(Vec3<float>(s * std::cos(phi), s * std::sin(phi), c)));
  return {glm::normalize(w), phase_eval(ph, P, c)};
}

}  // namespace dray
