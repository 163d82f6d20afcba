// Mitsuba's curves (linearcurve, bsplinecurve) as meshes against closed forms: the B-spline's
// basis reproduces a line; a straight tube is a cylinder (its corners at the polygon's radius, its
// normals radial, its UVs Mitsuba's); a cone lies tangent to its end spheres; seen side-on
// through an orthographic camera a curve covers its outline's area; to_world moves the control
// points and not the radii; a file's errors name their line.
#include <catch2/catch.hpp>

#include <cmath>

#include "../temp_dir.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/mitsuba/xml_writer.h"
#include "renderer/io/scene_loader.h"
#include "renderer/shapes/curve_mesh.h"
#include "renderer/shapes/sphere_mesh.h"
#include "tests/integrators/shadow_check.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

CurvePoints curve_of(std::vector<glm::vec4> points) {
  CurvePoints c;
  c.points = std::move(points);
  c.starts = {0, uint32_t(c.points.size())};
  return c;
}
const double kRim = M_PI / (kCurveAround * std::sin(M_PI / kCurveAround));  // the polygon's radius

// The mesh's area.
double area_of(const TriangleMesh& m) {
  double a = 0;
  for (size_t i = 0; i < m.indices.size(); i += 3) {
    const glm::dvec3 p(m.positions[m.indices[i]]), q(m.positions[m.indices[i + 1]]), r(m.positions[m.indices[i + 2]]);
    a += 0.5 * glm::length(glm::cross(q - p, r - p));
  }
  return a;
}

constexpr int kW = 64, kH = 48;
constexpr double kHw = 1.6, kHh = kHw * kH / kW;

// An emitting curve (radiance 1) seen along -z by an orthographic camera.
json curve_scene(const std::string& type, const std::string& file) {
  return {{"camera", {{"type", "orthographic"}, {"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"up", {0, 1, 0}},
                      {"half_width", kHw}, {"width", kW}, {"height", kH}}},
          {"render", {{"spp", 64}, {"max_depth", 1}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"albedo", {0, 0, 0}}, {"emission", {1, 1, 1}}}}}},
          {"shapes", json::array({{{"name", "c"}, {"type", type}, {"file", file}, {"material", "m"}}})}};
}

}  // namespace

TEST_CASE("the cubic B-spline's basis: a line of evenly spaced points is that line at unit speed", "[curve]") {
  const glm::vec4 p[4] = {{0, 0, 0, 1}, {1, 0, 0, 1}, {2, 0, 0, 1}, {3, 0, 0, 1}};
  for (double v : {0.0, 0.3, 1.0}) {
    const CurveSample s = bspline_at(p, v);
    CHECK(s.c.x == Approx(1 + v));
    CHECK(s.c.y == 0.0);
    CHECK(s.dc.x == Approx(1.0));
    CHECK(glm::length(s.ddc) == Approx(0.0).margin(1e-12));
    CHECK(s.r == Approx(1.0));
    CHECK(s.dr == Approx(0.0).margin(1e-12));
  }
  // The basis sums to 1 and is C2 across segments: p0..p3 at v = 1 is p1..p4 at v = 0.
  const glm::vec4 q[5] = {{0, 0, 0, 1}, {1, 2, 0, 2}, {3, 1, 1, 1}, {2, 5, 2, 3}, {0, 1, 4, 2}};
  const CurveSample a = bspline_at(q, 1.0), b = bspline_at(q + 1, 0.0);
  CHECK(glm::length(a.c - b.c) < 1e-12);
  CHECK(glm::length(a.dc - b.dc) < 1e-12);
  CHECK(glm::length(a.ddc - b.ddc) < 1e-12);
  CHECK(a.r == Approx(b.r));
}

