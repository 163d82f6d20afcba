#pragma once
// Mitsuba 3's sdfgrid (src/shapes/sdfgrid.cpp) as BVH primitives, one per voxel that the surface
// crosses (renderer/shapes/sdf_grid.h): the voxel's box and its hit, and in the kernel's scalar
// type the grid's map to world space when its transform is differentiated, normals through it and
// a hit re-evaluated on the moving surface. It has no UV ((0, 0), as Mitsuba's) and no area (it
// is never an emitter).
#include <array>
#include <string_view>

#include "renderer/core/frame.h"
#include "renderer/shapes/mitsuba_shape.h"
#include "renderer/shapes/prim.h"
#include "renderer/textures/tex_coord.h"
#include "renderer/shapes/sdf_grid.h"

namespace dray {

struct SdfGridShape {
  static constexpr uint32_t kKind = 3;  // its place in shape.h's list
  // Read with its .vol file by the loader (io/sdf_reader.cpp).
  static constexpr std::array<std::string_view, 1> kPlugins{"sdfgrid"};
  static constexpr std::array<MitsubaShape, 1> kMitsuba{{{"sdfgrid", "sdfgrid", MitsubaPlacing::grid_file}}};
  uint32_t grid = 0;    // index into Scene::sdf_grids (a group member's: its placement in the group)
  Transform transform;  // its parameters (an instance's, for a group member)

  static constexpr bool kPlanar = false;
  static constexpr bool kParallelogram = false;

  static Aabb bounds(const PrimGeom& g) {  // the voxel's box: lo a, hi b
    Aabb box;
    box.grow(to_glm(g.a));
    box.grow(to_glm(g.b));
    return box;
  }
  static bool intersect(const PrimGeom& g, const Ray& ray, float t_min, float t_max, float& t) {
    uint32_t voxel = 0;
    const SdfGrid* grid = sdf_voxel_grid(g, voxel);
    return intersect_sdf_voxel(*grid, voxel, ray, t_min, t_max, t);
  }

  // Whether the grid moves with the parameters (its transform xf is seeded), and then its map in
  // T from grid coordinates ([0, 1]³) to world space, as columns a, b, c and offset d: xf (an
  // instance's, for a group member) after `placed`, a group member's constant placement in its
  // group (null for a shape of its own).
  template <class T>
  static bool world_map(const ParamView<T>& P, const Transform& xf, const SdfGrid* placed, Vec3<T>& a, Vec3<T>& b,
                        Vec3<T>& c, Vec3<T>& d) {
    if (!transform_active(P, xf)) return false;
    const TransformT<T> t = lift_transform(P, xf);
    glm::mat3 base(1.f);
    glm::vec3 offset(0.f);
    if (placed) base = placed->linear, offset = placed->offset;
    a = linear_part(t, Vec3<T>(base[0])), b = linear_part(t, Vec3<T>(base[1])), c = linear_part(t, Vec3<T>(base[2]));
    d = transform_point(t, Vec3<T>(offset));
    return true;
  }

  // A moving voxel's map in T (PrimT::moving): an object point to world space, a world point back
  // (by cofactors), and an object-space gradient to a unit world normal (the inverse transpose).
  template <class T>
  static Vec3<T> to_world(const PrimT<T>& p, const Vec3<T>& q) {
    return p.a * q.x + p.b * q.y + p.c * q.z + p.d;
  }
  template <class T>
  static Vec3<T> to_object(const PrimT<T>& p, const Vec3<T>& x) {
    const Vec3<T> r = x - p.d, bc = cross(p.b, p.c), ca = cross(p.c, p.a), ab = cross(p.a, p.b);
    return Vec3<T>(dot(bc, r), dot(ca, r), dot(ab, r)) / dot(p.a, bc);
  }
  template <class T>
  static Vec3<T> world_normal(const PrimT<T>& p, const Vec3<T>& gradient) {
    Vec3<T> n = cross(p.b, p.c) * gradient.x + cross(p.c, p.a) * gradient.y + cross(p.a, p.b) * gradient.z;
    if (value(dot(p.a, cross(p.b, p.c))) < 0.f) n = -n;  // det · M⁻ᵀ g: its sign undone
    const T len = length(n);
    return value(len) > 0.f ? n / len : Vec3<T>(T(0.f), T(0.f), T(1.f));
  }

  template <class T>
  static T area(const PrimT<T>&) {
    return T(0.f);
  }
  // The geometric and shading normals at world point p (its grid's, or through the moving map).
  template <class T>
  static Vec3<T> normal(const PrimT<T>& prim, const Vec3<T>& p) {
    if (!prim.moving) return sdf_normal(*prim.sdf, p);
    const Vec3<T> q = to_object(prim, p);
    return world_normal(prim, sdf_detail::voxel_gradient(*prim.sdf, q, sdf_voxel_at(*prim.sdf, q)));
  }
  template <class T>
  static Vec3<T> shading_normal(const PrimT<T>& prim, const Vec3<T>& p, const Vec3<T>& ng) {
    if (!prim.moving || !prim.sdf->smooth) return sdf_shading_normal(*prim.sdf, p, ng);
    return world_normal(prim, sdf_detail::smooth_gradient(*prim.sdf, to_object(prim, p)));
  }

