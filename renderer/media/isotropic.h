#pragma once
// Mitsuba 3's `isotropic` phase function: 1 / 4π in every direction.
#include <string_view>

#include "renderer/media/phase_props.h"

namespace dray {

struct IsotropicPhase {
  static constexpr std::string_view kPlugins[] = {"isotropic"};
  static IsotropicPhase read(PhaseProps& p) {
    p.keys({});
    return {};
  }

  template <class T>
  T eval(const ParamView<T>&, const T&) const {
    return T(float(0.25 / M_PI));
  }
  float sample_cos(const ParamView<float>&, float u) const { return 1.f - 2.f * u; }
};

}  // namespace dray
