#pragma once
// Reverse-mode automatic differentiation: a Var is a value and the index of the tape statement
// that computed it (-1 for a constant, which records nothing). Each operation records its
// partial derivatives on this thread's tape (ad/tape.h); the rule is written beside each.
// The value part of every operation is the same float operation as in the plain-float kernel.
#include <cmath>
#include <span>

#include "ad/scalar.h"
#include "ad/tape.h"

namespace dray::ad {

struct Var {
  float v = 0.f;
  int32_t i = -1;  // tape statement, or -1: a constant

  Var() = default;
  Var(float value) : v(value) {}  // a constant  // NOLINT(implicit)
  // An input of differentiation when seed_index >= 0 (its adjoint goes to gradient[seed_index]).
  Var(float value, int seed_index) : v(value) {
    if (seed_index >= 0) i = record_input(seed_index);
  }
  // The carried state of a replayed vertex: an input no other read of this tape names (not
  // looked up in the tape's memo of parameter reads).
  static Var carried(float value, int gradient_index) {
    Var r(value);
    r.i = record_carried(gradient_index);
    return r;
  }
  // A result with one or two arguments: recorded only when an argument is on the tape. The
  // test is inline and the recording out of line, so that arithmetic on constants (most of a
  // replayed vertex when only appearance is differentiated) costs about what float does.
  static Var make(float value, Tape::Arg a) {
    Var r(value);
    if (a.index >= 0) r.i = record(a);
    return r;
  }
  static Var make(float value, Tape::Arg a, Tape::Arg b) {
    Var r(value);
    if (a.index >= 0 || b.index >= 0) r.i = record(a, b);
    return r;
  }

  // A result with n arguments in one statement (a dot product, a cross product's component).
  template <int N>
  static Var make_n(float value, const Tape::Arg (&a)[N]) {
    Var r(value);
    for (int k = 0; k < N; ++k)
      if (a[k].index >= 0) {
        r.i = record_n(a, N);
        break;
      }
    return r;
  }

  // A result with any number of arguments in one statement (recorded when one is on the tape).
  static Var make_dynamic(float value, std::span<const Tape::Arg> a) {
    Var r(value);
    for (const Tape::Arg& x : a)
      if (x.index >= 0) {
        r.i = record_n(a.data(), int(a.size()));
        break;
      }
    return r;
  }

  [[gnu::noinline]] static int32_t record(Tape::Arg a) { return Tape::local().record(a); }
  [[gnu::noinline]] static int32_t record(Tape::Arg a, Tape::Arg b) { return Tape::local().record(a, b); }
  [[gnu::noinline]] static int32_t record_n(const Tape::Arg* a, int n) { return Tape::local().record_n(a, n); }
  [[gnu::noinline]] static int32_t record_input(int gradient_index) { return Tape::local().input(gradient_index); }
  [[gnu::noinline]] static int32_t record_carried(int gradient_index) { return Tape::local().fresh_input(gradient_index); }
  // Three parameters read at once (a colour): one look-up of the thread's tape.
  [[gnu::noinline]] static void record_inputs3(const int (&seed)[3], int32_t (&out)[3]) {
    Tape& tape = Tape::local();
    for (int k = 0; k < 3; ++k) out[k] = seed[k] >= 0 ? tape.input(seed[k]) : -1;
  }
  [[gnu::noinline]] static int32_t record_weighted(const int (&seed)[4], const float (&w)[4]) {
    return Tape::local().weighted_inputs(seed, w);
  }

