#pragma once
// Mitsuba 3's meshes (obj, ply, serialized; dray's disk, cube and cylinder are tessellated into
// one): triangles a + b1 e1 + b2 e2, whose UV is the corners' texture coordinates interpolated at
// the barycentrics (b1, b2), or without them (b1, b2) itself; dp/du and dp/dv from the corners'
// UV (Mitsuba's src/render/mesh.cpp before its 2026-07 rewrite), without them the Duff basis.
#include <algorithm>
#include <array>
#include <string_view>
#include <cmath>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec4.hpp>

#include "renderer/core/frame.h"
#include "renderer/core/transform.h"
#include "renderer/shapes/displacement.h"
#include "renderer/shapes/mesh_normals.h"
#include "renderer/shapes/mitsuba_shape.h"
#include "renderer/shapes/planar.h"

namespace dray {

// An edge of a triangle mesh: its vertices (v0 < v1) and the faces on either side.
struct MeshEdge {
  static constexpr uint32_t kOpen = UINT32_MAX;
  uint32_t v0, v1, f0, f1;  // f1 = kOpen: an open (or non-manifold) edge
};

// A triangle mesh in world space. Mesh transforms are parameters; the world-space
// positions are recomputed from them by Scene::build_geometry().
struct Mesh {
  // Object-space positions; with `vertices`, a copy of that parameter block's values (V×3), which
  // build_geometry() refreshes.
  std::vector<glm::vec3> object_positions;
  Slot vertices = kNoSlot;  // shapes.NAME.vertices: the positions as a parameter block
  std::vector<glm::vec3> world_positions;
  std::vector<uint32_t> indices;          // 3 per triangle
  std::vector<uint32_t> face_materials;   // one material index per triangle
  // Shading normals, 3 per triangle (one per corner), unit; empty: flat shading (face normals).
  std::vector<glm::vec3> object_normals;
  std::vector<glm::vec3> world_normals;   // rotated by the transform (build_geometry)
  // shapes.NAME.normals: the shading normals per vertex (V×3, Mitsuba's `normals`) as a parameter
  // block, where every vertex has one normal at all its corners; kNoSlot otherwise. The corner
  // normals above are its entries, normalized (build_geometry).
  Slot normals = kNoSlot;
  // The faces around each vertex, where smooth normals follow a vertex block (place_mesh recomputes
  // them, and its normals block, where the vertices move): a pass moving the vertices turns the
  // normals with them (mesh_normals.h), unless it seeds the normals block itself.
  VertexRings rings;
  // A texture displacing the loaded positions (displacement.h), which object_positions then hold
  // displaced (place_mesh); such a mesh has no vertex or normals block.
  std::optional<MeshDisplacement> displacement;
  bool normals_follow_vertices() const { return (vertices != kNoSlot || displacement) && !object_normals.empty(); }
  // Texture coordinates, 3 per triangle (OBJ `vt`); empty: the barycentric (b1, b2), as Mitsuba.
  std::vector<glm::vec2> corner_uvs;
  std::vector<MeshEdge> edges;            // topology, for silhouettes (built with the geometry)
  std::vector<MeshAttribute> attributes;  // a PLY file's vertex_* and face_* properties
};


// Its topology (mesh.cpp): the edges with their faces (open edges and edges of more than
// two faces: f1 = kOpen), for silhouettes; and the edges that bound one face only, its vertices
// welded by position (an OBJ's corners with distinct normals or UVs are distinct vertices of one
// surface): a medium inside must be closed.
std::vector<MeshEdge> mesh_edges(const Mesh& mesh);
size_t open_edges(const Mesh& mesh);
// Places the mesh at the parameters' values (mesh.cpp): its vertex block's positions or its
// displaced ones (`textures`: the scene's; smooth normals recomputed where they moved), its normals
// block, and its world positions and normals under the transform.
void place_mesh(Mesh& m, ParamTable& params, const Transform& transform, const Texture* textures);

// The key (ParamView::lifted) of shape `shape`'s world-space vertex positions, lifted once per
// reverse pass where it moves (renderer/integrators/pass_lift.h): 3 entries per vertex.
inline Slot world_positions_key(uint32_t shape) { return kNoSlot - (2u << 24) - shape; }

struct MeshShape : Planar<false> {
  static constexpr uint32_t kKind = 0;  // its place in shape.h's list
  // dray's disk, cylinder and cube: Mitsuba's, tessellated; its grid: Mitsuba's rectangle, tessellated;
  // Mitsuba's curves, tessellated (shapes/curve_mesh.h). Read with their files by the loader
  // (io/shape_reader.cpp), which reads mesh formats.
  static constexpr std::array<std::string_view, 7> kPlugins{"mesh", "disk", "cylinder", "cube", "grid", "linearcurve", "bsplinecurve"};
  static constexpr std::array<MitsubaShape, 8> kMitsuba{{{"obj", "mesh", MitsubaPlacing::mesh_file},
                                                          {"ply", "mesh", MitsubaPlacing::mesh_file},
                                                          {"serialized", "mesh", MitsubaPlacing::mesh_file},
                                                          {"cube", "cube", MitsubaPlacing::unit_mesh},
                                                          {"disk", "disk", MitsubaPlacing::unit_mesh, true},
                                                          {"cylinder", "cylinder", MitsubaPlacing::axis, true},
                                                          {"linearcurve", "linearcurve", MitsubaPlacing::curve_file},
                                                          {"bsplinecurve", "bsplinecurve", MitsubaPlacing::curve_file}}};
  uint32_t mesh = 0;    // index into Scene::meshes (an instance's members share their group's)
  Transform transform;  // its parameters (an instance's, for a group member)

