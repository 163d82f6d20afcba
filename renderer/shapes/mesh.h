#pragma once
// Mitsuba 3's meshes (obj, ply, serialized; dray's disk, cube and cylinder are tessellated into
// one): triangles a + b1 e1 + b2 e2, whose UV is the corners' texture coordinates interpolated at
// the barycentrics (b1, b2), or without them (b1, b2) itself; dp/du and dp/dv from the corners'
// UV (Mitsuba's src/render/mesh.cpp before its 2026-07 rewrite), without them the Duff basis.
#include "renderer/core/frame.h"
#include "renderer/shapes/planar.h"

namespace dray {

struct MeshShape : Planar<false> {
  // The UV at barycentrics b of the face whose corners' texture coordinates are t (3, or null).
  template <class T>
  static void uv(const glm::vec2* t, const T& b1, const T& b2, T& u, T& v) {
    if (!t) {
      u = b1;
      v = b2;
      return;
    }
    const T b0 = T(1.f) - b1 - b2;
    u = b0 * T(t[0].x) + b1 * T(t[1].x) + b2 * T(t[2].x);
    v = b0 * T(t[0].y) + b1 * T(t[1].y) + b2 * T(t[2].y);
  }
  static glm::vec2 uv(const glm::vec2* t, const PrimCoords& c) {
    if (!t) return c.uv;
    return t[0] * (1.f - c.uv.x - c.uv.y) + t[1] * c.uv.x + t[2] * c.uv.y;
  }
  // dp/du and dp/dv of the face (edges e1 = prim.b, e2 = prim.c) of geometric normal ng.
  template <class T>
  static void derivatives(const glm::vec2* t, const PrimT<T>& prim, const Vec3<T>& ng, Vec3<T>& dp_du, Vec3<T>& dp_dv) {
    basis(ng, dp_du, dp_dv);
    if (!t) return;
    const glm::vec2 d0 = t[1] - t[0], d1 = t[2] - t[0];
    const float det = d0.x * d1.y - d0.y * d1.x;
    if (det == 0.f) return;
    dp_du = (prim.b * T(d1.y) - prim.c * T(d0.y)) * T(1.f / det);
    dp_dv = (prim.c * T(d0.x) - prim.b * T(d1.x)) * T(1.f / det);
  }
};

}  // namespace dray