  // d(-a) = -da
  friend Var operator-(const Var& a) { return make(-a.v, {a.i, -1.f}); }
  // d(a + b) = da + db
  friend Var operator+(const Var& a, const Var& b) { return make(a.v + b.v, {a.i, 1.f}, {b.i, 1.f}); }
  // d(a - b) = da - db
  friend Var operator-(const Var& a, const Var& b) { return make(a.v - b.v, {a.i, 1.f}, {b.i, -1.f}); }
  // d(a b) = b da + a db; a constant factor 1 records nothing (a 1 = a exactly)
  friend Var operator*(const Var& a, const Var& b) {
    if (b.i < 0 && b.v == 1.f) return a;
    if (a.i < 0 && a.v == 1.f) return b;
    return make(a.v * b.v, {a.i, b.v}, {b.i, a.v});
  }
  // d(a / b) = da / b - (a / b) db / b
  friend Var operator/(const Var& a, const Var& b) {
    const float r = a.v / b.v, inv = 1.f / b.v;
    return make(r, {a.i, inv}, {b.i, -r * inv});
  }
  Var& operator+=(const Var& b) { return *this = *this + b; }
  Var& operator-=(const Var& b) { return *this = *this - b; }
  Var& operator*=(const Var& b) { return *this = *this * b; }
  Var& operator/=(const Var& b) { return *this = *this / b; }
};

template <> struct is_differentiable<Var> : std::true_type {};

inline float value(const Var& a) { return a.v; }
inline bool is_constant(const Var& a) { return a.i < 0; }
inline Var detach(const Var& a) { return Var(a.v); }

// y = f(a) with f'(a) = slope: dy = slope da.
inline Var chain(const Var& a, float y, float slope) { return Var::make(y, {a.i, slope}); }

// d sqrt(a) = da / (2 sqrt(a)) (0 at a = 0)
inline Var sqrt(const Var& a) {
  float y = std::sqrt(a.v);
  return chain(a, y, y > 0.f ? 0.5f / y : 0.f);
}
// d sin(a) = cos(a) da
inline Var sin(const Var& a) { return chain(a, std::sin(a.v), std::cos(a.v)); }
// d cos(a) = -sin(a) da
inline Var cos(const Var& a) { return chain(a, std::cos(a.v), -std::sin(a.v)); }
// d acos(a) = -da / sqrt(1 - a^2) (at |a| = 1 taken as 0, not inf)
inline Var acos(const Var& a) {
  const float s = 1.f - a.v * a.v;
  return chain(a, std::acos(a.v), s > 0.f ? -1.f / std::sqrt(s) : 0.f);
}
// d tan(a) = (1 + tan^2(a)) da
inline Var tan(const Var& a) {
  float y = std::tan(a.v);
  return chain(a, y, 1.f + y * y);
}
// d exp(a) = exp(a) da
inline Var exp(const Var& a) {
  float y = std::exp(a.v);
  return chain(a, y, y);
}
// d log(a) = da / a
inline Var log(const Var& a) { return chain(a, std::log(a.v), 1.f / a.v); }
// d erf(a) = 2/sqrt(pi) exp(-a^2) da
inline Var erf(const Var& a) { return chain(a, std::erf(a.v), 1.12837917f * std::exp(-a.v * a.v)); }
// d |a| = sign(a) da (0 at 0)
inline Var abs(const Var& a) { return chain(a, std::fabs(a.v), a.v > 0.f ? 1.f : (a.v < 0.f ? -1.f : 0.f)); }
// d(sum x_k w_k) = sum w_k dx_k, the weights constant: one statement of four arguments.
inline Var weighted_sum(const Var (&x)[4], const float (&w)[4]) {
  const float v = x[0].v * w[0] + x[1].v * w[1] + x[2].v * w[2] + x[3].v * w[3];
  return Var::make_n<4>(v, {{x[0].i, w[0]}, {x[1].i, w[1]}, {x[2].i, w[2]}, {x[3].i, w[3]}});
}
// Four parameters read with constant weights: one input statement (Tape::weighted_inputs), the
// value the float kernel's weighted_sum.
template <>
inline Var weighted_lift<Var>(const float (&v)[4], const int (&seed)[4], const float (&w)[4]) {
  Var r(v[0] * w[0] + v[1] * w[1] + v[2] * w[2] + v[3] * w[3]);
  if (seed[0] >= 0 || seed[1] >= 0 || seed[2] >= 0 || seed[3] >= 0) r.i = Var::record_weighted(seed, w);
  return r;
}
// Three parameters read at once (a colour): recorded only when one is seeded.
template <>
inline void lift3<Var>(const float (&v)[3], const int (&seed)[3], Var (&out)[3]) {
  for (int k = 0; k < 3; ++k) out[k] = Var(v[k]);
  if (seed[0] >= 0 || seed[1] >= 0 || seed[2] >= 0) {
    int32_t index[3];
    Var::record_inputs3(seed, index);
    for (int k = 0; k < 3; ++k) out[k].i = index[k];
  }
}
// acc + ((a b) c) d, one statement: d = dacc + bcd da + acd db + abd dc + abc dd.
inline Var add_product(const Var& acc, const Var& a, const Var& b, const Var& c, const Var& d) {
  const float ab = a.v * b.v, abc = ab * c.v, cd = c.v * d.v;
  return Var::make_n<5>(acc.v + abc * d.v, {{acc.i, 1.f}, {a.i, b.v * cd}, {b.i, a.v * cd}, {c.i, ab * d.v}, {d.i, abc}});
}
// x ((a b) c), one statement.
inline Var scale_product(const Var& x, const Var& a, const Var& b, const Var& c) {
  const float ab = a.v * b.v, abc = ab * c.v, xc = x.v * c.v;
  return Var::make_n<4>(x.v * abc, {{x.i, abc}, {a.i, xc * b.v}, {b.i, xc * a.v}, {c.i, x.v * ab}});
}
// min and max pick one argument exactly as the float versions do; its derivative follows.
inline Var min(const Var& a, const Var& b) { return a.v < b.v ? a : b; }
inline Var max(const Var& a, const Var& b) { return a.v > b.v ? a : b; }

}  // namespace dray::ad
