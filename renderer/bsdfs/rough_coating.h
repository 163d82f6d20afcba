#pragma once
// The rough dielectric coating of Mitsuba 3's `roughplastic` (src/bsdfs/roughplastic.cpp,
// parameters_changed; include/mitsuba/render/microfacet.h eval_transmittance/eval_reflectance):
//   t(μ)  the coating's external transmittance for light arriving at cos θ = μ: the mean over
//         visible normals m of (1 − F(wi·m, η)) G1(wt, m), wt the refracted direction; tabulated
//         at μ = i / 63 (i = 0..63, μ at least 1e-6) and interpolated linearly, as Mitsuba does;
//   R_i   its internal reflectance, 2 · mean over the same μ of μ · (the mean over visible normals
//         of F(wi·m, 1/η) G1(wr, m), wr reflected): what the diffuse base's light meets inside.
// The means over visible normals are Gauss–Legendre quadratures of the visible-normal sampler
// over [0, 1]² (32² nodes outside, 64² inside, where total internal reflection cuts the
// integrand; Mitsuba takes 32² and 128²). α and η are parameters: the table keeps its
// derivatives (central differences of the same quadratures, computed the first time a derivative
// pass reads them), and the kernel reads it linearised about the values it was built for, so that
// α and η carry derivatives through t and R_i.
#include <array>
#include <memory>
#include <mutex>
#include <type_traits>

#include "renderer/bsdfs/microfacet.h"

namespace dray {

struct CoatingTable {
  static constexpr int kRes = 64;
  MicrofacetType type = MicrofacetType::beckmann;
  float alpha = 0.f, eta = 0.f;  // the values the table was built for
  std::array<float, kRes> t{};
  float ri = 0.f;

  // t(cos θ), cos θ in [0, 1], as Mitsuba's lerp_gather; T carries cos θ's, α's and η's derivatives.
  template <class T>
  T transmittance(const T& cos_theta, const T& a, const T& e) const {
    const T x = cos_theta * T(float(kRes - 1));
    const int i = value(x) > 0.f ? int(std::min(value(x), float(kRes - 2))) : 0;  // NaN: 0
    const T f = x - T(float(i));
    const T v = T(t[i]) + (T(t[i + 1]) - T(t[i])) * f;
    if constexpr (std::is_same_v<T, float>) return v;
    else {
      const Derivatives& d = derivatives();
      const float da = d.dt_dalpha[i] + (d.dt_dalpha[i + 1] - d.dt_dalpha[i]) * value(f);
      const float de = d.dt_deta[i] + (d.dt_deta[i + 1] - d.dt_deta[i]) * value(f);
      return v + (a - T(alpha)) * T(da) + (e - T(eta)) * T(de);
    }
  }
  template <class T>
  T internal_reflectance(const T& a, const T& e) const {
    if constexpr (std::is_same_v<T, float>) return T(ri);
    else {
      const Derivatives& d = derivatives();
      return T(ri) + (a - T(alpha)) * T(d.dri_dalpha) + (e - T(eta)) * T(d.dri_deta);
    }
  }

  struct Derivatives {
    std::array<float, kRes> dt_dalpha{}, dt_deta{};
    float dri_dalpha = 0.f, dri_deta = 0.f;
  };
  // Built once, by the first thread that asks (the others wait).
  const Derivatives& derivatives() const {
    std::call_once(derivatives_once_, [this] { derivatives_ = compute_derivatives(); });
    return derivatives_;
  }

 private:
  Derivatives compute_derivatives() const;
  mutable std::once_flag derivatives_once_;
  mutable Derivatives derivatives_;
};

// The table for (type, α, η), from a cache shared by all scenes (thread-safe); built in parallel.
std::shared_ptr<const CoatingTable> coating_table(MicrofacetType type, float alpha, float eta);

}  // namespace dray
