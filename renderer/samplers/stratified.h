#pragma once
// Mitsuba's `stratified` sampler: a pixel's samples split into count strata per dimension (1-D) or
// a square grid of them (2-D), each sample index sent to its own stratum by a permutation that
// changes with the dimension, jittered inside it (`jitter`, default true) or at its centre.
#include <string_view>

#include <glm/vec2.hpp>

#include "renderer/samplers/permutation.h"

namespace dray {

// Sample `index`'s number in `dimension`: its own one of count strata (the strata permuted per
// dimension), jittered by j or at the stratum's centre.
inline float stratum_1d(const SampleLayout& l, uint32_t index, uint32_t pixel_seed, uint32_t dimension, bool jitter, float j) {
  const uint32_t p = permute(index, l.count, hash32(pixel_seed, dimension));
  return (float(p) + (jitter ? j : 0.5f)) / float(l.count);
}

struct StratifiedSampler {
  static constexpr std::string_view kPlugins[] = {"stratified"};
  bool jitter = true;

  // A square count: the side the smallest whose square holds spp (Mitsuba rounds spp up so).
  SampleLayout layout(uint32_t spp) const {
    uint32_t r = 1;
    while (r * r < spp) ++r;
    return {r * r, r, r};
  }
  float sample_1d(const SampleLayout& l, uint32_t index, uint32_t pixel_seed, uint32_t dimension, float j) const {
    return stratum_1d(l, index, pixel_seed, dimension, jitter, j);
  }
  glm::vec2 sample_2d(const SampleLayout& l, uint32_t index, uint32_t pixel_seed, uint32_t dimension, glm::vec2 j) const {
    const uint32_t p = permute(index, l.count, hash32(pixel_seed, dimension));
    if (!jitter) j = glm::vec2(0.5f);
    return (glm::vec2(float(p % l.rx), float(p / l.rx)) + j) / float(l.rx);
  }
};

}  // namespace dray
