#pragma once
// Forward-mode automatic differentiation: Dual<N> carries a value and N tangents (directional
// derivatives with respect to N seeded inputs), all propagated by every operation. Each
// operation's derivative rule is written beside it: for y = f(a, b),
//   dy = (df/da) da + (df/db) db,  applied to every tangent component.
// The value part of every operation is the same float operation as in the plain-float kernel,
// so a Dual pass reproduces the float image bit for bit.
#include <array>
#include <cmath>

#include "ad/scalar.h"

namespace dray::ad {

template <int N>
struct Dual {
  static_assert(N >= 1);
  float v = 0.f;
  std::array<float, N> d{};  // tangents

  Dual() = default;
  Dual(float value) : v(value) {}  // a constant: zero tangents  // NOLINT(implicit)
  Dual(float value, int seed_index) : v(value) { if (seed_index >= 0 && seed_index < N) d[seed_index] = 1.f; }

  // d(-a) = -da
  friend Dual operator-(const Dual& a) {
    Dual r(-a.v);
    for (int i = 0; i < N; ++i) r.d[i] = -a.d[i];
    return r;
  }
  // d(a + b) = da + db
  friend Dual operator+(const Dual& a, const Dual& b) {
    Dual r(a.v + b.v);
    for (int i = 0; i < N; ++i) r.d[i] = a.d[i] + b.d[i];
    return r;
  }
  // d(a - b) = da - db
  friend Dual operator-(const Dual& a, const Dual& b) {
    Dual r(a.v - b.v);
    for (int i = 0; i < N; ++i) r.d[i] = a.d[i] - b.d[i];
    return r;
  }
  // d(a b) = b da + a db
  friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r(a.v * b.v);
    for (int i = 0; i < N; ++i) r.d[i] = b.v * a.d[i] + a.v * b.d[i];
    return r;
  }
  // d(a / b) = (da - (a / b) db) / b
  friend Dual operator/(const Dual& a, const Dual& b) {
    Dual r(a.v / b.v);
    const float inv = 1.f / b.v;
    for (int i = 0; i < N; ++i) r.d[i] = (a.d[i] - r.v * b.d[i]) * inv;
    return r;
  }
  Dual& operator+=(const Dual& b) { return *this = *this + b; }
  Dual& operator-=(const Dual& b) { return *this = *this - b; }
  Dual& operator*=(const Dual& b) { return *this = *this * b; }
  Dual& operator/=(const Dual& b) { return *this = *this / b; }
};

template <int N> struct is_differentiable<Dual<N>> : std::true_type {};

template <int N> float value(const Dual<N>& a) { return a.v; }
template <int N> bool is_constant(const Dual<N>& a) {
  for (int k = 0; k < N; ++k)
    if (a.d[k] != 0.f) return false;
  return true;
}
template <int N> Dual<N> detach(const Dual<N>& a) { return Dual<N>(a.v); }

// Applies y = f(a) with f'(a) = slope: dy = slope da.
template <int N>
Dual<N> chain(const Dual<N>& a, float y, float slope) {
  Dual<N> r(y);
  for (int i = 0; i < N; ++i) r.d[i] = slope * a.d[i];
  return r;
}

// d sqrt(a) = da / (2 sqrt(a))
template <int N> Dual<N> sqrt(const Dual<N>& a) {
  float y = std::sqrt(a.v);
  return chain(a, y, y > 0.f ? 0.5f / y : 0.f);  // the derivative at 0 is taken as 0, not inf
}
// d sin(a) = cos(a) da
template <int N> Dual<N> sin(const Dual<N>& a) { return chain(a, std::sin(a.v), std::cos(a.v)); }
// d cos(a) = -sin(a) da
template <int N> Dual<N> cos(const Dual<N>& a) { return chain(a, std::cos(a.v), -std::sin(a.v)); }
// d acos(a) = -da / sqrt(1 - a^2) (at |a| = 1 taken as 0, not inf)
template <int N> Dual<N> acos(const Dual<N>& a) {
  const float s = 1.f - a.v * a.v;
  return chain(a, std::acos(a.v), s > 0.f ? -1.f / std::sqrt(s) : 0.f);
}
// d tan(a) = (1 + tan^2(a)) da
template <int N> Dual<N> tan(const Dual<N>& a) {
  float y = std::tan(a.v);
  return chain(a, y, 1.f + y * y);
}
// d exp(a) = exp(a) da
template <int N> Dual<N> exp(const Dual<N>& a) {
  float y = std::exp(a.v);
  return chain(a, y, y);
}
// d log(a) = da / a
template <int N> Dual<N> log(const Dual<N>& a) { return chain(a, std::log(a.v), 1.f / a.v); }
// d erf(a) = 2/sqrt(pi) exp(-a^2) da
template <int N> Dual<N> erf(const Dual<N>& a) {
  return chain(a, std::erf(a.v), 1.12837917f * std::exp(-a.v * a.v));
}
// d |a| = sign(a) da (0 at 0)
template <int N> Dual<N> abs(const Dual<N>& a) {
  return chain(a, std::fabs(a.v), a.v > 0.f ? 1.f : (a.v < 0.f ? -1.f : 0.f));
}
// d(sum x_k w_k) = sum w_k dx_k, the weights constant.
template <int N> Dual<N> weighted_sum(const Dual<N> (&x)[4], const float (&w)[4]) {
  Dual<N> r(x[0].v * w[0] + x[1].v * w[1] + x[2].v * w[2] + x[3].v * w[3]);
  for (int i = 0; i < N; ++i) r.d[i] = x[0].d[i] * w[0] + x[1].d[i] * w[1] + x[2].d[i] * w[2] + x[3].d[i] * w[3];
  return r;
}
template <int N> Dual<N> add_product(const Dual<N>& acc, const Dual<N>& a, const Dual<N>& b, const Dual<N>& c, const Dual<N>& d) {
  return acc + a * b * c * d;
}
template <int N> Dual<N> scale_product(const Dual<N>& x, const Dual<N>& a, const Dual<N>& b, const Dual<N>& c) {
  return x * (a * b * c);
}
// min and max pick one argument by value, exactly as the float versions do (ties and NaN
// included); the derivative is that argument's.
template <int N> Dual<N> min(const Dual<N>& a, const Dual<N>& b) { return a.v < b.v ? a : b; }
template <int N> Dual<N> max(const Dual<N>& a, const Dual<N>& b) { return a.v > b.v ? a : b; }

// Tangent access for generic code: the number of tangents of T and the k-th.
template <class T> struct tangent_count : std::integral_constant<int, 0> {};
template <int N> struct tangent_count<Dual<N>> : std::integral_constant<int, N> {};
template <int N> float tangent(const Dual<N>& a, int k) { return a.d[k]; }

}  // namespace dray::ad
