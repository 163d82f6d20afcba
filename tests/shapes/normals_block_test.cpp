// A smooth mesh's shading normals as the parameter block shapes.NAME.normals (Mitsuba's `normals`):
// listed per vertex, set through the table (build_geometry reads them), and differentiated: a
// plane whose normals turn about y under a slanted sun, against the closed form ρ cos(φ − α) and
// central differences. A file whose `vn` split a vertex gets no block.
#include <catch2/catch.hpp>

#include <cmath>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "renderer/io/scene_loader.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;
using D = ad::Dual<1>;

namespace {

constexpr float kAlpha = 0.5f;  // the sun's angle from +z, toward +x (radians)

// The square [-1, 1]^2 at z = 0 (smooth: its four vertex normals +z), reflectance 0.6, under a sun
// of irradiance π from direction (sin α, 0, cos α).
Scene square(const dray::testing::TempDir& dir, const std::string& obj) {
  dir.write("square.obj", obj);
  const json doc = {{"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}}},
                    {"render", {{"max_depth", 1}}},
                    {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", 0.6}}}}},
                    {"shapes", {{{"name", "plane"}, {"type", "mesh"}, {"file", "square.obj"}, {"material", "m"}}}},
                    {"lights", {{{"type", "directional"}, {"direction", {-std::sin(kAlpha), 0, -std::cos(kAlpha)}},
                                 {"irradiance", kPi}}}}};
  return load_scene(doc, (dir.dir / "s.json").string());
}

const char* kSquare = "v -1 -1 0\nv 1 -1 0\nv -1 1 0\nv 1 1 0\nf 2 3 1\nf 2 4 3\n";

// Red radiance straight down at (x, y), its derivative by turning all normals toward +x (d n_x).
D down(const Scene& s, float x, float y) {
  std::vector<int> seeds(s.params.values().size(), -1);
  for (int v = 0; v < 4; ++v) seeds[resolve_scalars(s.params, {"shapes.plane.normals[" + std::to_string(v) + ",0]"}).at(0).slot] = 0;
  const ParamView<D> P(s.params, seeds.data());
  Sampler sampler(0, 0, 0);
  return radiance(s, P, RayT<D>{Vec3<D>(glm::vec3(x, y, 1)), Vec3<D>(glm::vec3(0, 0, -1))}, sampler).x;
}

// The same, all four normals set to (sin φ, 0, cos φ) through the table.
float down_turned(Scene s, float phi, float x, float y) {
  const Slot n = s.params.find("shapes.plane.normals")->slot;
  for (int v = 0; v < 4; ++v) {
    s.params.set(n + Slot(3 * v), std::sin(phi));
    s.params.set(n + Slot(3 * v + 2), std::cos(phi));
  }
  REQUIRE(s.needs_rebuild(n));
  s.build_geometry();
  Sampler sampler(0, 0, 0);
  return radiance(s, ParamView<float>(s.params), RayT<float>{Vec3<float>(glm::vec3(x, y, 1)), Vec3<float>(glm::vec3(0, 0, -1))},
                  sampler).x;
}

}  // namespace

TEST_CASE("a smooth mesh's normals block: turning the normals, closed form and differences", "[normals]") {
  const dray::testing::TempDir dir("dray_normals_block_test_");
  const Scene s = square(dir, kSquare);
  const auto block = s.params.find("shapes.plane.normals");
  REQUIRE(block);
  CHECK(block->size == 12);
  for (glm::vec2 at : {glm::vec2(0.2f, 0.3f), glm::vec2(-0.5f, 0.6f)}) {
    const D L = down(s, at.x, at.y);
    CHECK(L.v == Approx(0.6f * std::cos(kAlpha)).epsilon(1e-5));
    // ρ cos(φ − α): d/dφ at 0 is ρ sin α, and d n_x = d φ there.
    CHECK(L.d[0] == Approx(0.6f * std::sin(kAlpha)).epsilon(1e-4));
    const float h = 0.01f;
    const double fd = (down_turned(s, h, at.x, at.y) - down_turned(s, -h, at.x, at.y)) / (2.0 * h);
    CHECK(L.d[0] == Approx(fd).epsilon(1e-3));
  }
  // Set through the table, the normals shade: turned by α toward the sun, the full ρ.
  CHECK(down_turned(s, kAlpha, 0.1f, 0.1f) == Approx(0.6f).epsilon(1e-5));
}

TEST_CASE("a file's vn that split a vertex leave no normals block", "[normals]") {
  const dray::testing::TempDir dir("dray_normals_block_split_");
  const Scene s = square(dir, "v -1 -1 0\nv 1 -1 0\nv -1 1 0\nv 1 1 0\nvn 0 0 1\nvn 0.6 0 0.8\n"
                              "f 2//1 3//1 1//1\nf 2//2 4//2 3//2\n");
  CHECK(!s.params.find("shapes.plane.normals"));
}