  // Whether its vertices move in this pass: an element of its vertex block, or a value of its
  // displacing texture, is seeded.
  template <class SceneT, class T>
  bool vertices_active(const SceneT& scene, const ParamView<T>& P) const {
    const Mesh& m = scene.meshes[mesh];
    if (m.displacement) return texture_seeded(scene.textures[size_t(m.displacement->texture)], P);
    return P.active(m.vertices, uint32_t(3 * m.object_positions.size()));
  }
  // Whether it moves in this pass: its transform or its vertices are seeded.
  template <class SceneT, class T>
  bool moving(const SceneT& scene, const ParamView<T>& P) const {
    return transform_active(P, transform) || vertices_active(scene, P);
  }
  // Whether its shading normals block is seeded in this pass (they turn, not move).
  template <class SceneT, class T>
  bool normals_active(const SceneT& scene, const ParamView<T>& P) const {
    const Mesh& m = scene.meshes[mesh];
    return m.normals != kNoSlot && P.active(m.normals, uint32_t(3 * m.object_positions.size()));
  }
  // Whether it moves or turns in this pass.
  template <class SceneT, class T>
  bool seeded(const SceneT& scene, const ParamView<T>& P) const {
    return moving(scene, P) || normals_active(scene, P);
  }
  // Edges bounding one face only.
  template <class SceneT>
  size_t open_edges(const SceneT& scene) const {
    return dray::open_edges(scene.meshes[mesh]);
  }
  // What an optimization step may not do to its parameters: nothing their domains allow.
  std::optional<std::string> violation(const ParamTable&, const auto&) const { return std::nullopt; }
  // Its silhouette edges: every edge where the surface bends or ends (coplanar faces meet with
  // no discontinuity), as add(v0, v1, edge index); their vertices now, and in T.
  template <class SceneT, class ShapeT, class Add>
  void edges(const SceneT& scene, const ShapeT& s, Add&& add) const {
    const Mesh& m = scene.meshes[mesh];
    for (uint32_t i = 0; i < m.edges.size(); ++i) {
      const MeshEdge& edge = m.edges[i];
      if (edge.f1 != MeshEdge::kOpen && glm::dot(face_normal(scene, s, edge.f0), face_normal(scene, s, edge.f1)) > 1.f - 1e-6f)
        continue;
      add(edge.v0, edge.v1, i);
    }
  }
  template <class SceneT, class ShapeT>
  glm::vec3 edge_vertex(const SceneT& scene, const ShapeT& s, uint32_t v) const {
    return scene.world_vertex(s, v);
  }
  template <class SceneT, class T, class ShapeT>
  void edge_vertices(const SceneT& scene, const ParamView<T>& P, const ShapeT& s, uint32_t v0, uint32_t v1, Vec3<T>& p0,
                     Vec3<T>& p1) const {
    if (!moving(scene, P)) {
      p0 = Vec3<T>(scene.world_vertex(s, v0));
      p1 = Vec3<T>(scene.world_vertex(s, v1));
      return;
    }
    const TransformT<T> t = lift_transform(P, transform);  // once for both
    p0 = vertex(scene, P, t, v0);
    p1 = vertex(scene, P, t, v1);
  }
  // Face f's unit normal in world space, now.
  template <class SceneT, class ShapeT>
  glm::vec3 face_normal(const SceneT& scene, const ShapeT& s, uint32_t f) const {
    const std::vector<uint32_t>& idx = scene.meshes[mesh].indices;
    const glm::vec3 a = scene.world_vertex(s, idx[3 * size_t(f)]), b = scene.world_vertex(s, idx[3 * size_t(f) + 1]),
                    c = scene.world_vertex(s, idx[3 * size_t(f) + 2]);
    return glm::normalize(glm::cross(b - a, c - a));
  }
  // Whether it is smooth-shaded: its radiance is continuous across an edge both of whose faces a
  // point sees, and only its silhouettes from there (and open edges) are edges of the image.
  template <class SceneT>
  bool smooth(const SceneT& scene) const { return !scene.meshes[mesh].object_normals.empty(); }
  // Whether edge i is a silhouette seen from `from` (homogeneous: a point, or a direction toward
  // it): its faces face opposite ways from there (an open edge always is).
  template <class SceneT, class ShapeT>
  bool silhouette_from(const SceneT& scene, const ShapeT& s, uint32_t i, const glm::vec4& from) const {
    const MeshEdge& edge = scene.meshes[mesh].edges[i];
    if (edge.f1 == MeshEdge::kOpen) return true;
    const glm::vec3 to = glm::vec3(from) - scene.world_vertex(s, edge.v0) * from.w;
    return (glm::dot(face_normal(scene, s, edge.f0), to) > 0.f) != (glm::dot(face_normal(scene, s, edge.f1), to) > 0.f);
  }
  // Whether some point of the ball (centre xyz, radius w) sees edge i as a silhouette. Each face's
  // signed distance to the ball's points spans d ± r: the faces can disagree on the side a point
  // lies on only where both spans do not lie on one side of 0. A margin of 10^-4 of the reach keeps
  // rounding from culling an edge a point of the ball grazes.
  template <class SceneT, class ShapeT>
  bool silhouette_from_ball(const SceneT& scene, const ShapeT& s, uint32_t i, const glm::vec4& ball) const {
    const MeshEdge& edge = scene.meshes[mesh].edges[i];
    if (edge.f1 == MeshEdge::kOpen) return true;
    const glm::vec3 to = glm::vec3(ball) - scene.world_vertex(s, edge.v0);
    const float r = ball.w * 1.0001f + 1e-4f * glm::length(to);
    const float d0 = glm::dot(face_normal(scene, s, edge.f0), to), d1 = glm::dot(face_normal(scene, s, edge.f1), to);
    return !((d0 > r && d1 > r) || (d0 < -r && d1 < -r));
  }
  // The directions from infinitely far from which edge i is a silhouette form a lune between the
  // great circles normal to its faces' normals n0 and n1: its half-width, the angle between them
  // (an open edge's: π, every direction).
  template <class SceneT, class ShapeT>
  float silhouette_lune(const SceneT& scene, const ShapeT& s, uint32_t i, glm::vec3& n0, glm::vec3& n1) const {
    const MeshEdge& edge = scene.meshes[mesh].edges[i];
    if (edge.f1 == MeshEdge::kOpen) return kPi;
    n0 = face_normal(scene, s, edge.f0);
    n1 = face_normal(scene, s, edge.f1);
    return std::acos(std::clamp(glm::dot(n0, n1), -1.f, 1.f));
  }

