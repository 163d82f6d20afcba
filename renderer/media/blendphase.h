#pragma once
// Mitsuba 3's `blendphase` (src/phase/blendphase.cpp): two phase functions mixed by `weight` in
// [0, 1] (default 0.5), (1 − w) p₀ + w p₁, a parameter media.NAME.phase.weight; the two's
// parameters named under phase_0 and phase_1 (Mitsuba's names). Sampling picks the second with
// probability w, as Mitsuba's; the mixture is then exact (each phase function is its own density).
// Included by phase.h, which declares the dispatch it calls.
#include <memory>
#include <string_view>

#include "renderer/core/load_error.h"
#include "renderer/media/phase_props.h"

namespace dray {

// A phase function nested in another (shared: it holds parameter slots only), so that the closed set may nest.
struct PhaseBox {
  std::shared_ptr<const Phase> p;
};

struct BlendPhase {
  static constexpr std::string_view kPlugins[] = {"blendphase"};
  static BlendPhase read(PhaseProps& p) {
    p.keys({"weight", "phase"}, {"phase"});
    if (p.count("phase") != 2) p.fail("phase", "must be an array of two phase functions (phase_0 and phase_1)");
    const float w = p.has("weight") ? float(p.number("weight")) : 0.5f;
    if (!(w >= 0.f && w <= 1.f)) p.fail("weight", "must be in [0, 1], got " + fmt_number(w));
    return {p.param("weight", w, Domain::closed(0, 1)), p.nested("phase", 0, "phase_0"), p.nested("phase", 1, "phase_1")};
  }

  Slot weight = kNoSlot;
  PhaseBox a, b;  // phase_0 (weight 0) and phase_1 (weight 1)

  template <class T>
  T eval(const ParamView<T>& P, const T& cos_s) const {
    const T w = P.scalar(weight);
    return phase_eval(*a.p, P, cos_s) * (T(1.f) - w) + phase_eval(*b.p, P, cos_s) * w;
  }
  float sample_cos(const ParamView<float>& P, float u) const {
    const float w = P.scalar(weight);
    if (u < w) return phase_sample_cos(*b.p, P, u / w);
    return phase_sample_cos(*a.p, P, (u - w) / (1.f - w));
  }
};

}  // namespace dray
