#include "renderer/shapes/curve_mesh.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/core/load_error.h"
#include "renderer/shapes/sphere_mesh.h"

namespace dray {

CurveSample bspline_at(const glm::vec4* p, double v) {
  const double v2 = v * v, v3 = v2 * v;
  // The uniform cubic B-spline's basis and its derivatives (each over 6).
  const double b[4] = {-v3 + 3 * v2 - 3 * v + 1, 3 * v3 - 6 * v2 + 4, -3 * v3 + 3 * v2 + 3 * v + 1, v3};
  const double db[4] = {-3 * v2 + 6 * v - 3, 9 * v2 - 12 * v, -9 * v2 + 6 * v + 3, 3 * v2};
  const double ddb[4] = {-6 * v + 6, 18 * v - 12, -18 * v + 6, 6 * v};
  CurveSample s{glm::dvec3(0.0), glm::dvec3(0.0), glm::dvec3(0.0), 0.0, 0.0};
  for (int i = 0; i < 4; ++i) {
    const glm::dvec3 q(p[i]);
    s.c += b[i] / 6 * q;
    s.dc += db[i] / 6 * q;
    s.ddc += ddb[i] / 6 * q;
    s.r += b[i] / 6 * double(p[i].w);
    s.dr += db[i] / 6 * double(p[i].w);
  }
  return s;
}

namespace {

// Mitsuba's local_frame of a unit tangent: `rot` the guide z projected off it ((0, 1, 0) where
// it is z itself), `rad` rot x t; u = 0 lies along rad, u = 1/4 along rot.
struct RingFrame {
  glm::dvec3 rot, rad;
};
RingFrame ring_frame(const glm::dvec3& t) {
  const glm::dvec3 guide(0, 0, 1);
  const glm::dvec3 off = guide - t * glm::dot(t, guide);
  RingFrame f;
  f.rot = glm::length(off) > 1e-12 ? glm::normalize(off) : glm::dvec3(0, 1, 0);
  f.rad = glm::cross(f.rot, t);
  return f;
}

// The circle where a sphere of radius r swept along the centre line (point c, derivative dc,
// radius derivative dr) touches its envelope, and its (u, v) coordinate v.
struct Ring {
  glm::dvec3 centre, t;
  double radius, lean;  // the circle's radius; sin of the normal's lean back along t
  RingFrame frame;
  double v;
};
Ring ring_at(const glm::dvec3& c, const glm::dvec3& dc, double r, double dr, double v) {
  const double speed = glm::length(dc);
  Ring ring;
  ring.t = speed > 0 ? dc / speed : glm::dvec3(0, 0, 1);
  ring.lean = speed > 0 ? std::clamp(dr / speed, -1.0, 1.0) : 0.0;
  ring.centre = c - ring.t * (r * ring.lean);
  ring.radius = r * std::sqrt(1 - ring.lean * ring.lean);
  ring.frame = ring_frame(ring.t);
  ring.v = v;
  return ring;
}

class CurveMeshBuilder {
 public:
  explicit CurveMeshBuilder(int around) : around_(around), rim_(M_PI / (around * std::sin(M_PI / around))) {}