TEST_CASE("a straight B-spline tube of constant radius is a cylinder with Mitsuba's UVs", "[curve]") {
  // Along x from x = 1 to 3 (the centre line spans the second to the second-last points).
  const double r = 0.25;
  const TriangleMesh m = bspline_curve_mesh(curve_of({{0, 0, 0, r}, {1, 0, 0, r}, {2, 0, 0, r}, {3, 0, 0, r}, {4, 0, 0, r}})).mesh;
  REQUIRE(!m.indices.empty());
  for (const glm::vec3& p : m.positions) {
    CHECK(std::hypot(p.y, p.z) == Approx(r * kRim).epsilon(1e-5));
    CHECK(p.x >= 1.f - 1e-6f);
    CHECK(p.x <= 3.f + 1e-6f);
  }
  // The polygon's perimeter is the circle's: the area is 2 pi r l.
  CHECK(area_of(m) == Approx(2 * M_PI * r * 2).epsilon(1e-5));
  // Mitsuba's frame about +x: rot = z, rad = rot x t = y; u = atan2(z, y) / 2 pi, v = (x - 1) / 2.
  for (size_t c = 0; c < m.indices.size(); ++c) {
    const glm::vec3 p = m.positions[m.indices[c]], n = m.corner_normals[c];
    const glm::vec2 uv = m.corner_uvs[c];
    CHECK(glm::length(n - glm::normalize(glm::vec3(0, p.y, p.z))) < 1e-5f);
    CHECK(std::fabs(std::remainder(2 * M_PI * uv.x - std::atan2(p.z, p.y), 2 * M_PI)) < 1e-5);
    CHECK(uv.y == Approx((p.x - 1) / 2).margin(1e-6));
  }
  // Faces out: each triangle's winding normal agrees with its corners' normals.
  for (size_t i = 0; i < m.indices.size(); i += 3) {
    const glm::vec3 a = m.positions[m.indices[i]], b = m.positions[m.indices[i + 1]], c = m.positions[m.indices[i + 2]];
    CHECK(glm::dot(glm::cross(b - a, c - a), m.corner_normals[i]) > 0.f);
  }
}

TEST_CASE("a linear curve's cone lies tangent to the spheres of its ends", "[curve]") {
  const glm::vec4 p0(0, 0, 0, 0.5f), p1(2, 1, 0, 0.2f);
  const TriangleMesh m = linear_curve_mesh(curve_of({p0, p1})).mesh;
  // The first end's sphere, then the cone's band of 2 x 64 triangles, then the other end's sphere.
  const size_t sphere_corners = sphere_mesh(kCurveAround, kCurveAround / 2).indices.size(), cone_corners = 6 * kCurveAround;
  REQUIRE(m.indices.size() == 2 * sphere_corners + cone_corners);
  for (size_t c = sphere_corners; c < sphere_corners + cone_corners; ++c) {
    const glm::vec3 p = m.positions[m.indices[c]], n = m.corner_normals[c];
    // Each corner lies on one end's sphere (to the polygon's factor), its normal the sphere's there.
    const glm::vec3 d0 = p - glm::vec3(p0), d1 = p - glm::vec3(p1);
    const bool at0 = std::fabs(glm::length(d0) - p0.w) < std::fabs(glm::length(d1) - p1.w);
    const glm::vec3 d = at0 ? d0 : d1;
    const float radius = at0 ? p0.w : p1.w;
    CHECK(glm::length(d) == Approx(radius).epsilon(2 * (kRim - 1) + 1e-5));
    CHECK(glm::dot(glm::normalize(d), n) == Approx(1.f).epsilon(1e-3));
  }
}

TEST_CASE("a straight curve seen side-on covers its outline: a rectangle, with round ends for a linear curve", "[curve]") {
  TempDir t("dray-curve-");
  const double r = 0.5, pixel = 4 * kHw * kHh / (kW * kH);
  const std::string bspline = t.write("b.txt", "0 -2 0 0.5\n0 -1 0 0.5\n0 0 0 0.5\n0 1 0 0.5\n0 2 0 0.5\n");
  const Image b = render_local(load_scene(curve_scene("bsplinecurve", bspline), "b.json"), 2);
  CHECK(region_sum(b, 0, 0, kW, 0, kH) * pixel == Approx(2 * r * 2).epsilon(0.005));
  // From y = -0.6 to 0.6, its round ends within the film's half height 1.2.
  const std::string linear = t.write("l.txt", "0 -0.6 0 0.5\n0 0.6 0 0.5\n");
  const Image l = render_local(load_scene(curve_scene("linearcurve", linear), "l.json"), 2);
  CHECK(region_sum(l, 0, 0, kW, 0, kH) * pixel == Approx(2 * r * 1.2 + M_PI * r * r).epsilon(0.005));
}

