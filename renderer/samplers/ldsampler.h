#pragma once
// Mitsuba's `ldsampler`: a scrambled (0, 2)-sequence (Kollig and Keller 2002), the van der Corput
// and Sobol radical inverses of the sample index. Each dimension (or pair) permutes the pixel's
// count indices (a power of two), so that dimensions are not correlated, and xor-scrambles the
// digits with the pixel's own bits. No jitter: the scramble randomizes the points.
#include <string_view>

#include <glm/vec2.hpp>

#include "renderer/samplers/permutation.h"

namespace dray {

struct LowDiscrepancySampler {
  static constexpr std::string_view kPlugins[] = {"ldsampler"};

  // count = 4^k, the smallest whose square root's square holds spp, at least 4 (Mitsuba's).
  SampleLayout layout(uint32_t spp) const {
    uint32_t r = 2;
    while (r * r < spp) r *= 2;
    return {r * r, r, r};
  }
  float sample_1d(const SampleLayout& l, uint32_t index, uint32_t pixel_seed, uint32_t dimension, float) const {
    const uint32_t i = permute(index % l.count, l.count, hash32(pixel_seed, dimension));
    return radical_inverse_2(i, hash32(pixel_seed, 0x48bc48ebu));
  }
  glm::vec2 sample_2d(const SampleLayout& l, uint32_t index, uint32_t pixel_seed, uint32_t dimension, glm::vec2) const {
    const uint32_t i = permute(index % l.count, l.count, hash32(pixel_seed, dimension));
    return {radical_inverse_2(i, hash32(pixel_seed, 0x98bc51abu)), sobol_2(i, hash32(pixel_seed, 0x51ab98bcu))};
  }
};

}  // namespace dray
