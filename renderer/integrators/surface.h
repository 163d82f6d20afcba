#pragma once
// A BVH primitive lifted to the kernel's scalar type: its geometry read from the parameter
// table, the differentiable re-evaluation of a hit found in float, and points sampled on it.
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

#include "renderer/sensors/camera.h"
#include "renderer/accel/intersect.h"
#include "renderer/scene.h"
#include "renderer/core/transform.h"
#include "renderer/integrators/surface_voxel.h"

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

template <class T>
PrimT<T> lift_prim(const Scene& scene, const ParamView<T>& P, uint32_t prim) {
  const PrimRef ref = scene.bvh.prim_ref(prim);
  const Shape& s = scene.shapes[ref.shape];
  switch (s.kind) {
    case Shape::Kind::sphere:
      return {PrimGeom::sphere, P.vec3(s.a), {}, {}, P.scalar(s.b)};
    case Shape::Kind::quad:
      return {PrimGeom::quad, P.vec3(s.a), P.vec3(s.b), P.vec3(s.c), T(0)};
    case Shape::Kind::sdf: {  // the grid as placed in world space (an instance's copy, for a group member)
      uint32_t voxel = 0;
      PrimT<T> out{PrimGeom::voxel, {}, {}, {}, T(0), sdf_voxel_grid(scene.bvh.prim_geom(prim), voxel)};
      out.moving = sdf_world_map(scene, P, s, out.a, out.b, out.c, out.d);
      return out;
    }
    case Shape::Kind::mesh: break;
  }
  const PrimGeom g = scene.bvh.prim_geom(prim);
  if (!mesh_active(scene, P, s)) return {PrimGeom::triangle, Vec3<T>(g.a), Vec3<T>(g.b), Vec3<T>(g.c), T(0)};
  // The transform or the vertices are being differentiated: the triangle follows them, in T.
  const uint32_t* tri = &scene.meshes[s.mesh].indices[3 * size_t(ref.index)];
  const TransformT<T> t = lift_transform(P, s.transform);
  Vec3<T> v[3];
  for (int k = 0; k < 3; ++k) v[k] = mesh_vertex(scene, P, s, t, tri[k]);
  return {PrimGeom::triangle, v[0], v[1] - v[0], v[2] - v[0], T(0)};
}

template <class T>
T prim_area(const PrimT<T>& p) {
  if (p.kind == PrimGeom::sphere) return T(4.f * kPi) * p.r * p.r;
  if (p.kind == PrimGeom::voxel) return T(0.f);  // never an emitter (Mitsuba's surface_area: 0)
  T parallelogram = length(cross(p.b, p.c));
  return p.kind == PrimGeom::quad ? parallelogram : T(0.5f) * parallelogram;
}

template <class T>
Vec3<T> prim_normal(const PrimT<T>& prim, const Vec3<T>& p) {
  if (prim.kind == PrimGeom::sphere) return (p - prim.a) / prim.r;
  if (prim.kind == PrimGeom::voxel) return voxel_normal(prim, p);
  return normalize(cross(prim.b, prim.c));
}

