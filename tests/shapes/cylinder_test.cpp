// Mitsuba's cylinder (a 256-sided smooth mesh) against closed forms through an orthographic
// camera: its side-on image is the 2r x l rectangle, its shading under a directional light the
// radial normal's cosine column by column, its scale's derivative the area's; Mitsuba XML's p0,
// p1 and radius render bitwise as the JSON transform.
#include <catch2/catch.hpp>

#include <cmath>

#include "../temp_dir.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "renderer/shapes/cylinder_mesh.h"
#include "tests/integrators/shadow_check.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

constexpr int kW = 64, kH = 48;
constexpr double kHw = 1.6, kHh = kHw * kH / kW;  // the orthographic film's half extents

// A cylinder of radius 0.5 along y from y = -1 to 1 (its transform maps the unit cylinder's z to
// y), seen along -z by an orthographic camera; `material` is its material.
json cylinder_scene(const json& material, const json& extra_shape_keys = json::object(), int spp = 64) {
  json shape = {{"name", "c"},
                {"type", "cylinder"},
                {"material", "m"},
                {"transform", {{"matrix", {0.5, 0, 0, 0, 0, 0, 2, -1, 0, -0.5, 0, 0, 0, 0, 0, 1}}}}};
  shape.update(extra_shape_keys);
  return {{"camera", {{"type", "orthographic"}, {"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"up", {0, 1, 0}},
                      {"half_width", kHw}, {"width", kW}, {"height", kH}}},
          {"render", {{"spp", spp}, {"max_depth", 1}, {"boundary_samples", 20000}}},
          {"materials", {{"m", material}}},
          {"shapes", json::array({shape})}};
}

const json kLamp = {{"type", "diffuse"}, {"albedo", {0, 0, 0}}, {"emission", {1, 1, 1}}};

}  // namespace

TEST_CASE("the cylinder mesh: its perimeter, its radial normals, Mitsuba's UVs", "[cylinder]") {
  const TriangleMesh m = cylinder_mesh(kCylinderSegments);
  REQUIRE(m.indices.size() == size_t(6 * kCylinderSegments));
  double perimeter = 0;
  for (int k = 0; k < kCylinderSegments; ++k)
    perimeter += glm::length(m.positions[size_t(2 * ((k + 1) % kCylinderSegments))] - m.positions[size_t(2 * k)]);
  CHECK(perimeter == Approx(2 * M_PI).epsilon(1e-6));
  for (size_t c = 0; c < m.indices.size(); ++c) {
    const glm::vec3 p = m.positions[m.indices[c]], n = m.corner_normals[c];
    CHECK(glm::length(glm::vec2(n) - glm::normalize(glm::vec2(p))) < 1e-6f);  // radial, outward
    const float phi = std::atan2(p.y, p.x), u = m.corner_uvs[c].x;
    CHECK(std::fabs(std::remainder(2 * M_PI * u - phi, 2 * M_PI)) < 1e-5);
    CHECK(m.corner_uvs[c].y == p.z);
  }
  // Faces outward: the first triangle's winding normal is along +x; flipped, along -x.
  auto face_x = [](const TriangleMesh& t) {
    const glm::vec3 a = t.positions[t.indices[0]], b = t.positions[t.indices[1]], c = t.positions[t.indices[2]];
    return glm::cross(b - a, c - a).x;
  };
  CHECK(face_x(m) > 0.f);
  CHECK(face_x(cylinder_mesh(kCylinderSegments, true)) < 0.f);
}

TEST_CASE("a cylinder seen side-on covers its 2r x l rectangle", "[cylinder]") {
  const Image im = render_local(load_scene(cylinder_scene(kLamp), "cyl.json"), 2);
  const double area = 2 * 0.5 * 2 / (4 * kHw * kHh);
  CHECK(region_sum(im, 0, 0, kW, 0, kH) / (kW * kH) == Approx(area).epsilon(0.005));
}

TEST_CASE("a cylinder seen side-on: its scale's derivative is its area's, each rim's line counted once", "[cylinder]") {
  // The back rim's half lies on the front one's film line: its samples see the front rim's step
  // (their rays hit no face of the back rim) and are dropped, not counted a second time (3x area).
  const Scene scene = load_scene(cylinder_scene(kLamp, json::object(), 16), "cyl.json");
  RenderOutputs out;
  out.wrt = {slot_of(scene, "shapes.c.scale")};
  const Image im = render_local(scene, 2, out);
  const double d = region_sum(im, out.derivative_channel(0), 0, kW, 0, kH);
  const double sum = 2 * 0.5 * 2 / (4 * kHw * kHh) * kW * kH;  // the lit rectangle's image sum
  INFO("d/dscale " << d << " against 2 x the image sum " << 2 * sum);
  CHECK(d == Approx(2 * sum).epsilon(0.02));
}

