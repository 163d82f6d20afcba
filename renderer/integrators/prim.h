#pragma once
// A BVH primitive in the kernel's scalar type (surface.h lifts it from the parameter table), and
// a point on a surface.
#include "renderer/scene.h"
#include "renderer/core/transform.h"

namespace dray {

template <class T>
struct PrimT {
  PrimGeom::Kind kind;
  Vec3<T> a, b, c;  // as in PrimGeom; sphere: centre a, radius r
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

}  // namespace dray