  // Its `around` corners, on the polygon of the circle's perimeter, following `recipe` (its kind,
  // points and v); the index of the first.
  uint32_t add_ring(const Ring& ring, CurveVertex recipe) {
    const uint32_t first = uint32_t(mesh.positions.size());
    for (int j = 0; j < around_; ++j) {
      const glm::dvec3 radial = radial_at(ring, j);
      mesh.positions.push_back(glm::vec3(ring.centre + radial * (ring.radius * rim_)));
      recipe.phi = float(2 * M_PI * double(j) / around_);
      result.vertices.push_back(recipe);
    }
    return first;
  }
  // The band of 2 `around` triangles from ring a (first corner ia) to ring b, facing out.
  void join(const Ring& a, uint32_t ia, const Ring& b, uint32_t ib) {
    for (int j = 0; j < around_; ++j) {
      // Corners as (column, ring): column `around` is column 0 again, at u = 1.
      const int corners[2][3][2] = {{{j, 0}, {j + 1, 0}, {j, 1}}, {{j + 1, 0}, {j + 1, 1}, {j, 1}}};
      for (const auto& tri : corners)
        for (const auto& [column, side] : tri) {
          const Ring& ring = side == 0 ? a : b;
          mesh.indices.push_back((side == 0 ? ia : ib) + uint32_t(column % around_));
          const glm::dvec3 radial = radial_at(ring, column);
          const double lean_cos = std::sqrt(1 - ring.lean * ring.lean);
          mesh.corner_normals.push_back(glm::vec3(glm::normalize(radial * lean_cos - ring.t * ring.lean)));
          mesh.corner_uvs.push_back(glm::vec2(float(double(column) / around_), float(ring.v)));
        }
      mesh.face_material.insert(mesh.face_material.end(), 2, -1);
    }
  }
  // A sphere (centre, radius) in the frame of tangent t, its corners' v all `v` (a joint's).
  void add_sphere(const glm::dvec3& centre, double radius, const glm::dvec3& t, double v, uint32_t point, uint32_t axis) {
    const TriangleMesh unit = sphere_mesh(around_, around_ / 2);
    const RingFrame f = ring_frame(t);
    auto turn = [&](const glm::vec3& w) { return f.rad * double(w.x) + f.rot * double(w.y) + t * double(w.z); };
    const uint32_t first = uint32_t(mesh.positions.size());
    for (const glm::vec3& w : unit.positions) {
      mesh.positions.push_back(glm::vec3(centre + turn(w) * radius));
      result.vertices.push_back({CurveVertex::kJoint, point, axis, 0.f, 0.f, w});
    }
    for (uint32_t i : unit.indices) mesh.indices.push_back(first + i);
    for (const glm::vec3& n : unit.corner_normals) mesh.corner_normals.push_back(glm::vec3(turn(n)));
    for (const glm::vec2& uv : unit.corner_uvs) mesh.corner_uvs.push_back(glm::vec2(uv.x, float(v)));
    mesh.face_material.insert(mesh.face_material.end(), unit.indices.size() / 3, -1);
  }
  void reserve_check(size_t triangles) const {
    if (triangles > kCurveMaxTriangles)
      throw LoadError("its curves would tessellate into " + std::to_string(triangles) +
                      " triangles (dray's curves are meshes; at most " + std::to_string(kCurveMaxTriangles) + ")");
  }
  CurveMesh result;
  TriangleMesh& mesh = result.mesh;

