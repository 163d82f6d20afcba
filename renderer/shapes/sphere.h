#pragma once
// Mitsuba 3's sphere (src/shapes/sphere.cpp): a centre and radius, its UV (φ / 2π, θ / π) about
// the local z of its frame (the rotation of its to_world). Its float bounds and intersection (the
// BVH's), its point, normal, area and area sampling in the kernel's scalar type, its material
// points, its UV and dp/du, dp/dv.
#include <algorithm>
#include <cmath>
#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>
#include <glm/vec4.hpp>

#include "renderer/accel/intersect.h"
#include "renderer/core/props.h"
#include "renderer/shapes/mitsuba_shape.h"
#include "renderer/shapes/prim.h"
#include "renderer/shapes/sphere_mesh.h"
#include "renderer/textures/tex_coord.h"

namespace dray {

// A sphere's tangent circle seen from `eye` (homogeneous: from a point (w = 1), or from infinitely
// far along a direction (w = 0), the great circle across it): centre, radius and an orthonormal
// frame of its plane. False when the eye is inside the sphere (no silhouette).
struct Circle {
  glm::vec3 centre, u, v;
  float radius;
};
inline bool tangent_circle(const glm::vec3& c, float r, const glm::vec4& eye, Circle& out) {
  glm::vec3 w;
  if (eye.w == 0.f) {
    // Seen from infinitely far: the great circle normal to the direction.
    const float len = glm::length(glm::vec3(eye));
    if (!(len > 0.f)) return false;
    w = glm::vec3(eye) / len;
    out.centre = c;
    out.radius = r;
  } else {
    const glm::vec3 d = glm::vec3(eye) / eye.w - c;
    const float dist2 = glm::dot(d, d);
    if (!(dist2 > r * r)) return false;
    // The tangent points p satisfy (p - c) . (eye - c) = r^2: a circle in the plane normal to d.
    w = d / std::sqrt(dist2);
    out.centre = c + w * (r * r / std::sqrt(dist2));
    out.radius = r * std::sqrt(std::max(0.f, 1.f - r * r / dist2));
  }
  const glm::vec3 helper = std::fabs(w.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
  out.u = glm::normalize(glm::cross(helper, w));
  out.v = glm::cross(w, out.u);
  return true;
}

struct Sphere {
  static constexpr uint32_t kKind = 2;  // its place in shape.h's list
  static constexpr std::array<std::string_view, 1> kPlugins{"sphere"};
  static constexpr std::array<MitsubaShape, 1> kMitsuba{{{"sphere", "sphere", MitsubaPlacing::ball}}};
  Slot center = kNoSlot, radius = kNoSlot;
  // Its local axes in world (the rotation of Mitsuba's to_world, orthonormal): the frame of its
  // UV (φ about the local z) and of dp/du, dp/dv.
  glm::mat3 rotation{1.f};

  static constexpr bool kPlanar = false;  // the BVH tests it alone, not four-wide
  static constexpr bool kParallelogram = false;

  // |x - c| = r: the nearest root in (t_min, t_max). u, v are unused (0). The distance from the
  // centre to the ray's closest point keeps the discriminant precise (Haines et al., "Precision
  // improvements for ray/sphere intersection", Ray Tracing Gems, 2019); q = -(b + sign(b) √disc)
  // avoids cancellation, the roots being q / a and c / q.
  template <class T>
  static bool intersect(const Vec3<T>& o, const Vec3<T>& d, const Vec3<T>& c, const T& r, float t_min, float t_max,
                        PrimHit<T>& hit) {
    using ad::sqrt;
    const Vec3<T> oc = o - c;
    const T a = dot(d, d), half_b = dot(oc, d);
    const Vec3<T> perp = oc - d * (half_b / a);
    const T disc = r * r - dot(perp, perp);
    if (value(disc) < 0.f) return false;
    const T root = sqrt(disc * a);
    const T q = value(half_b) < 0.f ? root - half_b : -root - half_b;
    const T c_term = dot(oc, oc) - r * r;
    T t0 = c_term / q, t1 = q / a;
    if (value(t0) > value(t1)) std::swap(t0, t1);
    T t = t0;
    if (!(value(t) > t_min && value(t) < t_max)) {
      t = t1;
      if (!(value(t) > t_min && value(t) < t_max)) return false;
    }
    hit = {t, T(0), T(0)};
    return true;
  }

  // The BVH's primitive: centre a, radius b.x.
  static Aabb bounds(const PrimGeom& g) {
    Aabb box;
    const glm::vec3 a = to_glm(g.a), r(g.b.x);
    box.grow(a - r);
    box.grow(a + r);
    return box;
  }
  static bool intersect(const PrimGeom& g, const Ray& ray, float t_min, float t_max, float& t) {
    PrimHit<float> h;
    if (!intersect(Vec3<float>(ray.o), Vec3<float>(ray.d), g.a, g.b.x, t_min, t_max, h)) return false;
    t = h.t;
    return true;
  }

  template <class T>
  static T area(const PrimT<T>& p) {
    return T(4.f * kPi) * p.r * p.r;
  }
  template <class T>
  static Vec3<T> normal(const PrimT<T>& prim, const Vec3<T>& p) {
    return (p - prim.a) / prim.r;
  }
  // The float hit again in T (only derivative-carrying types intersect again).
  template <class T>
  static SurfacePoint<T> hit(const PrimT<T>& prim, const RayT<T>& ray, float t, float t_min) {
    PrimHit<T> h{T(t), T(0), T(0)};
    if constexpr (ad::is_differentiable_v<T>)
      if (!intersect(ray.o, ray.d, prim.a, prim.r, t_min, INFINITY, h)) h.t = T(t);  // a graze lost to rounding
    const Vec3<T> p = ray.o + ray.d * h.t;
    return {p, normal(prim, p)};
  }
  // A point uniform in area, from two uniform numbers.
  template <class T>
  static SurfacePoint<T> sample(const PrimT<T>& prim, float u1, float u2) {
    const float z = 1.f - 2.f * u1, rxy = std::sqrt(std::max(0.f, 1.f - z * z)), phi = 2.f * kPi * u2;
    const Vec3<T> dir(T(rxy * std::cos(phi)), T(rxy * std::sin(phi)), T(z));
    return {prim.a + dir * prim.r, dir};
  }

  // A material point: its direction from the centre, which moves with the centre and radius.
  static bool coords(const PrimT<float>& prim, const glm::vec3& p, PrimCoords& out) {
    out.omega = (p - to_glm(prim.a)) / prim.r;
    return prim.r > 0.f;
  }
  template <class T>
  static Vec3<T> point(const PrimT<T>& prim, const PrimCoords& c) {
    return prim.a + Vec3<T>(c.omega) * prim.r;
  }

  // A direction w (world) in the sphere's frame r (Rᵀ w), and back (R v).
  template <class T>
  static Vec3<T> to_local(const glm::mat3& r, const Vec3<T>& w) {
    auto row = [&](int i) { return w.x * T(r[i][0]) + w.y * T(r[i][1]) + w.z * T(r[i][2]); };
    return {row(0), row(1), row(2)};
  }
  template <class T>
  static Vec3<T> to_world(const glm::mat3& r, const Vec3<T>& v) {
    auto row = [&](int j) { return v.x * T(r[0][j]) + v.y * T(r[1][j]) + v.z * T(r[2][j]); };
    return {row(0), row(1), row(2)};
  }

  // Its keys (Mitsuba's default: the unit sphere at the origin), the continuous ones parameters
  // (shapes.NAME.center, .radius); `rotation` its frame, 9 numbers row by row.
  static Sphere read(Props& p) {
    p.keys({"center", "radius", "rotation"}, {"material"});
    Sphere s;
    if (p.has("rotation")) {
      const std::vector<float> m = p.count("rotation") == 9 ? p.numbers("rotation") : std::vector<float>{};
      if (m.size() != 9) p.fail("rotation", "must be an array of 9 numbers (a 3x3 rotation, row by row)");
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) s.rotation[c][r] = m[size_t(3 * r + c)];
      const glm::mat3 gram = glm::transpose(s.rotation) * s.rotation;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          if (std::fabs(gram[c][r] - (r == c ? 1.f : 0.f)) > 1e-4f) p.fail("rotation", "must be a rotation (orthonormal rows)");
    }
    s.center = p.param("center", p.vec3_or("center", glm::vec3(0.f)));
    s.radius = p.param("radius", p.positive_or_one("radius"), Domain::positive());
    return s;
  }

  // A mesh over its surface at its values in `params` (a group's member; shapes/sphere_mesh.h).
  TriangleMesh tessellation(const ParamTable& params) const {
    TriangleMesh m = sphere_mesh();
    const glm::vec3 c = params.get_vec3(center);
    const float r = params.get(radius);
    for (glm::vec3& v : m.positions) v = c + r * v;
    return m;
  }

  // Whether it moves in this pass.
  template <class SceneT, class T>
  bool seeded(const SceneT&, const ParamView<T>& P) const {
    return P.active(center, 3) || P.active(radius, 1);
  }
  // Edges bounding one face only: none (closed).
  template <class SceneT>
  size_t open_edges(const SceneT&) const {
    return 0;
  }
  // Its silhouette from `eye` at the parameters' values (tangent_circle), and the material point
  // (direction from the centre) of a point p on it.
  bool silhouette(const ParamTable& params, const glm::vec4& eye, Circle& out) const {
    return tangent_circle(params.get_vec3(center), params.get(radius), eye, out);
  }
  glm::vec3 direction_to(const ParamTable& params, const glm::vec3& p) const {
    return (p - params.get_vec3(center)) / params.get(radius);
  }
  // Its silhouette's length in space: the circumference of a great circle.
  float silhouette_length(const ParamTable& params) const { return 2.f * kPi * params.get(radius); }
  // The material point with direction omega, in T.
  template <class T>
  Vec3<T> point_at(const ParamView<T>& P, const glm::vec3& omega) const {
    return P.vec3(center) + Vec3<T>(omega) * P.scalar(radius);
  }

  // What an optimization step may not do to its parameters: nothing their domains allow.
  std::optional<std::string> violation(const ParamTable&, const auto&) const { return std::nullopt; }
  // Whether the parameter at `slot` moves it, and its one primitive: centre a, radius b.x.
  bool places(Slot slot) const { return in_block(slot, center, 3) || in_block(slot, radius, 1); }
  template <class SceneT, class ShapeT>
  void add_prims(SceneT& scene, const ShapeT&, uint32_t si, std::vector<PrimRef>& refs, std::vector<PrimGeom>& geoms) const {
    refs.push_back({si, 0});
    geoms.push_back({Vec3<float>(scene.params.get_vec3(center)), Vec3<float>(scene.params.get(radius), 0.f, 0.f),
                     Vec3<float>(0.f), kKind});
  }
  // A ball holding it (centre xyz, radius w): its own.
  template <class SceneT>
  glm::vec4 bounding_ball(const SceneT& scene) const {
    return glm::vec4(scene.params.get_vec3(center), scene.params.get(radius));
  }
  template <class SceneT, class T, class ShapeT>
  PrimT<T> lift(const SceneT&, const ParamView<T>& P, const ShapeT&, const PrimRef&, uint32_t) const {
    return {kKind, P.vec3(center), {}, {}, P.scalar(radius)};
  }

  // Mitsuba's UV of the material point c: (φ / 2π, θ / π) about the local z.
  template <class SceneT>
  glm::vec2 uv(const SceneT&, const PrimRef&, const PrimCoords& c, AttributeSite*) const {
    const glm::vec3 w = glm::transpose(rotation) * c.omega;
    float u = std::atan2(w.y, w.x) * (0.5f / kPi);
    if (u < 0.f) u += 1.f;
    return {u, std::acos(std::clamp(w.z, -1.f, 1.f)) / kPi};
  }
  // The UV of point p (in T) where the sphere slides under it, to first order about out.at (p's
  // float UV); false at a pole, where it has no first order.
  template <class SceneT, class T>
  bool moving_uv(const SceneT&, const PrimRef&, const PrimT<T>& pt, const Vec3<T>& p, TexCoord<T>& out) const {
    const Vec3<T> w = to_local(rotation, (p - pt.a) / pt.r);
    const glm::vec3 wf = value(w);
    const float rxy2 = wf.x * wf.x + wf.y * wf.y;
    if (!(rxy2 > 0.f)) return false;
    const T inv_2pi(0.5f / kPi), inv_pi(1.f / kPi);
    const T du = (T(wf.x) * (w.y - T(wf.y)) - T(wf.y) * (w.x - T(wf.x))) * T(1.f / rxy2) * inv_2pi;
    const T dv = -(w.z - T(wf.z)) * T(1.f / std::sqrt(rxy2)) * inv_pi;
    out = TexCoord<T>(out.at, T(out.at.x) + du, T(out.at.y) + dv);
    return true;
  }
  // dp/du and dp/dv of that UV at p, in its frame, turned to world.
  template <class SceneT, class T>
  void derivatives(const SceneT&, const PrimRef&, const PrimT<T>& pt, const Vec3<T>& p, const Vec3<T>&, Vec3<T>& dp_du,
                   Vec3<T>& dp_dv) const {
    const Vec3<T> w = to_local(rotation, (p - pt.a) / pt.r);
    const T rxy = sqrt(w.x * w.x + w.y * w.y);
    dp_du = to_world(rotation, Vec3<T>(-w.y, w.x, T(0.f)) * (pt.r * T(2.f * kPi)));
    dp_dv = to_world(rotation, value(rxy) > 0.f ? Vec3<T>(w.z * w.x / rxy, w.z * w.y / rxy, -rxy) * (pt.r * T(kPi))
                                                : Vec3<T>(T(1.f), T(0.f), T(0.f)));  // a pole
  }
};

}  // namespace dray
