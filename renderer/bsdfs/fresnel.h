#pragma once
// Fresnel reflectance of dielectric and conductor interfaces, in the kernel's scalar type, so that
// indices of refraction are differentiable.
#include "renderer/core/vec.h"

namespace dray {

// A dielectric interface with relative index eta = n_inside / n_outside, lit at cos_i (signed: > 0
// from outside, along the normal). Returns the unpolarised reflectance F and sets cos_t, the
// signed cosine of the refracted direction (< 0 when entering), and eta_ti = n_i / n_t of the
// crossing. Total internal reflection: F = 1, cos_t = 0.
template <class T>
T fresnel_dielectric(const T& cos_i, const T& eta, T& cos_t, T& eta_ti) {
  using ad::abs;
  using ad::sqrt;
  const bool outside = value(cos_i) >= 0.f;
  const T eta_it = outside ? eta : T(1.f) / eta;
  eta_ti = outside ? T(1.f) / eta : eta;
  const T ci = abs(cos_i);
  const T cos_t2 = T(1.f) - eta_ti * eta_ti * (T(1.f) - ci * ci);
  if (!(value(cos_t2) > 0.f)) {
    cos_t = T(0.f);
    return T(1.f);
  }
  const T ct = sqrt(cos_t2);
  const T rs = (ci - eta_it * ct) / (ci + eta_it * ct);
  const T rp = (eta_it * ci - ct) / (eta_it * ci + ct);
  cos_t = outside ? -ct : ct;
  return T(0.5f) * (rs * rs + rp * rp);
}

template <class T>
T fresnel_dielectric(const T& cos_i, const T& eta) {
  T cos_t, eta_ti;
  return fresnel_dielectric(cos_i, eta, cos_t, eta_ti);
}

// A conductor with complex index eta + i k (relative to the outside), lit at cos_i > 0: the
// unpolarised reflectance (the exact formula, as in pbrt's FrComplex and Mitsuba's
// fresnel_conductor). eta = 0, k = 1 gives 1 at every angle (Mitsuba's "none": a perfect mirror).
template <class T>
T fresnel_conductor(const T& cos_i, const T& eta, const T& k) {
  using ad::sqrt;
  const T c2 = cos_i * cos_i, s2 = T(1.f) - c2, s4 = s2 * s2;
  const T t1 = eta * eta - k * k - s2;
  const T a2pb2 = sqrt(t1 * t1 + T(4.f) * k * k * eta * eta);
  const T a2 = T(0.5f) * (a2pb2 + t1);
  // a = 0 (eta = 0): sqrt has no derivative there; a's is taken as 0.
  const T a = value(a2) > 0.f ? sqrt(a2) : T(0.f);
  const T term1 = a2pb2 + c2, term2 = T(2.f) * a * cos_i;
  const T rs = (term1 - term2) / (term1 + term2);
  const T term3 = a2pb2 * c2 + s4, term4 = term2 * s2;
  const T rp = rs * (term3 - term4) / (term3 + term4);
  return T(0.5f) * (rs + rp);
}

// The hemispherical average of the dielectric reflectance, 2 ∫ F(μ) μ dμ, for relative index eta:
// the fits that Mitsuba 3 uses (Egan and Hilgeman 1973 below 1; d'Eon and Irving 2011 above,
// max. relative error 0.2% up to 10).
template <class T>
T fresnel_diffuse_reflectance(const T& eta) {
  if (value(eta) < 1.f) return T(-1.4399f) * eta * eta + T(0.7099f) * eta + T(0.6681f) + T(0.0636f) / eta;
  const T x = T(1.f) / eta;
  return T(0.919317f) + x * (T(-3.4793f) + x * (T(6.75335f) + x * (T(-7.80989f) + x * (T(4.98554f) + x * T(-1.36881f)))));
}

}  // namespace dray
