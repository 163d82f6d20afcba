#pragma once
// An sdfgrid's voxel in the kernel's scalar type: the grid's map to world space when its transform
// is differentiated, normals through it, and a hit re-evaluated on the moving surface.
#include "renderer/integrators/prim.h"
#include "renderer/shapes/sdf_grid.h"

namespace dray {

// Whether sdfgrid shape s moves with the parameters, and then its map in T from grid coordinates
// ([0, 1]³) to world space, as columns a, b, c and offset d: its transform (an instance's, for a
// group member) after, for a group member, the grid's constant placement in the group.
template <class T>
bool sdf_world_map(const Scene& scene, const ParamView<T>& P, const Shape& s, Vec3<T>& a, Vec3<T>& b, Vec3<T>& c,
                   Vec3<T>& d) {
  if (!transform_active(P, s.transform)) return false;
  const TransformT<T> t = lift_transform(P, s.transform);
  glm::mat3 base(1.f);  // the grid's placement in its group: none for a shape of its own
  glm::vec3 offset(0.f);
  if (s.instance >= 0) base = scene.sdf_grids[s.grid]->linear, offset = scene.sdf_grids[s.grid]->offset;
  a = linear_part(t, Vec3<T>(base[0])), b = linear_part(t, Vec3<T>(base[1])), c = linear_part(t, Vec3<T>(base[2]));
  d = transform_point(t, Vec3<T>(offset));
  return true;
}


// A moving voxel's map in T (PrimT::moving): an object point to world space, a world point back
// (by cofactors), and an object-space gradient to a unit world normal (the inverse transpose).
template <class T>
Vec3<T> voxel_to_world(const PrimT<T>& p, const Vec3<T>& q) {
  return p.a * q.x + p.b * q.y + p.c * q.z + p.d;
}
template <class T>
Vec3<T> voxel_to_object(const PrimT<T>& p, const Vec3<T>& x) {
  const Vec3<T> r = x - p.d, bc = cross(p.b, p.c), ca = cross(p.c, p.a), ab = cross(p.a, p.b);
  return Vec3<T>(dot(bc, r), dot(ca, r), dot(ab, r)) / dot(p.a, bc);
}
template <class T>
Vec3<T> voxel_world_normal(const PrimT<T>& p, const Vec3<T>& gradient) {
  Vec3<T> n = cross(p.b, p.c) * gradient.x + cross(p.c, p.a) * gradient.y + cross(p.a, p.b) * gradient.z;
  if (value(dot(p.a, cross(p.b, p.c))) < 0.f) n = -n;  // det · M⁻ᵀ g: its sign undone
  const T len = length(n);
  return value(len) > 0.f ? n / len : Vec3<T>(T(0.f), T(0.f), T(1.f));
}

// A voxel's geometric and shading normals at world point p (its grid's, or through the moving map).
template <class T>
Vec3<T> voxel_normal(const PrimT<T>& prim, const Vec3<T>& p) {
  if (!prim.moving) return sdf_normal(*prim.sdf, p);
  const Vec3<T> q = voxel_to_object(prim, p);
  return voxel_world_normal(prim, sdf_detail::voxel_gradient(*prim.sdf, q, sdf_voxel_at(*prim.sdf, q)));
}
template <class T>
Vec3<T> voxel_shading_normal(const PrimT<T>& prim, const Vec3<T>& p, const Vec3<T>& ng) {
  if (!prim.moving || !prim.sdf->smooth) return sdf_shading_normal(*prim.sdf, p, ng);
  return voxel_world_normal(prim, sdf_detail::smooth_gradient(*prim.sdf, voxel_to_object(prim, p)));
}

// A voxel's hit in T: the point slides along the surface as on its tangent plane at the float
// hit (to first order, exact), a plane through the hit's material point that moves with the
// grid's transform when that is differentiated (else only the ray moves); its normal turns with
// it. The value is the float traversal's.
template <class T>
SurfacePoint<T> eval_voxel_hit(const PrimT<T>& prim, const RayT<T>& ray, const Hit& hit) {
  T t(hit.t);
  if constexpr (ad::is_differentiable_v<T>) {
    const Vec3<float> pf(value(ray.o) + value(ray.d) * hit.t);
    Vec3<T> x0(pf), n;
    if (prim.moving) {
      const Vec3<float> q = sdf_detail::to_object(*prim.sdf, pf);
      x0 = voxel_to_world(prim, Vec3<T>(q));
      n = voxel_world_normal(prim, Vec3<T>(sdf_detail::voxel_gradient(*prim.sdf, q, sdf_voxel_at(*prim.sdf, q))));
    } else {
      n = Vec3<T>(sdf_normal(*prim.sdf, pf));
    }
    const T along = dot(n, x0 - ray.o) / dot(n, ray.d);
    t = t + (along - T(value(along)));
  }
  const Vec3<T> p = ray.o + ray.d * t;
  return {p, voxel_normal(prim, p)};
}

}  // namespace dray
