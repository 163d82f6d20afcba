#pragma once
// A BVH primitive lifted to the kernel's scalar type: its geometry read from the parameter table,
// and what its shape plugin (renderer/shapes/shape.h) answers of it: the differentiable
// re-evaluation of a hit found in float, normals, material points, UV and points sampled on it.
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

#include "renderer/sensors/camera.h"
#include "renderer/scene.h"
#include "renderer/core/transform.h"
#include "renderer/shapes/prim.h"
#include "renderer/shapes/shape.h"

namespace dray {

// Whether an element of mesh shape s's vertex block is seeded.
template <class T>
bool vertices_active(const Scene& scene, const ParamView<T>& P, const Shape& s) {
  if (s.kind != Shape::Kind::mesh) return false;
  const Mesh& m = scene.meshes[s.mesh];
  return P.active(m.vertices, uint32_t(3 * m.object_positions.size()));
}

// Whether mesh shape s moves in this pass: its transform or its vertices are seeded.
template <class T>
bool mesh_active(const Scene& scene, const ParamView<T>& P, const Shape& s) {
  return transform_active(P, s.transform) || vertices_active(scene, P, s);
}

// Whether mesh shape s's shading normals block is seeded in this pass (they turn, not move).
template <class T>
bool normals_active(const Scene& scene, const ParamView<T>& P, const Shape& s) {
  if (s.kind != Shape::Kind::mesh) return false;
  const Mesh& m = scene.meshes[s.mesh];
  return m.normals != kNoSlot && P.active(m.normals, uint32_t(3 * m.object_positions.size()));
}

// Vertex v of mesh shape s in world space, in T, under the lifted transform t: its object
// position read from the vertex block (seeded or constant).
template <class T>
Vec3<T> mesh_vertex(const Scene& scene, const ParamView<T>& P, const Shape& s, const TransformT<T>& t, uint32_t v) {
  const Mesh& m = scene.meshes[s.mesh];
  const Vec3<T> p = m.vertices == kNoSlot ? Vec3<T>(Vec3<float>(m.object_positions[v])) : P.vec3(m.vertices + 3 * v);
  return transform_point(t, p);
}

// Whether sdfgrid shape s moves with the parameters, and then its map in T from grid coordinates
// to world space (SdfGridShape::world_map; a group member's placement in its group first).
template <class T>
bool sdf_world_map(const Scene& scene, const ParamView<T>& P, const Shape& s, Vec3<T>& a, Vec3<T>& b, Vec3<T>& c,
                   Vec3<T>& d) {
  const SdfGrid* placed = s.instance >= 0 ? scene.sdf_grids[s.grid].get() : nullptr;
  return SdfGridShape::world_map(P, s.transform, placed, a, b, c, d);
}

template <class T>
PrimT<T> lift_prim(const Scene& scene, const ParamView<T>& P, uint32_t prim) {
  const PrimRef ref = scene.bvh.prim_ref(prim);
  const Shape& s = scene.shapes[ref.shape];
  switch (s.kind) {
    case Shape::Kind::sphere:
      return {kPrimKind<Sphere>, P.vec3(s.a), {}, {}, P.scalar(s.b)};
    case Shape::Kind::quad:
      return {kPrimKind<Rectangle>, P.vec3(s.a), P.vec3(s.b), P.vec3(s.c), T(0)};
    case Shape::Kind::sdf: {  // the grid as placed in world space (an instance's copy, for a group member)
      uint32_t voxel = 0;
      const SdfGrid* grid = sdf_voxel_grid(scene.bvh.prim_geom(prim), voxel);
      PrimT<T> out{kPrimKind<SdfGridShape>, {}, {}, {}, T(0), grid};
      out.moving = sdf_world_map(scene, P, s, out.a, out.b, out.c, out.d);
      return out;
    }
    case Shape::Kind::mesh: break;
  }
  const PrimGeom g = scene.bvh.prim_geom(prim);
  if (!mesh_active(scene, P, s)) return {kPrimKind<MeshShape>, Vec3<T>(g.a), Vec3<T>(g.b), Vec3<T>(g.c), T(0)};
  // The transform or the vertices are being differentiated: the triangle follows them, in T.
  const uint32_t* tri = &scene.meshes[s.mesh].indices[3 * size_t(ref.index)];
  const TransformT<T> t = lift_transform(P, s.transform);
  Vec3<T> v[3];
  for (int k = 0; k < 3; ++k) v[k] = mesh_vertex(scene, P, s, t, tri[k]);
  return {kPrimKind<MeshShape>, v[0], v[1] - v[0], v[2] - v[0], T(0)};
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
// normal is ng: a smooth mesh's corner normals interpolated at p's barycentrics (following the
// transform when it is being differentiated, so the normal turns with the mesh, and the normals
// block when that is); else ng.
template <class T>
Vec3<T> shading_normal(const Scene& scene, const ParamView<T>& P, uint32_t prim, const PrimT<T>& pt, const Vec3<T>& p,
                       const Vec3<T>& ng) {
  const PrimRef ref = scene.bvh.prim_ref(prim);
  const Shape& s = scene.shapes[ref.shape];
  if (s.kind == Shape::Kind::sdf) return SdfGridShape::shading_normal(pt, p, ng);
  if (s.kind != Shape::Kind::mesh) return ng;
  const Mesh& m = scene.meshes[s.mesh];
  if (m.object_normals.empty()) return ng;
  T u, v;
  if (!MeshShape::plane_coords(pt, p, u, v)) return ng;
  const size_t base = 3 * size_t(ref.index);
  Vec3<T> n[3];
  if (normals_active(scene, P, s)) {
    // The normals block differentiated: its entries normalized as build_geometry does (so that
    // the values are the float pass's, bit for bit: its decisions hold in the replay).
    const TransformT<T> t = lift_transform(P, s.transform);
    for (int k = 0; k < 3; ++k) n[k] = transform_normal(t, unit_normal(P.vec3(m.normals + Slot(3 * m.indices[base + size_t(k)]))));
  } else if (transform_active(P, s.transform)) {
    const TransformT<T> t = lift_transform(P, s.transform);
    for (int k = 0; k < 3; ++k) n[k] = transform_normal(t, Vec3<T>(Vec3<float>(m.object_normals[base + size_t(k)])));
  } else {
    for (int k = 0; k < 3; ++k) n[k] = Vec3<T>(Vec3<float>(scene.world_normal(s, base + size_t(k))));
  }
  const Vec3<T> ns = n[0] * (T(1.f) - u - v) + n[1] * u + n[2] * v;
  const T len = length(ns);
  if (!(value(len) > 0.f)) return ng;
  return ns / len;
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

// The texture coordinates of the corners of mesh face ref (3), or null: not a mesh's, or a mesh
// without them.
inline const glm::vec2* face_uvs(const Scene& scene, const PrimRef& ref) {
  const Shape& s = scene.shapes[ref.shape];
  if (s.kind != Shape::Kind::mesh || scene.meshes[s.mesh].corner_uvs.empty()) return nullptr;
  return &scene.meshes[s.mesh].corner_uvs[3 * size_t(ref.index)];
}

// What a mesh_attribute texture reads at barycentrics b of BVH primitive ref: its mesh's
// attributes, the triangle and its vertices (nothing off meshes, or on meshes without attributes).
inline AttributeSite attribute_site(const Scene& scene, const PrimRef& ref, glm::vec2 b) {
  const Shape& s = scene.shapes[ref.shape];
  if (s.kind != Shape::Kind::mesh || scene.meshes[s.mesh].attributes.empty()) return {};
  const Mesh& m = scene.meshes[s.mesh];
  AttributeSite out;
  out.attributes = m.attributes.data();
  out.count = m.attributes.size();
  out.face = ref.index;
  for (int k = 0; k < 3; ++k) out.v[k] = m.indices[3 * size_t(ref.index) + size_t(k)];
  out.b = b;
  return out;
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
  const PrimRef ref = scene.bvh.prim_ref(prim);
  const Shape& s = scene.shapes[ref.shape];
  if (s.kind == Shape::Kind::sdf || !prim_coords(pf, p, c)) return glm::vec2(0.f);
  if (s.kind == Shape::Kind::sphere) return Sphere::uv(s.rotation, c);
  if (site) *site = attribute_site(scene, ref, c.uv);
  if (s.kind == Shape::Kind::quad) return Rectangle::uv(c);
  return MeshShape::uv(face_uvs(scene, ref), c);
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
    auto moved = [&](const T& u, const T& v) {
      TexCoord<T> out(at, u, v);
      out.site = fixed_coord.site;
      return out;
    };
    // Nothing moves (an appearance pass, most hits): the float coordinates, with no work in T.
    const PrimRef ref = scene.bvh.prim_ref(prim);
    const Shape& s = scene.shapes[ref.shape];
    if (s.kind == Shape::Kind::sdf) return fixed_coord;  // no UV to slide
    using ad::is_constant;
    auto fixed = [](const Vec3<T>& v) { return is_constant(v.x) && is_constant(v.y) && is_constant(v.z); };
    if (fixed(p) && fixed(pt.a) && fixed(pt.b) && fixed(pt.c) && is_constant(pt.r)) return fixed_coord;
    T u, v;
    if (s.kind == Shape::Kind::sphere) {
      if (!Sphere::uv_moving(s.rotation, pt, p, at, u, v)) return fixed_coord;
      return moved(u, v);
    }
    // The point's coordinates (b1, b2) in the primitive's plane, by least squares, in T.
    T b1, b2;
    if (!MeshShape::plane_coords(pt, p, b1, b2)) return fixed_coord;
    MeshShape::uv(face_uvs(scene, ref), b1, b2, u, v);
    TexCoord<T> out = moved(u, v);
    out.b1 = b1;
    out.b2 = b2;
    return out;
  }
}

// A point on the primitive from two uniform numbers, uniform in area.
template <class T>
SurfacePoint<T> sample_prim(const PrimT<T>& prim, float u1, float u2) {
  return with_shape_type(prim.kind, [&]<class S>() { return S::sample(prim, u1, u2); });
}

}  // namespace dray
