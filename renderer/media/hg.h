#pragma once
// Mitsuba 3's `hg`: Henyey–Greenstein, asymmetry `g` in (−1, 1) (Mitsuba's default 0.8; g > 0
// scatters forward), a parameter media.NAME.phase.g; sampled by inverting its cdf in the cosine.
#include <cmath>
#include <string_view>

#include "renderer/core/load_error.h"
#include "renderer/media/phase_props.h"

namespace dray {

struct HgPhase {
  static constexpr std::string_view kPlugins[] = {"hg"};
  static HgPhase read(PhaseProps& p) {
    p.keys({"g"});
    const float g = p.has("g") ? float(p.number("g")) : 0.8f;
    if (!(g > -1.f && g < 1.f)) p.fail("g", "must be in (-1, 1), got " + fmt_number(g));
    return {p.param("g", g, Domain::open(-1, 1))};
  }

  Slot g = kNoSlot;

  template <class T>
  T eval(const ParamView<T>& P, const T& cos_s) const {
    const T g = P.scalar(this->g);
    const T denom = T(1.f) + g * g - T(2.f) * g * cos_s;
    return T(float(0.25 / M_PI)) * (T(1.f) - g * g) / (denom * sqrt(denom));
  }
  float sample_cos(const ParamView<float>& P, float u) const {
    const float g = P.scalar(this->g);
    if (!(std::fabs(g) > 1e-3f)) return 1.f - 2.f * u;
    const float s = (1.f - g * g) / (1.f - g + 2.f * g * u);
    return (1.f + g * g - s * s) / (2.f * g);
  }
};

}  // namespace dray
