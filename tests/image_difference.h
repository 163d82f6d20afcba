#pragma once
// Two renders of one scene built two ways (instanced or copied, written and read back): their
// mean absolute difference over the first's mean, a scale-free measure of how far apart they are.
#include <cmath>

#include "renderer/image/image.h"

namespace dray::testing {

// Σ |a - b| / Σ a over every value (a and b of one size); infinite where a sums to 0 (nothing lit).
inline double relative_difference(const Image& a, const Image& b) {
  double diff = 0, sum = 0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    diff += std::fabs(a.data[i] - b.data[i]);
    sum += a.data[i];
  }
  return sum > 0 ? diff / sum : INFINITY;
}

}  // namespace dray::testing