  // Whether the parameter at `slot` moves it (its transform; the vertex blocks are the scene's).
  bool places(Slot slot) const { return transform.holds(slot); }
  // Whether the parameter at `slot` moves its vertices: an element of its vertex block, or a value
  // of its displacing texture.
  template <class SceneT>
  bool moves_vertices(const SceneT& scene, Slot slot) const {
    const Mesh& m = scene.meshes[mesh];
    if (m.displacement) return texture_holds(scene.textures[size_t(m.displacement->texture)], slot);
    return in_block(slot, m.vertices, uint32_t(3 * m.object_positions.size()));
  }
  // Its triangles, placed at the parameters' values (an instance's member: traced through its
  // group), and its topology, built once.
  template <class SceneT, class ShapeT>
  void add_prims(SceneT& scene, const ShapeT& s, uint32_t si, std::vector<PrimRef>& refs, std::vector<PrimGeom>& geoms) const {
    Mesh& m = scene.meshes[mesh];
    if (m.edges.empty()) m.edges = mesh_edges(m);
    if (s.instance >= 0) return;
    place_mesh(m, scene.params, transform, scene.textures.data());
    for (uint32_t f = 0; f < m.indices.size() / 3; ++f) {
      const glm::vec3 v0 = m.world_positions[m.indices[3 * f]], v1 = m.world_positions[m.indices[3 * f + 1]],
                      v2 = m.world_positions[m.indices[3 * f + 2]];
      refs.push_back({si, f});
      geoms.push_back({Vec3<float>(v0), Vec3<float>(v1 - v0), Vec3<float>(v2 - v0), kKind});
    }
  }
  // A ball holding it (centre xyz, radius w): around its vertices in world space.
  template <class SceneT>
  glm::vec4 bounding_ball(const SceneT& scene) const {
    return ball_around(scene.meshes[mesh].world_positions);
  }
  // Vertex v in object space, in T: displaced by its texture, or read from the vertex block (seeded
  // or constant).
  template <class SceneT, class T>
  Vec3<T> object_vertex(const SceneT& scene, const ParamView<T>& P, uint32_t v) const {
    const Mesh& m = scene.meshes[mesh];
    if (m.displacement) {
      if constexpr (ad::is_differentiable_v<T>)  // lifted once per pass (integrators/displaced_lift.h)
        if (const LiftedBlock* b = P.lifted(displaced_positions_key(mesh)))
          return {P.lifted_input(*b, int(3 * v)), P.lifted_input(*b, int(3 * v + 1)), P.lifted_input(*b, int(3 * v + 2))};
      return displaced_position(*m.displacement, scene.textures.data(), P, v);
    }
    return m.vertices == kNoSlot ? Vec3<T>(Vec3<float>(m.object_positions[v])) : P.vec3(m.vertices + 3 * v);
  }
  // Vertex v in world space, in T, under the lifted transform t.
  template <class SceneT, class T>
  Vec3<T> vertex(const SceneT& scene, const ParamView<T>& P, const TransformT<T>& t, uint32_t v) const {
    return transform_point(t, object_vertex(scene, P, v));
  }