 private:
  glm::dvec3 radial_at(const Ring& ring, int column) const {
    const double phi = 2 * M_PI * double(column) / around_;
    return ring.frame.rad * std::cos(phi) + ring.frame.rot * std::sin(phi);
  }
  int around_;
  double rim_;
};

// Rings along a B-spline segment: enough that the tangent turns by at most a column's angle and
// the radius changes by at most 5% between two, and at least 8.
int bspline_steps(const glm::vec4* p, int around) {
  constexpr int kProbe = 32;
  double turn = 0, radius_change = 0, radius_sum = 0;
  CurveSample prev = bspline_at(p, 0);
  for (int k = 1; k <= kProbe; ++k) {
    const CurveSample s = bspline_at(p, double(k) / kProbe);
    const double l0 = glm::length(prev.dc), l1 = glm::length(s.dc);
    if (l0 > 0 && l1 > 0) turn += std::acos(std::clamp(glm::dot(prev.dc, s.dc) / (l0 * l1), -1.0, 1.0));
    radius_change += std::fabs(s.r - prev.r);
    radius_sum += std::fabs(s.r);
    prev = s;
  }
  const double mean_radius = radius_sum / kProbe;
  const double by_turn = std::ceil(turn / (2 * M_PI / around));
  const double by_radius = mean_radius > 0 ? std::ceil(radius_change / (0.05 * mean_radius)) : 0;
  return int(std::clamp(by_turn + by_radius, 8.0, 256.0));
}

}  // namespace

CurveMesh bspline_curve_mesh(const CurvePoints& curves, int around) {
  CurveMeshBuilder out(around);
  size_t segment_count = 0, triangles = 0;
  std::vector<int> steps;
  for (size_t c = 0; c < curves.curve_count(); ++c)
    for (uint32_t s = curves.starts[c]; s + 3 < curves.starts[c + 1]; ++s) {
      steps.push_back(bspline_steps(&curves.points[s], around));
      triangles += size_t(2 * around) * size_t(steps.back());
      ++segment_count;
    }
  out.reserve_check(triangles);
  size_t g = 0;  // the segment's index over the shape
  for (size_t c = 0; c < curves.curve_count(); ++c) {
    Ring prev{};
    uint32_t prev_first = 0;
    for (uint32_t s = curves.starts[c]; s + 3 < curves.starts[c + 1]; ++s, ++g) {
      const glm::vec4* p = &curves.points[s];
      for (int k = s == curves.starts[c] ? 0 : 1; k <= steps[g]; ++k) {
        const double v = double(k) / steps[g];
        const CurveSample cs = bspline_at(p, v);
        const Ring ring = ring_at(cs.c, cs.dc, cs.r, cs.dr, (double(g) + v) / double(segment_count));
        const uint32_t first = out.add_ring(ring, {CurveVertex::kBsplineRing, s, s, float(v), 0.f, glm::vec3(0.f)});
        if (s != curves.starts[c] || k > 0) out.join(prev, prev_first, ring, first);
        prev = ring;
        prev_first = first;
      }
    }
  }
  return std::move(out.result);
}

CurveMesh linear_curve_mesh(const CurvePoints& curves, int around) {
  CurveMeshBuilder out(around);
  size_t segment_count = 0;
  for (size_t c = 0; c < curves.curve_count(); ++c) segment_count += curves.curve_size(c) - 1;
  const size_t sphere_triangles = size_t(around) * size_t(around);  // sphere_mesh(around, around / 2)
  out.reserve_check(segment_count * size_t(2 * around) + curves.points.size() * sphere_triangles);
  size_t g = 0;
  for (size_t c = 0; c < curves.curve_count(); ++c) {
    const uint32_t first = curves.starts[c], last = curves.starts[c + 1] - 1;
    for (uint32_t i = first; i <= last; ++i) {
      // The joint's sphere, turned to the frame of the segment it starts (the last: it ends).
      const uint32_t seg = std::min(i, last - 1);
      const glm::dvec3 axis = glm::dvec3(curves.points[seg + 1]) - glm::dvec3(curves.points[seg]);
      const double v = double(g + (i - first)) / double(segment_count);
      if (curves.points[i].w > 0)
        out.add_sphere(glm::dvec3(curves.points[i]), curves.points[i].w,
                       glm::length(axis) > 0 ? glm::normalize(axis) : glm::dvec3(0, 0, 1), v, i, seg);
      if (i == last) continue;
      // The cone tangent to the spheres at both ends (none where one holds the other).
      const glm::dvec3 p0(curves.points[i]), p1(curves.points[i + 1]);
      const double r0 = curves.points[i].w, r1 = curves.points[i + 1].w, length = glm::length(p1 - p0);
      if (!(length > std::fabs(r1 - r0))) continue;
      const Ring a = ring_at(p0, p1 - p0, r0, r1 - r0, v);
      const Ring b = ring_at(p1, p1 - p0, r1, r1 - r0, double(g + (i - first) + 1) / double(segment_count));
      const uint32_t ia = out.add_ring(a, {CurveVertex::kConeRing, i, i, 0.f, 0.f, glm::vec3(0.f)});
      const uint32_t ib = out.add_ring(b, {CurveVertex::kConeRing, i + 1, i, 1.f, 0.f, glm::vec3(0.f)});
      out.join(a, ia, b, ib);
    }
    g += curves.curve_size(c) - 1;
  }
  return std::move(out.result);
}

}  // namespace dray