TEST_CASE("a tilted cylinder's scale: the silhouettes' boundary term against central differences", "[cylinder]") {
  // Tilted 30 degrees toward the camera (the rims seen as ellipses: seen exactly edge-on, the back
  // rim's half would lie on the front one's line, a degenerate edge the boundary term counts twice).
  const Scene scene = load_scene(cylinder_scene(kLamp, {{"transform", {{"matrix", {0.5, 0, 0, 0, 0, 0, 2, -1, 0, -0.5, 0, 0, 0, 0, 0, 1}},
                                                                       {"rotate_x", 30}}}}, 16),
                                 "tilted.json");
  const auto [fwd, fd, fd_half] = forward_and_differences(scene, slot_of(scene, "shapes.c.scale"), 0.02f, 0, kW, 0, kH, 64);
  INFO("forward " << fwd << ", differences " << fd << " (h = 0.02), " << fd_half << " (h = 0.01)");
  CHECK(fwd == Approx(fd).epsilon(0.03));
  CHECK(fwd == Approx(fd_half).epsilon(0.03));
}

TEST_CASE("a diffuse cylinder under a directional light shades as its radial normal", "[cylinder]") {
  // Light from +x (irradiance pi) on albedo 0.5: the point seen at x has normal (x/r, 0, ...), so
  // its radiance is 0.5 max(0, x / r), averaged over each column's width.
  json doc = cylinder_scene({{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}}, json::object(), 256);
  doc["lights"] = json::array({{{"name", "sun"}, {"type", "directional"}, {"direction", {-1, 0, 0}}, {"irradiance", {M_PI, M_PI, M_PI}}}});
  const Image im = render_local(load_scene(doc, "lit.json"), 2);
  double worst = 0;
  for (int i = 0; i < kW; ++i) {
    const double x0 = (i - kW / 2.0) / (kW / 2.0) * kHw, x1 = x0 + 2 * kHw / kW;
    if (x1 <= -0.5 || x0 >= 0.5) continue;
    // ∫ 0.5 max(0, x / 0.5) dx over the part of the column on the cylinder, per column width.
    const double a = std::max(0.0, std::max(x0, -0.5)), b = std::max(0.0, std::min(x1, 0.5));
    const double expected = (b * b - a * a) / 2 / (x1 - x0);
    const double measured = region_sum(im, 0, i, i + 1, 12, 36) / 24;  // rows within the cylinder's length
    worst = std::max(worst, std::fabs(measured - expected));
  }
  INFO("worst column error " << worst);
  CHECK(worst < 0.01);
}

TEST_CASE("Mitsuba's cylinder (p0, p1, radius, flip_normals) is the unit cylinder under Mitsuba's frame", "[cylinder][mitsuba]") {
  // Along y from (0, -1, 0), radius 0.5: Mitsuba's frame about (0, 1, 0) is s = (1, 0, 0),
  // t = (0, 0, -1), so to_world has columns 0.5 s, 0.5 t, 2 (0, 1, 0) and p0: this test's JSON matrix.
  TempDir t("dray-cylinder-");
  auto scene = [&](const std::string& extra) {
    return t.write("c.xml", R"(<scene version="3.0.0">
  <sensor type="orthographic"><transform name="to_world"><scale x="1.6" y="1.6"/><lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="64"/><integer name="height" value="48"/><rfilter type="box"/></film>
    <sampler type="independent"><integer name="sample_count" value="16"/></sampler></sensor>
  <integrator type="direct"/>
  <shape type="cylinder"><point name="p0" x="0" y="-1" z="0"/><point name="p1" x="0" y="1" z="0"/><float name="radius" value="0.5"/>)" +
                                extra + R"(
    <bsdf type="diffuse"><rgb name="reflectance" value="0"/></bsdf><emitter type="area"><rgb name="radiance" value="1"/></emitter></shape>
</scene>)");
  };
  std::vector<std::string> warnings;
  const json doc = read_scene_document(scene(""), {}, warnings);
  const json& shape = doc["shapes"][0];
  CHECK(shape["type"] == "cylinder");
  const json expected = cylinder_scene(kLamp)["shapes"][0]["transform"]["matrix"];
  for (size_t r = 0; r < 4; ++r)
    for (size_t c = 0; c < 4; ++c) CHECK(shape["transform"]["matrix"][4 * r + c].get<double>() == Approx(expected[4 * r + c].get<double>()).margin(1e-12));
  // Its image: the rectangle.
  const Image a = render_local(load_scene(scene("")), 2);
  CHECK(region_sum(a, 0, 0, kW, 0, kH) / (kW * kH) == Approx(2 * 0.5 * 2 / (4 * kHw * kHh)).epsilon(0.01));
  CHECK(read_scene_document(scene(R"(<boolean name="flip_normals" value="true"/>)"), {}, warnings)["shapes"][0]["flip_normals"] == true);
}
