#pragma once
// Mitsuba 3's curves as triangle meshes over their surfaces, as dray's cylinder is one
// (shapes/cylinder_mesh.h). Control points come in world space: Mitsuba moves the positions by
// to_world and never the radii.
// - `bsplinecurve` (src/shapes/bsplinecurve.cpp): uniform cubic B-splines, each 4 consecutive
//   points a segment, open-ended tubes; a radius interpolated as the positions are.
// - `linearcurve` (src/shapes/linearcurve.cpp): a cone per segment tangent to the spheres of its
//   end points (Embree's round linear curves), a sphere at every joint and end.
// Both are the surface Mitsuba intersects, a sphere swept along the centre line: a ring sits at
// c - r sin(a) t with radius r cos(a), sin(a) = r' / |c'|, and its normal leans back by a.
// Rings have `around` corners on a polygon of the circle's perimeter (as the cylinder's) and
// Mitsuba's (u, v): u = phi / 2 pi about its frame (the guide z projected off the tangent, and
// that crossed with the tangent), v along all of the shape's segments, from 0 to 1. The smooth
// normals at the corners are the surface's.
#include <cstdint>

#include "renderer/shapes/curve_points.h"
#include "renderer/shapes/triangle_mesh.h"

namespace dray {

inline constexpr int kCurveAround = 64;
// More triangles than this is refused: a curve mesh is a tessellation (a head of hair is not).
inline constexpr size_t kCurveMaxTriangles = size_t(1) << 25;

// How a tube vertex follows the control points (python/dray/curves.py evaluates the same, so that
// `curve.control_points` is a parameter whose gradient is the vertices' chained by torch).
struct CurveVertex {
  enum Kind : uint8_t { kBsplineRing, kConeRing, kJoint };
  Kind kind;
  uint32_t point;   // a B-spline ring's segment's first control point; a cone ring's end; a joint's
  uint32_t axis;    // a cone ring's or joint's frame: the segment from control point `axis` to the next
  float v, phi;     // a B-spline ring's segment parameter; a ring corner's angle
  glm::vec3 local;  // a joint's corner on the unit sphere in its frame (rad, rot, tangent)
};
struct CurveMesh {
  TriangleMesh mesh;
  std::vector<CurveVertex> vertices;  // one per mesh position
};
// A curve shape of the scene: its mesh, its world-space control points, how its vertices follow.
struct CurveTube {
  uint32_t mesh = 0;  // index into Scene::meshes
  bool linear = false;
  int around = kCurveAround;
  CurvePoints curves;
  std::vector<CurveVertex> vertices;
};

CurveMesh bspline_curve_mesh(const CurvePoints& curves, int around = kCurveAround);
CurveMesh linear_curve_mesh(const CurvePoints& curves, int around = kCurveAround);

// A cubic B-spline segment at v in [0, 1] from its four control points: the centre line, its
// first and second derivatives, the radius and its derivative (Mitsuba's cubic_interpolation).
struct CurveSample {
  glm::dvec3 c, dc, ddc;
  double r, dr;
};
CurveSample bspline_at(const glm::vec4* p, double v);

}  // namespace dray