  // Face ref.index of BVH primitive `prim` in T: the float triangle, or where the transform or
  // the vertices are being differentiated, the triangle following them.
  template <class SceneT, class T, class ShapeT>
  PrimT<T> lift(const SceneT& scene, const ParamView<T>& P, const ShapeT&, const PrimRef& ref, uint32_t prim) const {
    const PrimGeom g = scene.bvh.prim_geom(prim);
    if (!moving(scene, P)) return {kKind, Vec3<T>(g.a), Vec3<T>(g.b), Vec3<T>(g.c), T(0)};
    const uint32_t* tri = &scene.meshes[mesh].indices[3 * size_t(ref.index)];
    Vec3<T> v[3];
    if constexpr (ad::is_differentiable_v<T>)  // its world positions lifted once per pass
      if (const LiftedBlock* b = P.lifted(world_positions_key(ref.shape))) {
        for (int k = 0; k < 3; ++k) {
          const int at = int(3 * tri[k]);
          v[k] = {P.lifted_input(*b, at), P.lifted_input(*b, at + 1), P.lifted_input(*b, at + 2)};
        }
        return {kKind, v[0], v[1] - v[0], v[2] - v[0], T(0)};
      }
    const TransformT<T> t = lift_transform(P, transform);
    for (int k = 0; k < 3; ++k) v[k] = vertex(scene, P, t, tri[k]);
    return {kKind, v[0], v[1] - v[0], v[2] - v[0], T(0)};
  }

