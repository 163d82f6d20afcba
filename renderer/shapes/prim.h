#pragma once
// A BVH primitive in the kernel's scalar type (the shape lifts it from the parameter table), a
// point on a surface, and a material point's coordinates.
#include <cmath>
#include <optional>
#include <string>

#include <glm/common.hpp>
#include <glm/geometric.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "renderer/accel/bvh.h"
#include "renderer/core/transform.h"

namespace dray {

struct SdfGrid;

template <class T>
struct PrimT {
  uint32_t kind;    // as PrimGeom::kind: the shape plugin's index in shapes/shape.h's list
  Vec3<T> a, b, c;  // as in PrimGeom; a sphere's: centre a, radius r
  T r;
  const SdfGrid* sdf = nullptr;  // voxel: its grid (the voxel holding a point is found from it)
  // voxel whose transform is being differentiated: world = a q.x + b q.y + c q.z + d for object
  // point q (its grid's placement is this map's value).
  bool moving = false;
  Vec3<T> d{};
};

// The primal values, without derivatives: for quantities that only steer decisions or weights.
template <class T>
PrimT<float> value(const PrimT<T>& p) {
  return {p.kind, Vec3<float>(value(p.a)), Vec3<float>(value(p.b)), Vec3<float>(value(p.c)), value(p.r), p.sdf};
}

template <class T>
bool transform_active(const ParamView<T>& P, const Transform& xf) {
  return P.active(xf.scale, 1) || P.active(xf.rotate, 3) || P.active(xf.translate, 3);
}

// A point on a surface with its unit geometric normal.
template <class T>
struct SurfacePoint {
  Vec3<T> p, n;
};

template <class T>
SurfacePoint<float> value(const SurfacePoint<T>& s) {
  return {Vec3<float>(value(s.p)), Vec3<float>(value(s.n))};
}

// The ball around points (centre xyz, radius w): their box's circumscribed ball.
template <class Points>
glm::vec4 ball_around(const Points& points) {
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (const glm::vec3& p : points) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  return glm::vec4(0.5f * (lo + hi), 0.5f * glm::length(hi - lo));
}

// A material point's coordinates on its primitive, which stay with the surface when its
// parameters move: a plane's (u, v), a curved surface's direction, a voxel's grid point.
struct PrimCoords {
  glm::vec2 uv{0.f};
  glm::vec3 omega{0.f};
};

}  // namespace dray
