#pragma once
// Mitsuba 3's rectangle (src/shapes/rectangle.cpp; dray's `quad`): the parallelogram corner + u
// edge_u + v edge_v, u and v in [0, 1], its UV (u, v) and dp/du, dp/dv its edges.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include <glm/geometric.hpp>

#include "renderer/core/props.h"
#include "renderer/shapes/mitsuba_shape.h"
#include "renderer/shapes/planar.h"
#include "renderer/shapes/triangle_mesh.h"

namespace dray {

struct Rectangle : Planar<true> {
  static constexpr uint32_t kKind = 1;  // its place in shape.h's list
  static constexpr std::array<std::string_view, 1> kPlugins{"quad"};
  static constexpr std::array<MitsubaShape, 1> kMitsuba{{{"rectangle", "quad", MitsubaPlacing::quad, true}}};
  Slot corner = kNoSlot, edge_u = kNoSlot, edge_v = kNoSlot;

  // Its keys (Mitsuba's default: [-1, 1]² in the z = 0 plane, facing +z), parameters
  // shapes.NAME.corner, .edge_u, .edge_v.
  static Rectangle read(Props& p) {
    p.keys({"corner", "edge_u", "edge_v"}, {"material"});
    const glm::vec3 side_u = p.vec3_or("edge_u", glm::vec3(2, 0, 0)), side_v = p.vec3_or("edge_v", glm::vec3(0, 2, 0));
    if (!(glm::length(glm::cross(side_u, side_v)) > 0.f)) p.fail("edge_v", "must not be parallel to edge_u (the quad has no area)");
    const glm::vec3 a = p.vec3_or("corner", glm::vec3(-1, -1, 0));
    Rectangle r;
    r.corner = p.param("corner", a);
    r.edge_u = p.param("edge_u", side_u);
    r.edge_v = p.param("edge_v", side_v);
    return r;
  }

  // A mesh over its surface at its values in `params` (a group's member): two triangles with its
  // own UV (u along edge_u, v along edge_v) and its flat normal.
  TriangleMesh tessellation(const ParamTable& params) const {
    const glm::vec3 a = params.get_vec3(corner), side_u = params.get_vec3(edge_u), side_v = params.get_vec3(edge_v);
    TriangleMesh m;
    m.positions = {a, a + side_u, a + side_u + side_v, a + side_v};
    m.indices = {0, 1, 2, 0, 2, 3};
    m.corner_uvs = {{0.f, 0.f}, {1.f, 0.f}, {1.f, 1.f}, {0.f, 0.f}, {1.f, 1.f}, {0.f, 1.f}};
    return m;
  }

  // Whether it moves in this pass.
  template <class SceneT, class T>
  bool seeded(const SceneT&, const ParamView<T>& P) const {
    return P.active(corner, 3) || P.active(edge_u, 3) || P.active(edge_v, 3);
  }
  // Edges bounding one face only: its four.
  template <class SceneT>
  size_t open_edges(const SceneT&) const {
    return 4;
  }
  // Its silhouette edges: its four sides, from corner k to k + 1 (corners 0 a, 1 a + u, 2 a + u + v,
  // 3 a + v), each an open edge (no mesh edge index); the corners now, and in T.
  template <class SceneT, class ShapeT, class Add>
  void edges(const SceneT&, const ShapeT&, Add&& add) const {
    for (uint32_t k = 0; k < 4; ++k) add(k, (k + 1) % 4, UINT32_MAX);
  }
  template <class SceneT, class ShapeT>
  glm::vec3 edge_vertex(const SceneT& scene, const ShapeT&, uint32_t k) const {
    const glm::vec3 a = scene.params.get_vec3(corner), u = scene.params.get_vec3(edge_u), v = scene.params.get_vec3(edge_v);
    const glm::vec3 corners[4] = {a, a + u, a + u + v, a + v};
    return corners[k];
  }
  template <class SceneT, class T, class ShapeT>
  void edge_vertices(const SceneT&, const ParamView<T>& P, const ShapeT&, uint32_t k0, uint32_t k1, Vec3<T>& p0,
                     Vec3<T>& p1) const {
    const Vec3<T> a = P.vec3(corner), u = P.vec3(edge_u), w = P.vec3(edge_v);
    const Vec3<T> corners[4] = {a, a + u, a + u + w, a + w};
    p0 = corners[k0];
    p1 = corners[k1];
  }

  // What an optimization step may not do to its parameters: give it no area, or corners past float range.
  std::optional<std::string> violation(const ParamTable& t, const auto& name_of) const {
    const glm::vec3 a = t.get_vec3(corner), u = t.get_vec3(edge_u), v = t.get_vec3(edge_v);
    if (!(glm::length(glm::cross(u, v)) > 0.f))
      return name_of(edge_v) + ": must not be parallel to " + name_of(edge_u) + " (the quad has no area)";
    if (!all_finite(a + u + v) || !all_finite(a + u) || !all_finite(a + v))
      return name_of(corner) + ": the quad's corners must be within float range (corner + edge_u + edge_v overflows)";
    return std::nullopt;
  }
  // Whether the parameter at `slot` moves it, and its one primitive.
  bool places(Slot slot) const {
    return in_block(slot, corner, 3) || in_block(slot, edge_u, 3) || in_block(slot, edge_v, 3);
  }
  template <class SceneT, class ShapeT>
  void add_prims(SceneT& scene, const ShapeT&, uint32_t si, std::vector<PrimRef>& refs, std::vector<PrimGeom>& geoms) const {
    refs.push_back({si, 0});
    geoms.push_back({Vec3<float>(scene.params.get_vec3(corner)), Vec3<float>(scene.params.get_vec3(edge_u)),
                     Vec3<float>(scene.params.get_vec3(edge_v)), kKind});
  }
  // A ball holding it (centre xyz, radius w): around its corners.
  template <class SceneT>
  glm::vec4 bounding_ball(const SceneT& scene) const {
    const glm::vec3 a = scene.params.get_vec3(corner), u = scene.params.get_vec3(edge_u), v = scene.params.get_vec3(edge_v);
    return ball_around(std::initializer_list<glm::vec3>{a, a + u, a + v, a + u + v});
  }
  template <class SceneT, class T, class ShapeT>
  PrimT<T> lift(const SceneT&, const ParamView<T>& P, const ShapeT&, const PrimRef&, uint32_t) const {
    return {kKind, P.vec3(corner), P.vec3(edge_u), P.vec3(edge_v), T(0)};
  }
  // Its UV is the material point's (u, v); dp/du and dp/dv its edges.
  template <class SceneT>
  glm::vec2 uv(const SceneT&, const PrimRef&, const PrimCoords& c, AttributeSite*) const {
    return c.uv;
  }
  template <class SceneT, class T>
  bool moving_uv(const SceneT&, const PrimRef&, const PrimT<T>& pt, const Vec3<T>& p, TexCoord<T>& out) const {
    return plane_uv(pt, p, nullptr, out);
  }
  template <class SceneT, class T>
  void derivatives(const SceneT&, const PrimRef&, const PrimT<T>& pt, const Vec3<T>&, const Vec3<T>&, Vec3<T>& dp_du,
                   Vec3<T>& dp_dv) const {
    dp_du = pt.b;
    dp_dv = pt.c;
  }
};

}  // namespace dray
