#pragma once
// A small 3-vector templated on the scalar type, for the differentiable kernel.
// GLM is used where values are plain floats (loading, BVH); its normalize/length/cross
// static_assert a floating-point type, so the kernel uses Vec3<T> instead.
#include <glm/vec3.hpp>

#include <cmath>

#include "ad/scalar.h"
#include "ad/var.h"

namespace dray {

inline constexpr float kPi = 3.14159265358979323846f;

// Whether a GLM 3-vector (float or double) holds no NaN and no infinity.
template <class S, glm::qualifier Q>
bool all_finite(const glm::vec<3, S, Q>& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

using ad::detach;
using ad::value;
// The kernel's math, found for float here and for the AD types by argument-dependent lookup.
using ad::abs;
using ad::acos;
using ad::erf;
using ad::exp;
using ad::sqrt;
using ad::weighted_sum;

template <class T>
struct Vec3 {
  T x{}, y{}, z{};

  Vec3() = default;
  Vec3(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}
  explicit Vec3(T s) : x(s), y(s), z(s) {}
  // Lifts a plain float vector (a constant: no derivative).
  template <class U = T>
    requires(!std::is_same_v<U, float>)
  explicit Vec3(const Vec3<float>& v) : x(v.x), y(v.y), z(v.z) {}
  explicit Vec3(const glm::vec3& v) : x(v.x), y(v.y), z(v.z) {}

  const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
  T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }

  Vec3 operator-() const { return {-x, -y, -z}; }
  Vec3& operator+=(const Vec3& o) { x += o.x; y += o.y; z += o.z; return *this; }
  Vec3& operator-=(const Vec3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  Vec3& operator*=(const Vec3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  Vec3& operator*=(const T& s) { x *= s; y *= s; z *= s; return *this; }
  Vec3& operator/=(const T& s) { T inv = T(1) / s; return *this *= inv; }
};

template <class T> Vec3<T> operator+(Vec3<T> a, const Vec3<T>& b) { return a += b; }
template <class T> Vec3<T> operator-(Vec3<T> a, const Vec3<T>& b) { return a -= b; }
template <class T> Vec3<T> operator*(Vec3<T> a, const Vec3<T>& b) { return a *= b; }
template <class T> Vec3<T> operator*(Vec3<T> a, const T& s) { return a *= s; }
template <class T> Vec3<T> operator*(const T& s, Vec3<T> a) { return a *= s; }
template <class T> Vec3<T> operator/(Vec3<T> a, const T& s) { return a /= s; }

// Component i of a vector, or a scalar broadcast.
template <class T> const T& component(const Vec3<T>& v, int i) { return v[i]; }
template <class T> const T& component(const T& s, int) { return s; }
// acc + ((a b) c) d and x ((a b) c) per component, each factor a vector or a scalar: a path's
// radiance and throughput updates, one tape statement per component in reverse mode.
template <class T, class A, class B, class C, class D>
Vec3<T> add_product(const Vec3<T>& acc, const A& a, const B& b, const C& c, const D& d) {
  using ad::add_product;
  Vec3<T> r;
  for (int i = 0; i < 3; ++i) r[i] = add_product(acc[i], component(a, i), component(b, i), component(c, i), component(d, i));
  return r;
}
template <class T, class A, class B, class C>
Vec3<T> scale_product(const Vec3<T>& x, const A& a, const B& b, const C& c) {
  using ad::scale_product;
  Vec3<T> r;
  for (int i = 0; i < 3; ++i) r[i] = scale_product(x[i], component(a, i), component(b, i), component(c, i));
  return r;
}

template <class T> T dot(const Vec3<T>& a, const Vec3<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> Vec3<T> cross(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> T length(const Vec3<T>& a) { using ad::sqrt; return sqrt(dot(a, a)); }
template <class T> Vec3<T> normalize(const Vec3<T>& a) { return a / length(a); }
// A normal made unit (a zero one: +z), as a mesh's normals block is read.
template <class T> Vec3<T> unit_normal(const Vec3<T>& n) {
  const T len = length(n);
  return value(len) > 0.f ? n / len : Vec3<T>(T(0.f), T(0.f), T(1.f));
}

// The same in reverse mode as one tape statement per result, not one per operation: the values
// are the same float operations in the same order; the rule is beside each.
// d(a . b) = b . da + a . db
inline ad::Var dot(const Vec3<ad::Var>& a, const Vec3<ad::Var>& b) {
  return ad::Var::make_n(a.x.v * b.x.v + a.y.v * b.y.v + a.z.v * b.z.v,
                         {{a.x.i, b.x.v}, {b.x.i, a.x.v}, {a.y.i, b.y.v}, {b.y.i, a.y.v}, {a.z.i, b.z.v}, {b.z.i, a.z.v}});
}
// d(p q - r s) = q dp + p dq - s dr - r ds, per component
inline Vec3<ad::Var> cross(const Vec3<ad::Var>& a, const Vec3<ad::Var>& b) {
  auto c = [](const ad::Var& p, const ad::Var& q, const ad::Var& r, const ad::Var& s) {
    return ad::Var::make_n(p.v * q.v - r.v * s.v, {{p.i, q.v}, {q.i, p.v}, {r.i, -s.v}, {s.i, -r.v}});
  };
  return {c(a.y, b.z, a.z, b.y), c(a.z, b.x, a.x, b.z), c(a.x, b.y, a.y, b.x)};
}
// n = a / |a|: d n_i = (da_i - n_i (n . da)) / |a|
inline Vec3<ad::Var> normalize(const Vec3<ad::Var>& a) {
  const float inv = 1.f / std::sqrt(a.x.v * a.x.v + a.y.v * a.y.v + a.z.v * a.z.v);
  const float n[3] = {a.x.v * inv, a.y.v * inv, a.z.v * inv};
  auto c = [&](int k) {
    auto arg = [&](int j, const ad::Var& aj) { return ad::Tape::Arg{aj.i, inv * ((j == k ? 1.f : 0.f) - n[k] * n[j])}; };
    return ad::Var::make_n(n[k], {arg(0, a.x), arg(1, a.y), arg(2, a.z)});
  };
  return {c(0), c(1), c(2)};
}

// The primal values as a plain float vector (for traversal and decisions).
template <class T> glm::vec3 value(const Vec3<T>& a) { return {value(a.x), value(a.y), value(a.z)}; }
template <class T> Vec3<T> detach(const Vec3<T>& a) { return {detach(a.x), detach(a.y), detach(a.z)}; }

inline glm::vec3 to_glm(const Vec3<float>& a) { return {a.x, a.y, a.z}; }

}  // namespace dray
