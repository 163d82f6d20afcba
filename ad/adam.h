#pragma once
// Adam (Kingma and Ba 2015) as Mitsuba's drjit.opt.Adam, over one block of values held as flat
// arrays: the one Adam of dray. `dray optimize` steps each job block with it and Python's
// dray.ad.Adam each parameter (through the module's adam_step).
//
//   m ← β₁ m + (1 − β₁) g,  v ← β₂ v + (1 − β₂) g²,
//   step = √(1 − β₂ᵗ) / (1 − β₁ᵗ) · m / (√v + ε)          (the value moves by −lr · step)
//
// `uniform` is UniformAdam (Nicolet et al. 2021, Mitsuba's `Adam(uniform=True)`): v in the
// denominator is the block's largest second moment, so that every component moves at one rate
// and a preconditioned (large-steps) gradient keeps its smoothness.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

namespace dray::ad {

struct AdamSettings {
  double beta_1 = 0.9, beta_2 = 0.999, epsilon = 1e-8;
  bool uniform = false;
  // Components whose gradient is exactly 0 keep their moments and do not move (Mitsuba's
  // mask_updates).
  bool mask_updates = false;
};

// Advances the moments of a block by its gradient at step t (from 1) and writes each
// component's unit-rate step (above) into `step`. A non-finite gradient component (and, with
// mask_updates, a zero one) keeps its moments and gets step 0. `step` may be `gradient` itself
// (each component is read before its step is written).
inline void adam_step(std::span<const double> gradient, std::span<double> m, std::span<double> v, long t,
                      const AdamSettings& settings, std::span<double> step) {
  const size_t n = gradient.size();
  auto moves = [&](size_t k) { return std::isfinite(gradient[k]) && !(settings.mask_updates && gradient[k] == 0.0); };
  for (size_t k = 0; k < n; ++k) {
    if (!moves(k)) continue;
    const double g = gradient[k];
    m[k] = settings.beta_1 * m[k] + (1 - settings.beta_1) * g;
    v[k] = settings.beta_2 * v[k] + (1 - settings.beta_2) * g * g;
  }
  const double scale = std::sqrt(1 - std::pow(settings.beta_2, double(t))) / (1 - std::pow(settings.beta_1, double(t)));
  const double largest = settings.uniform && n > 0 ? *std::max_element(v.begin(), v.begin() + long(n)) : 0.0;
  for (size_t k = 0; k < n; ++k)
    step[k] = moves(k) ? scale * m[k] / (std::sqrt(settings.uniform ? largest : v[k]) + settings.epsilon) : 0.0;
}

}  // namespace dray::ad
