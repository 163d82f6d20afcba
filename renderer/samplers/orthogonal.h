#pragma once
// Mitsuba's `orthogonal` sampler: orthogonal-array Latin hypercube sampling (Jarosz et al. 2019)
// of strength 2 from Bose's construction: with count = p² samples (p prime), every dimension is
// stratified into p² strata and every pair of dimensions into p x p cells. One permutation of the
// sample index per pixel serves all dimensions (their joint stratification needs it); each
// dimension then permutes its strata and sub-strata, and `jitter` (default true) moves a sample
// inside its sub-stratum.
#include <string_view>

#include <glm/vec2.hpp>

#include "renderer/samplers/permutation.h"

namespace dray {

struct OrthogonalSampler {
  static constexpr std::string_view kPlugins[] = {"orthogonal"};
  bool jitter = true;

  // count = p² for the smallest prime p whose square holds spp (Mitsuba rounds spp up so).
  SampleLayout layout(uint32_t spp) const {
    auto prime = [](uint32_t x) {
      for (uint32_t d = 2; d * d <= x; ++d)
        if (x % d == 0) return false;
      return true;
    };
    uint32_t p = 2;
    while (p * p < spp || !prime(p)) ++p;
    return {p * p, p, p};
  }
  // Column `dimension` (from 1) of Bose's array, row `index`.
  float sample_1d(const SampleLayout& l, uint32_t index, uint32_t pixel_seed, uint32_t dimension, float j) const {
    const uint32_t p = l.rx, column = dimension - 1;
    const uint32_t i = permute(index % l.count, l.count, pixel_seed);
    const uint32_t a0 = i / p, a1 = i % p;
    // Bose: column 0 is a0, column 1 is a1, column c ≥ 2 is a0 + (c − 1)·a1 (mod p); the sub-stratum
    // is the column paired with this one (c ± 1), so that each pair of columns is a Latin square.
    auto entry = [&](uint32_t c) { return c == 0 ? a0 : c == 1 ? a1 : uint32_t((a0 + uint64_t(c - 1) * a1) % p); };
    const uint32_t partner = column % 2 ? column - 1 : column + 1;
    const uint32_t stratum = permute(entry(column), p, hash32(pixel_seed, 2 * dimension));
    const uint32_t sub = permute(entry(partner), p, hash32(pixel_seed, 2 * dimension + 1));
    return (float(stratum) + (float(sub) + (jitter ? j : 0.5f)) / float(p)) / float(p);
  }
  // Two consecutive columns: jointly stratified as any pair.
  glm::vec2 sample_2d(const SampleLayout& l, uint32_t index, uint32_t pixel_seed, uint32_t dimension, glm::vec2 j) const {
    return {sample_1d(l, index, pixel_seed, dimension, j.x), sample_1d(l, index, pixel_seed, dimension + 1, j.y)};
  }
};

}  // namespace dray
