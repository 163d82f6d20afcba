#pragma once
// Scalar traits and math for the plain `float` instantiation of the kernel.
//
// The kernel is written once, templated on its scalar type T, and calls these functions
// unqualified (`sqrt(x)`, `value(x)`, `detach(x)`). `Dual<N>` (forward mode) and `Var`
// (reverse mode) provide overloads of the same names in namespace dray::ad, so the kernel
// never changes when a new scalar type is added.
#include <cmath>
#include <type_traits>

namespace dray::ad {

// The primal value of a scalar, as a float: what BVH traversal and sampling decisions see.
inline float value(float x) { return x; }

// The same value with no derivative attached (for float: itself).
inline float detach(float x) { return x; }

// Whether the scalar surely carries no derivative (a float always; the AD types when nothing
// flows into it).
inline bool is_constant(float) { return true; }

// Whether T carries derivatives. Specialised by the AD types.
template <class T>
struct is_differentiable : std::false_type {};

template <class T>
inline constexpr bool is_differentiable_v = is_differentiable<T>::value;

// A parameter value lifted into T. A seed_index >= 0 makes it an input of differentiation
// (the tangent of that index for forward mode, the gradient entry for reverse mode); any scalar
// type constructible from (value, seed index) is seeded that way, others take the value alone.
template <class T>
T lift(float v, int seed_index) {
  if constexpr (std::is_constructible_v<T, float, int> && !std::is_arithmetic_v<T>) return T(v, seed_index);
  else return T(v);
}

inline float sqrt(float x) { return std::sqrt(x); }
inline float sin(float x) { return std::sin(x); }
inline float cos(float x) { return std::cos(x); }
inline float acos(float x) { return std::acos(x); }
inline float tan(float x) { return std::tan(x); }
inline float abs(float x) { return std::fabs(x); }
inline float exp(float x) { return std::exp(x); }
inline float log(float x) { return std::log(x); }
inline float erf(float x) { return std::erf(x); }
inline float min(float a, float b) { return a < b ? a : b; }
// x0 w0 + x1 w1 + x2 w2 + x3 w3 with constant weights, summed left to right (a bilinear lookup):
// the AD types record it as one operation.
inline float weighted_sum(const float (&x)[4], const float (&w)[4]) { return x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3]; }
inline float max(float a, float b) { return a > b ? a : b; }
// Four parameters read with constant weights (a bilinear lookup, a voxel stencil's half):
// sum_k lift(v_k, seed_k) w_k, summed as weighted_sum. Reverse mode records it as one statement
// whose adjoint goes to the seeded parameters scaled by their weights (ad/var.h).
template <class T>
T weighted_lift(const float (&v)[4], const int (&seed)[4], const float (&w)[4]) {
  const T x[4] = {lift<T>(v[0], seed[0]), lift<T>(v[1], seed[1]), lift<T>(v[2], seed[2]), lift<T>(v[3], seed[3])};
  return weighted_sum(x, w);
}
// Three parameters (a colour) lifted into T: out[k] = lift(v[k], seed[k]). Reverse mode looks
// up its tape once for the three (ad/var.h).
template <class T>
void lift3(const float (&v)[3], const int (&seed)[3], T (&out)[3]) {
  for (int k = 0; k < 3; ++k) out[k] = lift<T>(v[k], seed[k]);
}
// acc + ((a b) c) d and x ((a b) c): a path's radiance and throughput updates, which the AD types
// record as one operation each.
inline float add_product(float acc, float a, float b, float c, float d) { return acc + a * b * c * d; }
inline float scale_product(float x, float a, float b, float c) { return x * (a * b * c); }

}  // namespace dray::ad