  // The shading normal at p (in T) on face ref.index, lifted as pt, whose geometric normal is ng:
  // a smooth mesh's corner normals interpolated at p's barycentrics (following the transform when
  // it is being differentiated, so the normal turns with the mesh, and the normals block when that
  // is); a flat one's ng.
  template <class SceneT, class T, class ShapeT>
  Vec3<T> shading_normal(const SceneT& scene, const ParamView<T>& P, const ShapeT& s, const PrimRef& ref,
                         const PrimT<T>& pt, const Vec3<T>& p, const Vec3<T>& ng) const {
    const Mesh& m = scene.meshes[mesh];
    if (m.object_normals.empty()) return ng;
    T u, v;
    if (!plane_coords(pt, p, u, v)) return ng;
    const size_t base = 3 * size_t(ref.index);
    Vec3<T> n[3];
    if (normals_active(scene, P)) {
      // The normals block differentiated: its entries normalized as build_geometry does (so that
      // the values are the float pass's, bit for bit: its decisions hold in the replay).
      const TransformT<T> t = lift_transform(P, transform);
      for (int k = 0; k < 3; ++k) n[k] = transform_normal(t, unit_normal(P.vec3(m.normals + Slot(3 * m.indices[base + size_t(k)]))));
    } else if (m.normals_follow_vertices() && vertices_active(scene, P)) {
      // Smooth normals turning with the moving vertices as place_mesh recomputes them (the ring
      // formula's derivative), at the placed normals' values (the float pass's, bit for bit, be
      // they computed, read from the file or from the normals block).
      const TransformT<T> t = lift_transform(P, transform);
      if constexpr (ad::is_differentiable_v<T>)  // a displaced mesh's: lifted once per pass (integrators/displaced_lift.h)
        if (const LiftedBlock* b = P.lifted(displaced_normals_key(mesh))) {
          for (int k = 0; k < 3; ++k) {
            const int corner = int(m.indices[base + size_t(k)]);
            const Vec3<T> ring(P.lifted_input(*b, 3 * corner), P.lifted_input(*b, 3 * corner + 1),
                               P.lifted_input(*b, 3 * corner + 2));
            const Vec3<T> placed(Vec3<float>(m.object_normals[base + size_t(k)]));
            n[k] = transform_normal(t, ring - Vec3<T>(Vec3<float>(value(ring))) + placed);
          }
          return interpolated_normal(n, u, v, ng);
        }
      auto read = [&](uint32_t i) { return object_vertex(scene, P, i); };
      PositionCache<T, decltype(read)> position(read);
      Vec3<T> face(T(0.f), T(0.f), T(0.f));
      face_unit_normal<T>(m.indices, ref.index, position, face);
      for (int k = 0; k < 3; ++k) {
        const uint32_t v = m.indices[base + size_t(k)];
        const Vec3<T> ring = vertex_normal<T>(m.indices, v, m.rings.of(v), position, face);
        const Vec3<T> placed(Vec3<float>(m.object_normals[base + size_t(k)]));
        n[k] = transform_normal(t, ring - Vec3<T>(Vec3<float>(value(ring))) + placed);
      }
    } else if (transform_active(P, transform)) {
      const TransformT<T> t = lift_transform(P, transform);
      for (int k = 0; k < 3; ++k) n[k] = transform_normal(t, Vec3<T>(Vec3<float>(m.object_normals[base + size_t(k)])));
    } else {
      for (int k = 0; k < 3; ++k) n[k] = Vec3<T>(Vec3<float>(scene.world_normal(s, base + size_t(k))));
    }
    return interpolated_normal(n, u, v, ng);
  }
  // The corner normals n interpolated at barycentrics (u, v) and normalized; ng where that is zero.
  template <class T>
  static Vec3<T> interpolated_normal(const Vec3<T> (&n)[3], const T& u, const T& v, const Vec3<T>& ng) {
    const Vec3<T> ns = n[0] * (T(1.f) - u - v) + n[1] * u + n[2] * v;
    const T len = length(ns);
    if (!(value(len) > 0.f)) return ng;
    return ns / len;
  }

