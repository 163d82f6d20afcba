// The shapes' registry (renderer/shapes/shape.h): each plugin is read by its name, holds its
// place in the list as its primitives' kind, and answers for its primitives (bounds, intersection,
// normal, area, sampling, material points, UV) consistently with closed forms: a point it samples
// lies on it, in its box, is hit there by a ray toward it, and maps back to itself; its area is
// the closed form; a sphere's UV is Mitsuba's (φ / 2π, θ / π) about its frame's z. Unknown names
// are refused with the registry's names.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "renderer/core/registry.h"
#include "renderer/integrators/surface.h"
#include "renderer/io/scene_loader.h"
#include "renderer/shapes/shape.h"
#include "../temp_dir.h"

using namespace dray;
using nlohmann::json;

namespace {

json scene_with(const json& shapes) {
  return {{"camera", {{"origin", {0, 0, 6}}, {"target", {0, 0, 0}}, {"width", 8}, {"height", 8}}},
          {"render", {{"spp", 1}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", 0.5}}}}},
          {"shapes", shapes}};
}

std::string load_message(const json& doc) {
  try {
    load_scene(doc, "s.json");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Checks prim (one of the scene's) at points it samples.
void check_samples(const PrimGeom& g, const PrimT<float>& prim, float area) {
  CHECK(prim_area(prim) == Approx(area).epsilon(1e-5));
  const Aabb box = bounds_of(g);
  for (int i = 0; i < 16; ++i) {
    const SurfacePoint<float> sp = sample_prim(prim, (float(i) + 0.5f) / 16.f, std::fmod(0.618034f * float(i), 1.f));
    const glm::vec3 p = to_glm(sp.p), n = to_glm(sp.n);
    CAPTURE(i, p.x, p.y, p.z);
    CHECK(glm::length(n) == Approx(1.f).epsilon(1e-5));
    CHECK(glm::length(to_glm(prim_normal(prim, sp.p)) - n) < 1e-4f);
    for (int a = 0; a < 3; ++a) {
      CHECK(p[a] >= box.lo[a] - 1e-4f);
      CHECK(p[a] <= box.hi[a] + 1e-4f);
    }
    // A ray from one unit off the surface along the normal, back toward the point, hits it at t = 1.
    const Ray ray{p + n, -n};
    float t = 0.f;
    REQUIRE(intersect_prim(g, ray, 0.f, INFINITY, t));
    CHECK(t == Approx(1.f).epsilon(1e-4));
    // Its material point maps back to it.
    PrimCoords c;
    REQUIRE(prim_coords(prim, p, c));
    CHECK(glm::length(to_glm(prim_point(prim, c)) - p) < 1e-5f);
  }
}

}  // namespace

TEST_CASE("each shape plugin is read by its name, its primitives' kind its place in the list", "[shapes]") {
  const Scene scene = load_scene(
      scene_with({{{"name", "ball"}, {"type", "sphere"}, {"center", {0.5, 0, 0}}, {"radius", 0.75}, {"material", "m"}},
                  {{"name", "pane"}, {"type", "quad"}, {"corner", {-1, -1, -1}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 3, 0}},
                   {"material", "m"}},
                  {{"name", "box"}, {"type", "cube"}, {"material", "m"}}}),
      "s.json");
  REQUIRE(scene.shapes.size() == 3);
  CHECK(scene.shapes[0].is<Sphere>());
  CHECK(scene.shapes[1].is<Rectangle>());
  CHECK(scene.shapes[2].is<MeshShape>());
  CHECK(kPrimKind<MeshShape> == 0);  // a PrimGeom's default: a triangle
  CHECK(Sphere::kKind == kPrimKind<Sphere>);
  CHECK(Rectangle::kKind == kPrimKind<Rectangle>);
  const Bvh& world = scene.bvh.world();
  size_t per_shape[3] = {0, 0, 0};
  for (uint32_t i = 0; i < world.prim_refs().size(); ++i) {
    const uint32_t si = world.prim_refs()[i].shape;
    CHECK(world.prim_geoms()[i].kind == scene.shapes[si].model.index());
    ++per_shape[si];
  }
  CHECK(per_shape[0] == 1);
  CHECK(per_shape[1] == 1);
  CHECK(per_shape[2] == 12);  // Mitsuba's cube: 6 sides of 2 triangles
  // Their parameters by their keys.
  CHECK(scene.params.get(scene.shapes[0].as<Sphere>().radius) == 0.75f);
  CHECK(scene.params.get_vec3(scene.shapes[1].as<Rectangle>().edge_v) == glm::vec3(0, 3, 0));
}

TEST_CASE("each shape plugin's primitives: samples on the surface, hit there, areas in closed form", "[shapes]") {
  const Scene scene = load_scene(
      scene_with({{{"name", "ball"}, {"type", "sphere"}, {"center", {0.5, 0.25, -0.5}}, {"radius", 0.75}, {"material", "m"}},
                  {{"name", "pane"}, {"type", "quad"}, {"corner", {-1, -1, -1}}, {"edge_u", {2, 0, 0.5}}, {"edge_v", {0, 3, 0}},
                   {"material", "m"}},
                  {{"name", "box"}, {"type", "cube"}, {"material", "m"}}}),
      "s.json");
  const Bvh& world = scene.bvh.world();
  const ParamView<float> P(scene.params);
  for (uint32_t i = 0; i < world.prim_refs().size(); ++i) {
    const PrimGeom& g = world.prim_geoms()[i];
    const uint32_t si = world.prim_refs()[i].shape;
    CAPTURE(i, si);
    const PrimT<float> prim = lift_prim(scene, P, i);
    CHECK(prim.kind == g.kind);
    const float area = si == 0   ? 4.f * kPi * 0.75f * 0.75f
                       : si == 1 ? glm::length(glm::cross(glm::vec3(2, 0, 0.5), glm::vec3(0, 3, 0)))
                                 : 2.f;  // each of the cube's triangles: half of a 2 x 2 side
    check_samples(g, prim, area);
  }
}

TEST_CASE("a sphere's UV is Mitsuba's (phi / 2 pi, theta / pi) about its frame's z", "[shapes]") {
  Sphere sphere;
  auto uv = [&](const glm::vec3& omega) {
    PrimCoords c;
    c.omega = omega;
    return sphere.uv(0, PrimRef{}, c, nullptr);
  };
  CHECK(uv({1, 0, 0}).x == Approx(0.f).margin(1e-6));
  CHECK(uv({1, 0, 0}).y == Approx(0.5f));
  CHECK(uv({0, 1, 0}).x == Approx(0.25f));
  CHECK(uv({-1, 0, 0}).x == Approx(0.5f));
  CHECK(uv({0, -1, 0}).x == Approx(0.75f));
  CHECK(uv({0, 0, 1}).y == Approx(0.f).margin(1e-6));
  CHECK(uv({0, 0, -1}).y == Approx(1.f));
  // Turned 90 degrees about z (its local x is world +y): world +y is its u = 0.
  sphere.rotation = glm::mat3(glm::vec3(0, 1, 0), glm::vec3(-1, 0, 0), glm::vec3(0, 0, 1));
  CHECK(uv({0, 1, 0}).x == Approx(0.f).margin(1e-6));
  CHECK(uv({-1, 0, 0}).x == Approx(0.25f));
}

TEST_CASE("an unknown shape names the registry's shapes", "[shapes]") {
  const std::string m = load_message(scene_with({{{"name", "t"}, {"type", "torus"}, {"material", "m"}}}));
  CHECK_THAT(m, Catch::Contains("unknown shape type \"torus\" (expected " + plugin_names<ShapeModel>() + ", group or instance)"));
  CHECK_THAT(plugin_names<ShapeModel>(), Catch::Contains("sphere") && Catch::Contains("quad") && Catch::Contains("mesh") &&
                                             Catch::Contains("sdfgrid"));
  // A key another plugin takes is not this one's.
  CHECK_THAT(load_message(scene_with({{{"name", "b"}, {"type", "sphere"}, {"edge_u", {1, 0, 0}}, {"material", "m"}}})),
             Catch::Contains("/shapes/0 (b)/edge_u"));
}

TEST_CASE("Mitsuba's shape types are read through the registry, and named from it", "[shapes]") {
  // Every type a plugin lists becomes one of that plugin's own document types.
  std::vector<std::string> types;
  for_each_mitsuba_shape([&](const MitsubaShape& m) {
    types.emplace_back(m.type);
    CHECK(with_plugin<ShapeModel>(m.dray_type, [](const auto&) {}));
  });
  CHECK(types == std::vector<std::string>{"obj", "ply", "serialized", "cube", "disk", "cylinder", "linearcurve", "bsplinecurve",
                                          "rectangle", "sphere", "sdfgrid"});
  CHECK(mitsuba_shape("ply")->dray_type == "mesh");
  CHECK(mitsuba_shape("rectangle")->dray_type == "quad");
  CHECK(mitsuba_shape("cylinder")->placing == MitsubaPlacing::axis);
  CHECK_FALSE(mitsuba_shape("ellipsoids"));
  // The reader's refusal lists them.
  testing::TempDir t("dray-shape-registry-");
  const std::string xml = t.write("scene.xml", R"(<scene version="3.0.0"><shape type="ellipsoids"/></scene>)");
  std::string message;
  try {
    load_scene(xml);
  } catch (const std::exception& e) {
    message = e.what();
  }
  CHECK_THAT(message, Catch::Contains("unsupported shape type (supported: " + mitsuba_shape_names() + ", merge, shapegroup, instance)"));
}
