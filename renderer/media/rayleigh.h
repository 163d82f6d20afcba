#pragma once
// Mitsuba 3's `rayleigh`: scattering by particles much smaller than the wavelength,
// 3 / 16π (1 + cos²θ); sampled by inverting its cdf in the cosine.
#include <cmath>
#include <string_view>

#include "renderer/media/phase_props.h"

namespace dray {

struct RayleighPhase {
  static constexpr std::string_view kPlugins[] = {"rayleigh"};
  static RayleighPhase read(PhaseProps& p) {
    p.keys({});
    return {};
  }

  template <class T>
  T eval(const ParamView<T>&, const T& cos_s) const {
    return T(float(3.0 / (16.0 * M_PI))) * (T(1.f) + cos_s * cos_s);
  }
  // The inverse of the cdf of 3/8 (1 + c²) on [−1, 1]: the real root of c³ + 3c = 4(2u − 1).
  float sample_cos(const ParamView<float>&, float u) const {
    const float z = 4.f * (2.f * u - 1.f), r = std::sqrt(z * z / 4.f + 1.f);
    return std::cbrt(z / 2.f + r) + std::cbrt(z / 2.f - r);
  }
};

}  // namespace dray