  // The texture coordinates of face f's corners (3), or null: the mesh has none.
  template <class SceneT>
  const glm::vec2* face_uvs(const SceneT& scene, uint32_t f) const {
    const Mesh& m = scene.meshes[mesh];
    return m.corner_uvs.empty() ? nullptr : &m.corner_uvs[3 * size_t(f)];
  }
  // What a mesh_attribute texture reads at barycentrics b of face f: the mesh's attributes, the
  // face and its vertices (nothing on a mesh without attributes).
  template <class SceneT>
  AttributeSite attribute_site(const SceneT& scene, uint32_t f, glm::vec2 b) const {
    const Mesh& m = scene.meshes[mesh];
    if (m.attributes.empty()) return {};
    AttributeSite out;
    out.attributes = m.attributes.data();
    out.count = m.attributes.size();
    out.face = f;
    for (int k = 0; k < 3; ++k) out.v[k] = m.indices[3 * size_t(f) + size_t(k)];
    out.b = b;
    return out;
  }

  // The UV of material point c on face ref.index: its corners' texture coordinates interpolated
  // at the barycentrics, else the barycentrics; `site`, when given, receives its attributes.
  template <class SceneT>
  glm::vec2 uv(const SceneT& scene, const PrimRef& ref, const PrimCoords& c, AttributeSite* site) const {
    if (site) *site = attribute_site(scene, ref.index, c.uv);
    const glm::vec2* t = face_uvs(scene, ref.index);
    if (!t) return c.uv;
    return t[0] * (1.f - c.uv.x - c.uv.y) + t[1] * c.uv.x + t[2] * c.uv.y;
  }
  // The UV (and barycentrics) of point p in T where the face slides under it; false for a
  // degenerate face.
  template <class SceneT, class T>
  bool moving_uv(const SceneT& scene, const PrimRef& ref, const PrimT<T>& pt, const Vec3<T>& p, TexCoord<T>& out) const {
    return plane_uv(pt, p, face_uvs(scene, ref.index), out);
  }
  // dp/du and dp/dv of face ref.index (edges pt.b, pt.c) of geometric normal ng.
  template <class SceneT, class T>
  void derivatives(const SceneT& scene, const PrimRef& ref, const PrimT<T>& pt, const Vec3<T>&, const Vec3<T>& ng,
                   Vec3<T>& dp_du, Vec3<T>& dp_dv) const {
    basis(ng, dp_du, dp_dv);
    const glm::vec2* t = face_uvs(scene, ref.index);
    if (!t) return;
    const glm::vec2 d0 = t[1] - t[0], d1 = t[2] - t[0];
    const float det = d0.x * d1.y - d0.y * d1.x;
    if (det == 0.f) return;
    dp_du = (pt.b * T(d1.y) - pt.c * T(d0.y)) * T(1.f / det);
    dp_dv = (pt.c * T(d0.x) - pt.b * T(d1.x)) * T(1.f / det);
  }
};

}  // namespace dray
