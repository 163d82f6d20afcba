#pragma once
// The independent sampler: counter-based random numbers. A sample's values depend only on (seed,
// pixel, sample index, dimension), never on which rank or thread draws them (DESIGN.md invariant 3).
#include <cstdint>

namespace dray {

// A 64-bit integer finaliser (the SplitMix64 mixing function, Steele et al. 2014).
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class Sampler {
 public:
  Sampler(uint64_t seed, uint64_t pixel, uint64_t sample_index)
      : key_(mix64(mix64(mix64(seed) ^ pixel) ^ (sample_index * 0x9e3779b97f4a7c15ull))) {}

  // The next uniform float in [0, 1).
  float next() { return to_unit(mix64(key_ + 0x9e3779b97f4a7c15ull * ++dimension_)); }

  uint32_t dimension() const { return dimension_; }
  // Continues from a dimension reached before (path replay resumes a recorded flight's draws).
  void seek(uint32_t dimension) { dimension_ = dimension; }

  // The top 24 bits as a float in [0, 1): exactly representable, never 1.
  static float to_unit(uint64_t bits) { return float(bits >> 40) * 0x1p-24f; }

 private:
  uint64_t key_;
  uint32_t dimension_ = 0;
};

}  // namespace dray
