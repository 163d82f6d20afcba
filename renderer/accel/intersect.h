#pragma once
// Ray-primitive intersection, written once for any scalar type: the BVH calls it in float to
// find the hit, the kernel calls it again in T on the found primitive to get a differentiable
// distance. Decisions (hit or miss, which root) compare primal values only, so both calls take
// the same branches.
#include "renderer/core/ray.h"
#include "renderer/core/vec.h"

namespace dray {

template <class T>
struct PrimHit {
  T t, u, v;  // distance and surface coordinates (barycentric, or the quad's edge fractions)
};

// Möller–Trumbore against the triangle a + u e1 + v e2 (u, v >= 0, u + v <= 1), or with
// `parallelogram` the quad a + u e1 + v e2 (u, v in [0, 1]). Hits only in (t_min, t_max).
template <class T>
bool intersect_triangle(const Vec3<T>& o, const Vec3<T>& d, const Vec3<T>& a, const Vec3<T>& e1,
                        const Vec3<T>& e2, float t_min, float t_max, PrimHit<T>& hit,
                        bool parallelogram = false) {
  Vec3<T> p = cross(d, e2);
  T det = dot(e1, p);
  if (value(det) == 0.f) return false;
  T inv_det = T(1) / det;
  Vec3<T> s = o - a;
  T u = dot(s, p) * inv_det;
  float uv = value(u);
  if (!(uv >= 0.f && uv <= 1.f)) return false;
  Vec3<T> q = cross(s, e1);
  T v = dot(d, q) * inv_det;
  float vv = value(v);
  if (!(vv >= 0.f && (parallelogram ? vv <= 1.f : uv + vv <= 1.f))) return false;
  T t = dot(e2, q) * inv_det;
  float tv = value(t);
  if (!(tv > t_min && tv < t_max)) return false;
  hit = {t, u, v};
  return true;
}

}  // namespace dray
