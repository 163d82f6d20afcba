#pragma once
// Mitsuba 3's rectangle (src/shapes/rectangle.cpp; dray's `quad`): the parallelogram corner + u
// edge_u + v edge_v, u and v in [0, 1], its UV (u, v) and dp/du, dp/dv its edges.
#include "renderer/shapes/planar.h"

namespace dray {

struct Rectangle : Planar<true> {
  static glm::vec2 uv(const PrimCoords& c) { return c.uv; }
  template <class T>
  static void derivatives(const PrimT<T>& prim, Vec3<T>& dp_du, Vec3<T>& dp_dv) {
    dp_du = prim.b;
    dp_dv = prim.c;
  }
};

}  // namespace dray