  // The hit in T: the point slides along the surface as on its tangent plane at the float hit (to
  // first order, exact), a plane through the hit's material point that moves with the grid's
  // transform when that is differentiated (else only the ray moves); its normal turns with it. The
  // value is the float traversal's.
  template <class T>
  static SurfacePoint<T> hit(const PrimT<T>& prim, const RayT<T>& ray, float hit_t, float) {
    T t(hit_t);
    if constexpr (ad::is_differentiable_v<T>) {
      const Vec3<float> pf(value(ray.o) + value(ray.d) * hit_t);
      Vec3<T> x0(pf), n;
      if (prim.moving) {
        const Vec3<float> q = sdf_detail::to_object(*prim.sdf, pf);
        x0 = to_world(prim, Vec3<T>(q));
        n = world_normal(prim, Vec3<T>(sdf_detail::voxel_gradient(*prim.sdf, q, sdf_voxel_at(*prim.sdf, q))));
      } else {
        n = Vec3<T>(sdf_normal(*prim.sdf, pf));
      }
      const T along = dot(n, x0 - ray.o) / dot(n, ray.d);
      t = t + (along - T(value(along)));
    }
    const Vec3<T> p = ray.o + ray.d * t;
    return {p, normal(prim, p)};
  }
  // Never sampled: an sdfgrid is never an emitter (Mitsuba's surface_area: 0).
  template <class T>
  static SurfacePoint<T> sample(const PrimT<T>& prim, float, float) {
    return {prim.a, Vec3<T>(T(0.f), T(0.f), T(1.f))};
  }

  // Whether it moves in this pass.
  template <class SceneT, class T>
  bool seeded(const SceneT&, const ParamView<T>& P) const {
    return transform_active(P, transform);
  }
  // Edges bounding one face only: none (closed).
  template <class SceneT>
  size_t open_edges(const SceneT&) const {
    return 0;
  }
  // What an optimization step may not do to its parameters: nothing their domains allow.
  std::optional<std::string> violation(const ParamTable&, const auto&) const { return std::nullopt; }
  // Whether the parameter at `slot` moves it (its transform), and its voxels holding surface,
  // placed anew where the transform's parameters moved (an update, an optimization step; the
  // samples shared with the copy the tree held). An instance's member: traced through its group.
  bool places(Slot slot) const { return transform.holds(slot); }
  template <class SceneT, class ShapeT>
  void add_prims(SceneT& scene, const ShapeT& s, uint32_t si, std::vector<PrimRef>& refs, std::vector<PrimGeom>& geoms) const {
    if (s.instance >= 0) return;
    const TransformT<float> xf = lift_transform(ParamView<float>(scene.params), transform);
    if (linear_matrix(xf) != scene.sdf_grids[grid]->linear || to_glm(xf.translate) != scene.sdf_grids[grid]->offset) {
      auto moved = std::make_shared<SdfGrid>(*scene.sdf_grids[grid]);
      place_sdf_grid(*moved, linear_matrix(xf), to_glm(xf.translate));
      scene.sdf_grids[grid] = std::move(moved);
    }
    const SdfGrid& g = *scene.sdf_grids[grid];
    for (size_t k = 0; k < g.voxels.size(); ++k) {
      refs.push_back({si, g.voxels[k]});
      geoms.push_back(sdf_voxel_geom(g, k));
    }
  }
  // A ball holding it: none (an sdfgrid lamp culls nothing).
  template <class SceneT>
  glm::vec4 bounding_ball(const SceneT&) const {
    return glm::vec4(0.f, 0.f, 0.f, INFINITY);
  }
  // Voxel `prim` as placed in world space (an instance's copy, for a group member), with the
  // grid's map when its transform moves.
  template <class SceneT, class T, class ShapeT>
  PrimT<T> lift(const SceneT& scene, const ParamView<T>& P, const ShapeT& s, const PrimRef&, uint32_t prim) const {
    uint32_t voxel = 0;
    PrimT<T> out{kKind, {}, {}, {}, T(0), sdf_voxel_grid(scene.bvh.prim_geom(prim), voxel)};
    out.moving = placed_map(scene, P, s, out.a, out.b, out.c, out.d);
    return out;
  }
  // Its map in T when its transform moves, a group member's placement in its group first.
  template <class SceneT, class T, class ShapeT>
  bool placed_map(const SceneT& scene, const ParamView<T>& P, const ShapeT& s, Vec3<T>& a, Vec3<T>& b, Vec3<T>& c,
                 Vec3<T>& d) const {
    return world_map(P, transform, s.instance >= 0 ? scene.sdf_grids[grid].get() : nullptr, a, b, c, d);
  }
  template <class SceneT, class T, class ShapeT>
  Vec3<T> shading_normal(const SceneT&, const ParamView<T>&, const ShapeT&, const PrimRef&, const PrimT<T>& pt,
                         const Vec3<T>& p, const Vec3<T>& ng) const {
    return shading_normal(pt, p, ng);
  }
  // No UV ((0, 0), as Mitsuba's), none to slide; dp/du, dp/dv the Duff basis of ng.
  template <class SceneT>
  glm::vec2 uv(const SceneT&, const PrimRef&, const PrimCoords&, AttributeSite*) const {
    return glm::vec2(0.f);
  }
  template <class SceneT, class T>
  bool moving_uv(const SceneT&, const PrimRef&, const PrimT<T>&, const Vec3<T>&, TexCoord<T>&) const {
    return false;
  }
  template <class SceneT, class T>
  void derivatives(const SceneT&, const PrimRef&, const PrimT<T>&, const Vec3<T>&, const Vec3<T>& ng, Vec3<T>& dp_du,
                   Vec3<T>& dp_dv) const {
    basis(ng, dp_du, dp_dv);
  }

  // A material point: the world point at the grid's current placement, taken to object space
  // when the grid moves.
  static bool coords(const PrimT<float>&, const glm::vec3& p, PrimCoords& out) {
    out.omega = p;
    return true;
  }
  template <class T>
  static Vec3<T> point(const PrimT<T>& prim, const PrimCoords& c) {
    if (!prim.moving) return Vec3<T>(c.omega);
    return to_world(prim, Vec3<T>(sdf_detail::to_object(*prim.sdf, Vec3<float>(c.omega))));
  }
};

}  // namespace dray
