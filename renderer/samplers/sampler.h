#pragma once
// A sample's random numbers. A sample's values depend only on (seed, pixel, sample index,
// dimension), never on which rank or thread draws them (DESIGN.md invariant 3). The independent
// sampler is a counter-based hash of them; the scene's sampler plugin (Mitsuba's stratified,
// multijitter, orthogonal, ldsampler: samplers/sampler_plugin.h) lays a pixel's camera samples
// out over their strata, its jitter drawn from that same hash.
#include <cstdint>
#include <variant>

#include <glm/vec2.hpp>

#include "renderer/samplers/sampler_plugin.h"

namespace dray {

// A 64-bit integer finaliser (the SplitMix64 mixing function, Steele et al. 2014).
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The scene's sampler at a pass's spp: its plugin and its layout of a pixel's samples.
struct SamplePattern {
  SamplerPlugin plugin;
  SampleLayout layout;
  SamplePattern() = default;  // independent
  SamplePattern(const SamplerPlugin& p, int spp)
      : plugin(p), layout(std::visit([&](const auto& s) { return s.layout(uint32_t(spp)); }, p)) {}
  bool independent() const { return std::holds_alternative<IndependentSampler>(plugin); }
};

class Sampler {
 public:
  // The independent sampler (light paths, boundary samples and every stream but the camera's).
  Sampler(uint64_t seed, uint64_t pixel, uint64_t sample_index)
      : key_(mix64(mix64(mix64(seed) ^ pixel) ^ (sample_index * 0x9e3779b97f4a7c15ull))) {}
  // Camera sample `sample_index` of a pixel under the scene's sampler (held by value: a recorded
  // path's sampler outlives the pass); the independent plugin gives the constructor above's numbers.
  Sampler(const SamplePattern& pattern, uint64_t seed, uint64_t pixel, uint64_t sample_index) : Sampler(seed, pixel, sample_index) {
    if (pattern.independent()) return;
    pattern_ = pattern;
    index_ = uint32_t(sample_index % pattern.layout.count);
    pixel_seed_ = uint32_t(mix64(mix64(seed) ^ pixel) >> 32);
  }

  // The next uniform float in [0, 1) (Mitsuba's next_1d).
  float next() {
    const uint32_t d = ++dimension_;
    if (pattern_.independent()) return uniform(d);
    return std::visit([&](const auto& s) { return s.sample_1d(pattern_.layout, index_, pixel_seed_, d, uniform(d)); }, pattern_.plugin);
  }
  // The next two, stratified together (Mitsuba's next_2d): two dimensions, the values two next()
  // give under the independent sampler.
  glm::vec2 next_2d() {
    const uint32_t d = ++dimension_;
    ++dimension_;
    const glm::vec2 u(uniform(d), uniform(d + 1));
    if (pattern_.independent()) return u;
    return std::visit([&](const auto& s) { return s.sample_2d(pattern_.layout, index_, pixel_seed_, d, u); }, pattern_.plugin);
  }

  uint32_t dimension() const { return dimension_; }
  // Continues from a dimension reached before (path replay resumes a recorded flight's draws).
  void seek(uint32_t dimension) { dimension_ = dimension; }

  // The top 24 bits as a float in [0, 1): exactly representable, never 1.
  static float to_unit(uint64_t bits) { return float(bits >> 40) * 0x1p-24f; }

 private:
  float uniform(uint32_t d) const { return to_unit(mix64(key_ + 0x9e3779b97f4a7c15ull * d)); }

  uint64_t key_;
  uint32_t dimension_ = 0;
  SamplePattern pattern_;
  uint32_t index_ = 0, pixel_seed_ = 0;
};

}  // namespace dray
