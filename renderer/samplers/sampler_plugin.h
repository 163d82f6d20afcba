#pragma once
// The sampler plugins (Mitsuba's sampler kind), a closed set (core/registry.h): each lays out a
// pixel's samples (layout(spp): Mitsuba's sample count, rounded up as Mitsuba rounds it) and maps
// a sample index and dimension to its numbers (sample_1d, sample_2d), given the pixel's seed and
// the independent numbers it may jitter with. Adding one touches its file, this list and its test.
#include <cstdint>
#include <string_view>
#include <variant>

#include <glm/vec2.hpp>

#include "renderer/samplers/ldsampler.h"
#include "renderer/samplers/multijitter.h"
#include "renderer/samplers/orthogonal.h"
#include "renderer/samplers/permutation.h"
#include "renderer/samplers/stratified.h"

namespace dray {

// Mitsuba's `independent`: every number its own (samplers/sampler.h draws them without a plugin).
struct IndependentSampler {
  static constexpr std::string_view kPlugins[] = {"independent"};
  SampleLayout layout(uint32_t spp) const { return {spp, 1, 1}; }
  float sample_1d(const SampleLayout&, uint32_t, uint32_t, uint32_t, float u) const { return u; }
  glm::vec2 sample_2d(const SampleLayout&, uint32_t, uint32_t, uint32_t, glm::vec2 u) const { return u; }
};

using SamplerPlugin = std::variant<IndependentSampler, StratifiedSampler, MultijitterSampler, OrthogonalSampler, LowDiscrepancySampler>;

}  // namespace dray
