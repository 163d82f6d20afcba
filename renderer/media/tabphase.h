#pragma once
// Mitsuba 3's `tabphase` (src/phase/tabphase.cpp): a phase function tabulated over the cosine of
// the scattering angle, `values` at N ≥ 2 points spaced evenly from −1 (back) to 1 (forward),
// linear between them and normalized: p(cos θ) = v(cos θ) / (2π ∫v). The values are a parameter
// block media.NAME.phase.values (the normalization follows them); sampled by inverting the
// piecewise-linear cdf in the cosine, as Mitsuba's ContinuousDistribution.
#include <cmath>
#include <string_view>
#include <vector>

#include "renderer/core/load_error.h"
#include "renderer/media/phase_props.h"

namespace dray {

struct TabPhase {
  static constexpr std::string_view kPlugins[] = {"tabphase"};
  static TabPhase read(PhaseProps& p) {
    p.keys({"values"}, {"values"});
    const std::vector<float> v = p.numbers("values");
    if (v.size() < 2) p.fail("values", "needs at least 2 values (from cos θ = -1 to 1), got " + std::to_string(v.size()));
    double sum = 0.0;
    for (float x : v) {
      if (!(x >= 0.f)) p.fail("values", "must not be negative, got " + fmt_number(x));
      sum += x;
    }
    if (!(sum > 0.0)) p.fail("values", "must not all be 0");
    return {p.block("values", v, {uint32_t(v.size())}, Domain::at_least(0)), uint32_t(v.size())};
  }

  Slot values = kNoSlot;
  uint32_t count = 0;

  // ∫v over [−1, 1] (trapezoids of width 2 / (N − 1)).
  template <class T>
  T integral(const ParamView<T>& P) const {
    T sum = T(0.f);
    for (uint32_t i = 0; i + 1 < count; ++i) sum = sum + (P.scalar(values + Slot(i)) + P.scalar(values + Slot(i + 1)));
    return sum * T(1.f / float(count - 1));
  }

  template <class T>
  T eval(const ParamView<T>& P, const T& cos_s) const {
    const float x = (std::fmin(std::fmax(value(cos_s), -1.f), 1.f) + 1.f) * 0.5f * float(count - 1);
    const uint32_t i = std::min(uint32_t(x), count - 2);
    const T t = (cos_s + T(1.f)) * T(0.5f * float(count - 1)) - T(float(i));
    const T v = P.scalar(values + Slot(i)) * (T(1.f) - t) + P.scalar(values + Slot(i + 1)) * t;
    return v / (integral(P) * T(float(2.0 * M_PI)));
  }

  float sample_cos(const ParamView<float>& P, float u) const {
    const float width = 2.f / float(count - 1);
    float target = u * integral(P) / width;  // in units of the width
    uint32_t i = 0;
    for (; i + 2 < count; ++i) {
      const float cell = 0.5f * (P.scalar(values + Slot(i)) + P.scalar(values + Slot(i + 1)));
      if (target < cell) break;
      target -= cell;
    }
    // Within cell i the density runs linearly from v0 to v1: v0 t + (v1 − v0) t² / 2 = target.
    const float v0 = P.scalar(values + Slot(i)), v1 = P.scalar(values + Slot(i + 1));
    const float disc = std::sqrt(std::fmax(v0 * v0 + 2.f * (v1 - v0) * target, 0.f));
    const float t = v0 + disc > 0.f ? 2.f * target / (v0 + disc) : 0.f;
    return -1.f + width * (float(i) + std::fmin(std::fmax(t, 0.f), 1.f));
  }
};

}  // namespace dray
