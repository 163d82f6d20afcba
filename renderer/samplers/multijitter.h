#pragma once
// Mitsuba's `multijitter` sampler: correlated multi-jittered sampling (Kensler 2013). In 2-D the
// samples are stratified on an rx x ry grid and, within it, on the rx·ry columns and rows (each
// projection onto an axis stratified too); in 1-D as `stratified`. `jitter` (default true) moves a
// sample inside its cell.
#include <string_view>

#include <glm/vec2.hpp>

#include "renderer/samplers/permutation.h"
#include "renderer/samplers/stratified.h"

namespace dray {

struct MultijitterSampler {
  static constexpr std::string_view kPlugins[] = {"multijitter"};
  bool jitter = true;

  // ry = ⌊√spp⌋ rows of rx = ⌈spp / ry⌉ (Mitsuba rounds spp up to rx·ry).
  SampleLayout layout(uint32_t spp) const {
    uint32_t ry = 1;
    while ((ry + 1) * (ry + 1) <= spp) ++ry;
    const uint32_t rx = (spp + ry - 1) / ry;
    return {rx * ry, rx, ry};
  }
  float sample_1d(const SampleLayout& l, uint32_t index, uint32_t pixel_seed, uint32_t dimension, float j) const {
    return stratum_1d(l, index, pixel_seed, dimension, jitter, j);
  }
  glm::vec2 sample_2d(const SampleLayout& l, uint32_t index, uint32_t pixel_seed, uint32_t dimension, glm::vec2 j) const {
    const uint32_t seed = hash32(pixel_seed, dimension);
    const uint32_t s = permute(index, l.count, seed);
    const uint32_t x = s % l.rx, y = s / l.rx;
    // The sub-cell within each column (row): a permutation per column (row) of the other axis.
    const uint32_t sx = permute(x, l.rx, hash32(seed, 1)), sy = permute(y, l.ry, hash32(seed, 2));
    if (!jitter) j = glm::vec2(0.5f);
    return {(float(x) + (float(sy) + j.x) / float(l.ry)) / float(l.rx), (float(y) + (float(sx) + j.y) / float(l.rx)) / float(l.ry)};
  }
};

}  // namespace dray