// Re-evaluates, in T, the hit the float traversal found: the same primitive, the same root.
// In float the traversal's distance is already this value (same function, same inputs), so only
// derivative-carrying types intersect again.
template <class T>
SurfacePoint<T> eval_hit(const PrimT<T>& prim, const RayT<T>& ray, const Hit& hit, float t_min) {
  PrimHit<T> h{T(hit.t), T(0), T(0)};
  if (prim.kind == PrimGeom::voxel) return eval_voxel_hit(prim, ray, hit);
  if constexpr (ad::is_differentiable_v<T>) {
    bool ok = prim.kind == PrimGeom::sphere
                  ? intersect_sphere(ray.o, ray.d, prim.a, prim.r, t_min, INFINITY, h)
                  : intersect_triangle(ray.o, ray.d, prim.a, prim.b, prim.c, t_min, INFINITY, h,
                                       prim.kind == PrimGeom::quad);
    // A hit exactly on an edge can fail the re-test in T by rounding; keep the float distance.
    if (!ok) h.t = T(hit.t);
  }
  Vec3<T> p = ray.o + ray.d * h.t;
  return {p, prim_normal(prim, p)};
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
  if (s.kind == Shape::Kind::sdf) return voxel_shading_normal(pt, p, ng);
  if (s.kind != Shape::Kind::mesh) return ng;
  const Mesh& m = scene.meshes[s.mesh];
  if (m.object_normals.empty()) return ng;
  const Vec3<T> rel = p - pt.a;
  const T bb = dot(pt.b, pt.b), bc = dot(pt.b, pt.c), cc = dot(pt.c, pt.c), det = bb * cc - bc * bc;
  if (!(value(det) > 0.f)) return ng;
  const T rb = dot(rel, pt.b), rc = dot(rel, pt.c);
  const T u = (rb * cc - rc * bc) / det, v = (rc * bb - rb * bc) / det;
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

// A material point of a primitive: surface coordinates that stay with the surface when its
// parameters move (a triangle's or quad's a + u b + v c; a sphere's direction from its centre; a
// voxel's world point at the grid's current placement, taken to object space when it moves).
// A sphere's direction w (world) in its frame (Shape::rotation R: Rᵀ w), and back (R v).
template <class T>
Vec3<T> sphere_local(const glm::mat3& r, const Vec3<T>& w) {
  auto row = [&](int i) { return w.x * T(r[i][0]) + w.y * T(r[i][1]) + w.z * T(r[i][2]); };
  return {row(0), row(1), row(2)};
}
template <class T>
Vec3<T> sphere_world(const glm::mat3& r, const Vec3<T>& v) {
  auto row = [&](int j) { return v.x * T(r[0][j]) + v.y * T(r[1][j]) + v.z * T(r[2][j]); };
  return {row(0), row(1), row(2)};
}

struct PrimCoords {
  glm::vec2 uv{0.f};
  glm::vec3 omega{0.f};
};

// The coordinates of the float point p on the primitive (least squares in its plane). False for
// a degenerate primitive.
inline bool prim_coords(const PrimT<float>& prim, const glm::vec3& p, PrimCoords& out) {
  if (prim.kind == PrimGeom::sphere) {
    out.omega = (p - to_glm(prim.a)) / prim.r;
    return prim.r > 0.f;
  }
  if (prim.kind == PrimGeom::voxel) {
    out.omega = p;
    return true;
  }
  const glm::vec3 rel = p - to_glm(prim.a), eb = to_glm(prim.b), ec = to_glm(prim.c);
  const float bb = glm::dot(eb, eb), bc = glm::dot(eb, ec), cc = glm::dot(ec, ec), det = bb * cc - bc * bc;
  if (!(det > 0.f)) return false;
  const float rb = glm::dot(rel, eb), rc = glm::dot(rel, ec);
  out.uv = {(rb * cc - rc * bc) / det, (rc * bb - rb * bc) / det};
  return true;
}

// The material point with coordinates c, in T: it moves with the primitive.
template <class T>
Vec3<T> prim_point(const PrimT<T>& prim, const PrimCoords& c) {
  if (prim.kind == PrimGeom::voxel)  // the point in the grid's object space, moved with its map
    return prim.moving ? voxel_to_world(prim, Vec3<T>(sdf_detail::to_object(*prim.sdf, Vec3<float>(c.omega)))) : Vec3<T>(c.omega);
  return prim.kind == PrimGeom::sphere ? prim.a + Vec3<T>(c.omega) * prim.r
                                       : prim.a + prim.b * T(c.uv.x) + prim.c * T(c.uv.y);
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
  if (pf.kind == PrimGeom::voxel || !prim_coords(pf, p, c)) return glm::vec2(0.f);
  if (pf.kind == PrimGeom::sphere) {
    const glm::vec3 w = glm::transpose(scene.shapes[scene.bvh.prim_ref(prim).shape].rotation) * c.omega;
    float u = std::atan2(w.y, w.x) * (0.5f / kPi);
    if (u < 0.f) u += 1.f;
    return {u, std::acos(std::clamp(w.z, -1.f, 1.f)) / kPi};
  }
  const PrimRef ref = scene.bvh.prim_ref(prim);
  if (site) *site = attribute_site(scene, ref, c.uv);
  const Shape& s = scene.shapes[ref.shape];
  if (s.kind != Shape::Kind::mesh || scene.meshes[s.mesh].corner_uvs.empty()) return c.uv;
  const glm::vec2* t = &scene.meshes[s.mesh].corner_uvs[3 * size_t(ref.index)];
  return t[0] * (1.f - c.uv.x - c.uv.y) + t[1] * c.uv.x + t[2] * c.uv.y;
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
    if (pt.kind == PrimGeom::voxel) return fixed_coord;  // no UV to slide
    using ad::is_constant;
    auto fixed = [](const Vec3<T>& v) { return is_constant(v.x) && is_constant(v.y) && is_constant(v.z); };
    if (fixed(p) && fixed(pt.a) && fixed(pt.b) && fixed(pt.c) && is_constant(pt.r)) return fixed_coord;
    const T inv_2pi(0.5f / kPi), inv_pi(1.f / kPi);
    if (pt.kind == PrimGeom::sphere) {
      // (atan2(ω.y, ω.x) / 2π, acos(ω.z) / π) in the sphere's frame, to first order about the float value.
      const Vec3<T> w = sphere_local(scene.shapes[scene.bvh.prim_ref(prim).shape].rotation, (p - pt.a) / pt.r);
      const glm::vec3 wf = value(w);
      const float rxy2 = wf.x * wf.x + wf.y * wf.y;
      if (!(rxy2 > 0.f)) return fixed_coord;
      const T du = (T(wf.x) * (w.y - T(wf.y)) - T(wf.y) * (w.x - T(wf.x))) * T(1.f / rxy2) * inv_2pi;
      const T dv = -(w.z - T(wf.z)) * T(1.f / std::sqrt(rxy2)) * inv_pi;
      return moved(T(at.x) + du, T(at.y) + dv);
    }
    // The point's coordinates (b1, b2) in the primitive's plane, by least squares, in T.
    const Vec3<T> rel = p - pt.a;
    const T bb = dot(pt.b, pt.b), bc = dot(pt.b, pt.c), cc = dot(pt.c, pt.c), det = bb * cc - bc * bc;
    if (!(value(det) > 0.f)) return fixed_coord;
    const T rb = dot(rel, pt.b), rc = dot(rel, pt.c);
    const T b1 = (rb * cc - rc * bc) / det, b2 = (rc * bb - rb * bc) / det;
    const PrimRef ref = scene.bvh.prim_ref(prim);
    const Shape& s = scene.shapes[ref.shape];
    TexCoord<T> out;
    if (s.kind != Shape::Kind::mesh || scene.meshes[s.mesh].corner_uvs.empty()) {
      out = moved(b1, b2);
    } else {
      const glm::vec2* t = &scene.meshes[s.mesh].corner_uvs[3 * size_t(ref.index)];
      const T b0 = T(1.f) - b1 - b2;
      out = moved(b0 * T(t[0].x) + b1 * T(t[1].x) + b2 * T(t[2].x), b0 * T(t[0].y) + b1 * T(t[1].y) + b2 * T(t[2].y));
    }
    out.b1 = b1;
    out.b2 = b2;
    return out;
  }
}

// A point on the primitive from two uniform numbers, uniform in area.
template <class T>
SurfacePoint<T> sample_prim(const PrimT<T>& prim, float u1, float u2) {
  using std::sqrt;
  if (prim.kind == PrimGeom::sphere) {
    float z = 1.f - 2.f * u1, rxy = sqrt(std::max(0.f, 1.f - z * z)), phi = 2.f * kPi * u2;
    Vec3<T> dir(T(rxy * std::cos(phi)), T(rxy * std::sin(phi)), T(z));
    return {prim.a + dir * prim.r, dir};
  }
  Vec3<T> p;
  if (prim.kind == PrimGeom::quad) {
    p = prim.a + prim.b * T(u1) + prim.c * T(u2);
  } else {
    float su = sqrt(u1);  // uniform barycentrics (Shirley & Chiu)
    p = prim.a + prim.b * T(su * (1.f - u2)) + prim.c * T(su * u2);
  }
  return {p, prim_normal(prim, p)};
}

}  // namespace dray
