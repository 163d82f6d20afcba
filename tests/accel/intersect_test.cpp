#include <catch2/catch.hpp>

#include "renderer/accel/bvh.h"
#include "renderer/accel/intersect.h"
#include "renderer/shapes/shape.h"

using namespace dray;
using V = Vec3<float>;

TEST_CASE("ray-sphere: distance to the near and far surface", "[intersect]") {
  PrimHit<float> h;
  V c(0.f, 0.f, 0.f);
  // From outside, along +z: enters at z = -1.
  REQUIRE(Sphere::intersect(V(0, 0, -5), V(0, 0, 1), c, 1.f, 0.f, INFINITY, h));
  CHECK(h.t == Approx(4.f).epsilon(1e-6));
  // From the centre: the far root.
  REQUIRE(Sphere::intersect(V(0, 0, 0), V(0, 0, 1), c, 1.f, 0.f, INFINITY, h));
  CHECK(h.t == Approx(1.f).epsilon(1e-6));
  // Unnormalised direction: t scales inversely.
  REQUIRE(Sphere::intersect(V(0, 0, -5), V(0, 0, 2), c, 1.f, 0.f, INFINITY, h));
  CHECK(h.t == Approx(2.f).epsilon(1e-6));
  // Off-axis hit at the expected point: o + t d lies on the sphere.
  V o(0.3f, 0.4f, -3.f), d = normalize(V(0.f, 0.f, 1.f));
  REQUIRE(Sphere::intersect(o, d, c, 1.f, 0.f, INFINITY, h));
  CHECK(length(o + d * h.t) == Approx(1.f).epsilon(1e-5));
  CHECK(h.t == Approx(3.f - std::sqrt(1.f - 0.25f)).epsilon(1e-5));
}

TEST_CASE("ray-sphere: misses", "[intersect]") {
  PrimHit<float> h;
  V c(0.f, 0.f, 0.f);
  CHECK_FALSE(Sphere::intersect(V(0, 1.01f, -5), V(0, 0, 1), c, 1.f, 0.f, INFINITY, h));  // passes above
  CHECK_FALSE(Sphere::intersect(V(0, 0, 5), V(0, 0, 1), c, 1.f, 0.f, INFINITY, h));       // behind
  CHECK_FALSE(Sphere::intersect(V(0, 0, -5), V(0, 0, 1), c, 1.f, 0.f, 3.9f, h));          // beyond t_max
  // A sphere far from the origin of coordinates keeps precision (large-distance robustness).
  REQUIRE(Sphere::intersect(V(0, 0, -1e4f), V(0, 0, 1), V(0, 0, 0), 0.01f, 0.f, INFINITY, h));
  CHECK(h.t == Approx(1e4f - 0.01f).epsilon(1e-6));
}

TEST_CASE("ray-triangle: barycentrics, edges and misses", "[intersect]") {
  PrimHit<float> h;
  V a(0, 0, 0), e1(1, 0, 0), e2(0, 1, 0);
  REQUIRE(intersect_triangle(V(0.25f, 0.5f, -2), V(0, 0, 1), a, e1, e2, 0.f, INFINITY, h));
  CHECK(h.t == Approx(2.f));
  CHECK(h.u == Approx(0.25f));
  CHECK(h.v == Approx(0.5f));
  // Back face hits too (two-sided).
  REQUIRE(intersect_triangle(V(0.25f, 0.25f, 2), V(0, 0, -1), a, e1, e2, 0.f, INFINITY, h));
  CHECK(h.t == Approx(2.f));
  // Outside the hypotenuse, but inside the parallelogram.
  CHECK_FALSE(intersect_triangle(V(0.7f, 0.7f, -2), V(0, 0, 1), a, e1, e2, 0.f, INFINITY, h));
  REQUIRE(intersect_triangle(V(0.7f, 0.7f, -2), V(0, 0, 1), a, e1, e2, 0.f, INFINITY, h, true));
  CHECK(h.u == Approx(0.7f));
  CHECK_FALSE(intersect_triangle(V(1.1f, 0.5f, -2), V(0, 0, 1), a, e1, e2, 0.f, INFINITY, h, true));
  // Parallel to the plane.
  CHECK_FALSE(intersect_triangle(V(0.2f, 0.2f, -2), V(1, 0, 0), a, e1, e2, 0.f, INFINITY, h));
  // Behind the origin and beyond t_max.
  CHECK_FALSE(intersect_triangle(V(0.2f, 0.2f, 2), V(0, 0, 1), a, e1, e2, 0.f, INFINITY, h));
  CHECK_FALSE(intersect_triangle(V(0.2f, 0.2f, -2), V(0, 0, 1), a, e1, e2, 0.f, 1.5f, h));
}

TEST_CASE("intersect_prim dispatches on the primitive kind", "[intersect]") {
  Ray r{{0.5f, 0.5f, -1.f}, {0.f, 0.f, 1.f}};
  float t = 0.f;
  PrimGeom tri{V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), kPrimKind<MeshShape>};
  PrimGeom sph{V(0.5f, 0.5f, 3.f), V(1, 0, 0), V(0.f), kPrimKind<Sphere>};
  REQUIRE(intersect_prim(tri, r, 0.f, INFINITY, t));
  CHECK(t == Approx(1.f));
  REQUIRE(intersect_prim(sph, r, 0.f, INFINITY, t));
  CHECK(t == Approx(3.f));
  Aabb b = bounds_of(sph);
  CHECK(b.lo.z == Approx(2.f));
  CHECK(b.hi.z == Approx(4.f));
}
