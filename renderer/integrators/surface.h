#pragma once
// A BVH primitive lifted to the kernel's scalar type: its geometry read from the parameter table,
// and what its shape plugin (renderer/shapes/shape.h) answers of it: the differentiable
// re-evaluation of a hit found in float, normals, material points, UV and points sampled on it.
#include <algorithm>
#include <cmath>
#include <variant>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

#include "renderer/sensors/camera.h"
#include "renderer/scene.h"
#include "renderer/core/transform.h"
#include "renderer/shapes/prim.h"
#include "renderer/shapes/shape.h"

namespace dray {

// Whether sdfgrid shape s moves with the parameters, and then its map in T from grid coordinates
// to world space (SdfGridShape::world_map; a group member's placement in its group first).
template <class T>
bool sdf_world_map(const Scene& scene, const ParamView<T>& P, const Shape& s, Vec3<T>& a, Vec3<T>& b, Vec3<T>& c,
                   Vec3<T>& d) {
  return s.as<SdfGridShape>().placed_map(scene, P, s, a, b, c, d);
}

// Whether shape s moves or turns in this pass: its points, size, transform, vertices or shading
// normals are seeded.
template <class T>
bool shape_seeded(const Scene& scene, const ParamView<T>& P, const Shape& s) {
  return std::visit([&](const auto& plugin) { return plugin.seeded(scene, P); }, s.model);
}

// BVH primitive `prim` in T, as its shape reads it from the parameter table.
template <class T>
PrimT<T> lift_prim(const Scene& scene, const ParamView<T>& P, uint32_t prim) {
  const PrimRef ref = scene.bvh.prim_ref(prim);
  const Shape& s = scene.shapes[ref.shape];
  return std::visit([&](const auto& plugin) { return plugin.lift(scene, P, s, ref, prim); }, s.model);
}

template <class T>
T prim_area(const PrimT<T>& p) {
  return with_shape_type(p.kind, [&]<class S>() { return S::area(p); });
}

template <class T>
Vec3<T> prim_normal(const PrimT<T>& prim, const Vec3<T>& p) {
  return with_shape_type(prim.kind, [&]<class S>() { return S::normal(prim, p); });
}

// Re-evaluates, in T, the hit the float traversal found: the same primitive, the same root.
// In float the traversal's distance is already this value (same function, same inputs), so only
// derivative-carrying types intersect again.
template <class T>
SurfacePoint<T> eval_hit(const PrimT<T>& prim, const RayT<T>& ray, const Hit& hit, float t_min) {
  return with_shape_type(prim.kind, [&]<class S>() { return S::hit(prim, ray, hit.t, t_min); });
}

// The shading normal at p (in T) on BVH primitive `prim`, lifted as `pt`, whose geometric
// normal is ng: its shape's where it has its own (a smooth mesh's interpolated corner normals, an
// sdfgrid's), else ng.
template <class T>
Vec3<T> shading_normal(const Scene& scene, const ParamView<T>& P, uint32_t prim, const PrimT<T>& pt, const Vec3<T>& p,
                       const Vec3<T>& ng) {
  const PrimRef ref = scene.bvh.prim_ref(prim);
  const Shape& s = scene.shapes[ref.shape];
  return std::visit([&](const auto& plugin) {
    if constexpr (requires { plugin.shading_normal(scene, P, s, ref, pt, p, ng); }) return plugin.shading_normal(scene, P, s, ref, pt, p, ng);
    else return ng;
  }, s.model);
}

// A material point of a primitive (PrimCoords): coordinates that stay with the surface when its
// parameters move. The coordinates of the float point p (false for a degenerate primitive), and
// the point with coordinates c, in T.
inline bool prim_coords(const PrimT<float>& prim, const glm::vec3& p, PrimCoords& out) {
  return with_shape_type(prim.kind, [&]<class S>() { return S::coords(prim, p, out); });
}
template <class T>
Vec3<T> prim_point(const PrimT<T>& prim, const PrimCoords& c) {
  return with_shape_type(prim.kind, [&]<class S>() { return S::point(prim, c); });
}

// The surface coordinates (UV) of the float point p on BVH primitive `prim`, lifted as pf, as
// Mitsuba 3 defines them: a sphere's (φ / 2π, θ / π) about its z axis; a quad's (u, v) of
// corner + u edge_u + v edge_v; a mesh's interpolated `vt`, else the barycentric (b1, b2). A
// material point keeps its UV when parameters move: a float, with no derivative. An sdfgrid has
// none: (0, 0), as Mitsuba's. `site`, when
// given, receives the point's mesh attributes.
inline glm::vec2 surface_uv(const Scene& scene, uint32_t prim, const PrimT<float>& pf, const glm::vec3& p,
                            AttributeSite* site = nullptr) {
  PrimCoords c;
  if (!prim_coords(pf, p, c)) return glm::vec2(0.f);
  const PrimRef ref = scene.bvh.prim_ref(prim);
  const Shape& s = scene.shapes[ref.shape];
  return std::visit([&](const auto& plugin) { return plugin.uv(scene, ref, c, site); }, s.model);
}

// surface_uv's coordinates, fixed, with the point's mesh attributes.
template <class T>
TexCoord<T> surface_texcoord(const Scene& scene, uint32_t prim, const PrimT<float>& pf, const glm::vec3& p) {
  AttributeSite site;
  TexCoord<T> out(surface_uv(scene, prim, pf, p, &site));
  out.site = site;
  out.site.p = p;
  return out;
}

// The surface coordinates of the point p that a path sees on primitive `prim` (lifted as pt), in
// T: where the surface slides under a pixel (a shape moving in its plane, a camera moving), its
// UV at the pixel changes, and textures read there change with it (and so do its barycentrics,
// with which mesh attributes blend). The value is surface_uv's.
template <class T>
TexCoord<T> surface_coord(const Scene& scene, uint32_t prim, const PrimT<T>& pt, const Vec3<T>& p) {
  TexCoord<T> fixed_coord = surface_texcoord<T>(scene, prim, value(pt), value(p));
  if constexpr (!ad::is_differentiable_v<T>) {
    return fixed_coord;
  } else {
    const glm::vec2 at = fixed_coord.at;
    // Nothing moves (an appearance pass, most hits): the float coordinates, with no work in T.
    using ad::is_constant;
    auto fixed = [](const Vec3<T>& v) { return is_constant(v.x) && is_constant(v.y) && is_constant(v.z); };
    if (fixed(p) && fixed(pt.a) && fixed(pt.b) && fixed(pt.c) && is_constant(pt.r)) return fixed_coord;
    const PrimRef ref = scene.bvh.prim_ref(prim);
    const Shape& s = scene.shapes[ref.shape];
    TexCoord<T> out(at);
    if (!std::visit([&](const auto& plugin) { return plugin.moving_uv(scene, ref, pt, p, out); }, s.model)) return fixed_coord;
    out.site = fixed_coord.site;
    return out;
  }
}

// A point on the primitive from two uniform numbers, uniform in area.
template <class T>
SurfacePoint<T> sample_prim(const PrimT<T>& prim, float u1, float u2) {
  return with_shape_type(prim.kind, [&]<class S>() { return S::sample(prim, u1, u2); });
}

}  // namespace dray
