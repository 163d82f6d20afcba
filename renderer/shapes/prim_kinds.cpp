// What the BVH asks of a primitive kind (declared in accel/bvh.h), answered by the plugin whose
// index in shape.h's list the kind is: the BVH includes only core/, the shapes include it.
#include "renderer/accel/bvh.h"
#include "renderer/shapes/shape.h"

namespace dray {

Aabb bounds_of(const PrimGeom& g) {
  return with_shape_type(g.kind, [&]<class S>() { return S::bounds(g); });
}

bool intersect_prim(const PrimGeom& g, const Ray& ray, float t_min, float t_max, float& t) {
  return with_shape_type(g.kind, [&]<class S>() { return S::intersect(g, ray, t_min, t_max, t); });
}

bool prim_planar(uint32_t kind) {
  return with_shape_type(kind, []<class S>() { return S::kPlanar; });
}

bool prim_parallelogram(uint32_t kind) {
  return with_shape_type(kind, []<class S>() { return S::kParallelogram; });
}

}  // namespace dray
