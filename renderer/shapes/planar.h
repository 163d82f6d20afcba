#pragma once
// What a triangle (a mesh's face) and a parallelogram (a rectangle) share: a corner a and edges b,
// c; the BVH tests them four-wide (Möller–Trumbore), a point's coordinates are its (u, v) of
// a + u b + v c, its normal the edges' cross product.
#include <cmath>

#include "renderer/accel/intersect.h"
#include "renderer/shapes/prim.h"
#include "renderer/textures/tex_coord.h"

namespace dray {

template <bool kIsParallelogram>
struct Planar {
  static constexpr bool kPlanar = true;
  static constexpr bool kParallelogram = kIsParallelogram;

  static Aabb bounds(const PrimGeom& g) {
    Aabb box;
    const glm::vec3 a = to_glm(g.a), e1 = to_glm(g.b), e2 = to_glm(g.c);
    box.grow(a);
    box.grow(a + e1);
    box.grow(a + e2);
    if (kParallelogram) box.grow(a + e1 + e2);
    return box;
  }
  static bool intersect(const PrimGeom& g, const Ray& ray, float t_min, float t_max, float& t) {
    PrimHit<float> h;
    if (!intersect_triangle(Vec3<float>(ray.o), Vec3<float>(ray.d), g.a, g.b, g.c, t_min, t_max, h, kParallelogram))
      return false;
    t = h.t;
    return true;
  }

  template <class T>
  static T area(const PrimT<T>& p) {
    const T parallelogram = length(cross(p.b, p.c));
    return kParallelogram ? parallelogram : T(0.5f) * parallelogram;
  }
  template <class T>
  static Vec3<T> normal(const PrimT<T>& prim, const Vec3<T>&) {
    return normalize(cross(prim.b, prim.c));
  }
  // The float hit again in T (only derivative-carrying types intersect again).
  template <class T>
  static SurfacePoint<T> hit(const PrimT<T>& prim, const RayT<T>& ray, float t, float t_min) {
    PrimHit<T> h{T(t), T(0), T(0)};
    if constexpr (ad::is_differentiable_v<T>)
      if (!intersect_triangle(ray.o, ray.d, prim.a, prim.b, prim.c, t_min, INFINITY, h, kParallelogram))
        h.t = T(t);  // a hit exactly on an edge, lost to rounding
    const Vec3<T> p = ray.o + ray.d * h.t;
    return {p, normal(prim, p)};
  }
  // A point uniform in area, from two uniform numbers (a triangle's barycentrics: Shirley & Chiu).
  template <class T>
  static SurfacePoint<T> sample(const PrimT<T>& prim, float u1, float u2) {
    Vec3<T> p;
    if (kParallelogram) {
      p = prim.a + prim.b * T(u1) + prim.c * T(u2);
    } else {
      const float su = std::sqrt(u1);
      p = prim.a + prim.b * T(su * (1.f - u2)) + prim.c * T(su * u2);
    }
    return {p, normal(prim, p)};
  }

  // The coordinates (u, v) of point p in the plane, by least squares (any type); false for a
  // degenerate primitive.
  template <class T>
  static bool plane_coords(const PrimT<T>& prim, const Vec3<T>& p, T& u, T& v) {
    const Vec3<T> rel = p - prim.a;
    const T bb = dot(prim.b, prim.b), bc = dot(prim.b, prim.c), cc = dot(prim.c, prim.c), det = bb * cc - bc * bc;
    if (!(value(det) > 0.f)) return false;
    const T rb = dot(rel, prim.b), rc = dot(rel, prim.c);
    u = (rb * cc - rc * bc) / det;
    v = (rc * bb - rb * bc) / det;
    return true;
  }
  // The UV of point p in T where the plane slides under it, with its coordinates (b1, b2): the
  // corners' texture coordinates t interpolated (a triangle's), or without them (b1, b2) itself.
  // False for a degenerate primitive.
  template <class T>
  static bool plane_uv(const PrimT<T>& prim, const Vec3<T>& p, const glm::vec2* t, TexCoord<T>& out) {
    T b1, b2;
    if (!plane_coords(prim, p, b1, b2)) return false;
    if (!t) {
      out = TexCoord<T>(out.at, b1, b2);
    } else {
      const T b0 = T(1.f) - b1 - b2;
      out = TexCoord<T>(out.at, b0 * T(t[0].x) + b1 * T(t[1].x) + b2 * T(t[2].x), b0 * T(t[0].y) + b1 * T(t[1].y) + b2 * T(t[2].y));
    }
    out.b1 = b1;
    out.b2 = b2;
    return true;
  }

  // A material point: its (u, v), which move with the corner and edges.
  static bool coords(const PrimT<float>& prim, const glm::vec3& p, PrimCoords& out) {
    return plane_coords(prim, Vec3<float>(p), out.uv.x, out.uv.y);
  }
  template <class T>
  static Vec3<T> point(const PrimT<T>& prim, const PrimCoords& c) {
    return prim.a + prim.b * T(c.uv.x) + prim.c * T(c.uv.y);
  }
};

}  // namespace dray
