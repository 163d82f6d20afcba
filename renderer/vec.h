#pragma once
// A small 3-vector templated on the scalar type, for the differentiable kernel.
// GLM is used where values are plain floats (loading, BVH); its normalize/length/cross
// static_assert a floating-point type, so the kernel uses Vec3<T> instead.
#include <glm/vec3.hpp>

#include "ad/scalar.h"

namespace dray {

inline constexpr float kPi = 3.14159265358979323846f;

using ad::detach;
using ad::value;
// The kernel's math, found for float here and for the AD types by argument-dependent lookup.
using ad::abs;
using ad::acos;
using ad::erf;
using ad::exp;
using ad::sqrt;

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

template <class T> T dot(const Vec3<T>& a, const Vec3<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> Vec3<T> cross(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> T length(const Vec3<T>& a) { using ad::sqrt; return sqrt(dot(a, a)); }
template <class T> Vec3<T> normalize(const Vec3<T>& a) { return a / length(a); }

// The primal values as a plain float vector (for traversal and decisions).
template <class T> glm::vec3 value(const Vec3<T>& a) { return {value(a.x), value(a.y), value(a.z)}; }
template <class T> Vec3<T> detach(const Vec3<T>& a) { return {detach(a.x), detach(a.y), detach(a.z)}; }

inline glm::vec3 to_glm(const Vec3<float>& a) { return {a.x, a.y, a.z}; }

}  // namespace dray