TEST_CASE("Mitsuba's curve XML: to_world moves the control points, not the radii; bad files name the line", "[curve][mitsuba]") {
  TempDir t("dray-curve-xml-");
  const std::string file = t.write("c.txt", "-1 0 0 0.1\n0 0 0 0.1\n1 0 0 0.1\n2 0 0 0.1\n\n0 1 0 0.1\n1 1 0 0.1\n2 1 0 0.1\n3 1 0 0.1\n");
  auto xml = [&](const std::string& type, const std::string& f) {
    return t.write("s.xml", R"(<scene version="3.0.0">
  <sensor type="perspective"><transform name="to_world"><lookat origin="0, 0, 6" target="0, 0, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="8"/></film></sensor>
  <shape type=")" + type + R"("><string name="filename" value=")" + f + R"("/>
    <transform name="to_world"><scale x="4" y="1" z="1"/></transform><bsdf type="diffuse"/></shape>
</scene>)");
  };
  const Scene s = load_scene(xml("bsplinecurve", file));
  REQUIRE(s.meshes.size() == 1);
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (const glm::vec3& p : s.meshes[0].world_positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
  // Two curves of one segment each: x from 0 to 4 and 4 to 8 (scaled by 4); the radius stays 0.1.
  CHECK(lo.x == Approx(0.f).margin(1e-5));
  CHECK(hi.x == Approx(8.f).margin(1e-5));
  CHECK(hi.z == Approx(0.1 * kRim).epsilon(1e-4));
  CHECK(lo.y == Approx(-0.1 * kRim).epsilon(1e-4));
  std::string error;
  try {
    load_scene(xml("bsplinecurve", t.write("bad.txt", "0 0 0 1\n1 0 0 1\n2 0 0 1\n")));
  } catch (const LoadError& e) {
    error = e.what();
  }
  CHECK_THAT(error, Catch::Contains("has 3 control points (this curve type needs at least 4)"));
  error.clear();
  try {
    load_scene(xml("linearcurve", t.write("bad2.txt", "0 0 0 1\n1 0 zero 1\n")));
  } catch (const LoadError& e) {
    error = e.what();
  }
  CHECK_THAT(error, Catch::Contains("line 2: expected four numbers"));
}

TEST_CASE("a curve written as Mitsuba XML (dray convert -o) loads as the same mesh", "[curve][mitsuba]") {
  TempDir t("dray-curve-writer-");
  const std::string file = t.write("c.txt", "0 -2 0 0.3\n0 -1 1 0.3\n0 0 0 0.2\n0 1 1 0.3\n0 2 0 0.3\n");
  json doc = curve_scene("bsplinecurve", file);
  doc["shapes"][0]["transform"] = {{"matrix", {2, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}};
  const Scene direct = load_scene(doc, (t.dir / "c.json").string());
  std::vector<std::string> warnings;
  const std::string xml = t.write("c.xml", mitsuba::write_xml(doc, warnings));
  const Scene round = load_scene(xml);
  REQUIRE(round.meshes.size() == 1);
  CHECK(round.meshes[0].world_positions == direct.meshes[0].world_positions);
  // A transform the Mitsuba curve has no key for (a scale of the radii too) is refused.
  doc["shapes"][0]["transform"]["scale"] = 2;
  std::string error;
  try {
    mitsuba::write_xml(doc, warnings);
  } catch (const std::exception& e) {
    error = e.what();
  }
  CHECK_THAT(error, Catch::Contains("moves its control points, not its radii"));
}
