// Occluder edges under an area light (renderer/integrators/silhouette.h): an edge that no point of
// the lamp's bounding ball sees as a silhouette is left out, and no edge a point of the lamp sees
// as one is.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <sstream>

#include "../temp_dir.h"
#include "renderer/integrators/silhouette.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// A UV sphere of radius 1 as OBJ text: `rings` latitudes, `segments` longitudes, smooth normals.
std::string uv_sphere(int rings, int segments) {
  std::ostringstream obj;
  for (int i = 1; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const double t = M_PI * i / rings, p = 2 * M_PI * j / segments;
      obj << "v " << std::sin(t) * std::cos(p) << ' ' << std::cos(t) << ' ' << std::sin(t) * std::sin(p) << '\n';
    }
  obj << "v 0 1 0\nv 0 -1 0\n";
  const int top = (rings - 1) * segments + 1, bottom = top + 1;
  auto at = [&](int i, int j) { return (i - 1) * segments + (j % segments) + 1; };
  for (int j = 0; j < segments; ++j) {
    obj << "f " << top << ' ' << at(1, j + 1) << ' ' << at(1, j) << '\n';
    obj << "f " << bottom << ' ' << at(rings - 1, j) << ' ' << at(rings - 1, j + 1) << '\n';
    for (int i = 1; i + 1 < rings; ++i) {
      obj << "f " << at(i, j) << ' ' << at(i, j + 1) << ' ' << at(i + 1, j + 1) << '\n';
      obj << "f " << at(i, j) << ' ' << at(i + 1, j + 1) << ' ' << at(i + 1, j) << '\n';
    }
  }
  return obj.str();
}

}  // namespace

TEST_CASE("Occluder edges under an area light: the lamp's ball culls, conservatively", "[boundary]") {
  TempDir t("dray-silhouette-ball-");
  const std::string ball_obj = t.write("ball.obj", uv_sphere(24, 48));
  // A 0.4-wide square lamp 10 above the ball, facing down.
  const json doc = {{"camera", {{"origin", {0, 0, 6}}, {"target", {0, 0, 0}}, {"up", {0, 1, 0}}, {"fov_y", 40}, {"width", 16}, {"height", 16}}},
                    {"materials", {{"grey", {{"type", "diffuse"}, {"reflectance", {0.5, 0.5, 0.5}}}},
                                   {"lamp", {{"type", "diffuse"}, {"reflectance", {0, 0, 0}}, {"emission", {10, 10, 10}}}}}},
                    {"shapes", json::array({{{"name", "ball"}, {"type", "mesh"}, {"file", ball_obj}, {"material", "grey"}},
                                            {{"name", "lamp"}, {"type", "quad"}, {"corner", {-0.2, 10, -0.2}}, {"edge_u", {0.4, 0, 0}},
                                             {"edge_v", {0, 0, 0.4}}, {"material", "lamp"}}})}};
  const Scene scene = load_scene(doc, t.write("s.json", doc.dump()));
  const glm::vec4 ball(0.f, 10.f, 0.f, 0.2f * std::sqrt(2.f));
  const Silhouettes all = occluder_edges(scene, nullptr, 1);
  const Silhouettes kept = occluder_edges(scene, nullptr, 1, &ball);
  // Seen from 10 away a unit sphere's silhouette is the band within asin(1/10) of its equator
  // as the lamp sees it: a ring or two of the 23, and the meridians' edges crossing it.
  CHECK(all.elements.size() > 2000);
  CHECK(kept.elements.size() < all.elements.size() / 5);
  // Every edge some point of the lamp sees as a silhouette is kept.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  size_t missed = 0, seen = 0;
  for (int k = 0; k < 200; ++k) {
    const glm::vec3 q(-0.2f + 0.4f * u(rng), 10.f, -0.2f + 0.4f * u(rng));
    for (const SilhouetteElement& e : all.elements) {
      if (!silhouette_from(scene, e, seen_from_point(q))) continue;
      ++seen;
      missed += !silhouette_from_ball(scene, e, ball);
    }
  }
  CHECK(seen > 1000);
  CHECK(missed == 0);
}
