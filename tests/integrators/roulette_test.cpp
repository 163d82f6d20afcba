// Russian roulette and path length against a closed form: inside a closed sphere whose wall emits
// 1 (both sides) and reflects with albedo 0.5, the radiance is sum over bounces k <= max_depth of
// 0.5^k: 2 unlimited (max_depth -1), 1.984375 at 6 bounces, whatever bounce roulette starts at.
#include <catch2/catch.hpp>

#include <cmath>

#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/io/mitsuba_scenes.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;

namespace {

double enclosure_mean(int max_depth, int rr_depth) {
  const json doc = {{"camera", {{"origin", {0, 0, 0}}, {"target", {0, 0, -1}}, {"up", {0, 1, 0}}, {"width", 16}, {"height", 16}}},
                    {"render", {{"spp", 256}, {"max_depth", max_depth}, {"rr_depth", rr_depth}}},
                    {"materials", {{"wall", {{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}, {"emission", {1, 1, 1}}, {"two_sided", true}}}}},
                    {"shapes", json::array({{{"name", "wall"}, {"type", "sphere"}, {"center", {0.3, 0, 0}}, {"radius", 2}, {"material", "wall"}}})}};
  const Image im = render_local(load_scene(doc, "enclosure.json"), 2);
  double sum = 0;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) sum += im.pixel(x, y)[0];
  return sum / 256;
}

}  // namespace

TEST_CASE("roulette from any bounce leaves the enclosure's radiance at its closed form", "[roulette]") {
  for (int rr : {0, 3, 10}) {
    INFO("rr_depth " << rr);
    CHECK(enclosure_mean(-1, rr) == Approx(2.0).epsilon(0.005));
    CHECK(enclosure_mean(6, rr) == Approx(1.984375).epsilon(0.005));
  }
  CHECK(enclosure_mean(1, 0) == Approx(1.5).epsilon(0.005));  // emission and one bounce
}

TEST_CASE("Mitsuba's rr_depth counts path vertices: dray's render.rr_depth is one less", "[roulette][mitsuba]") {
  dray::testing::TempDir t("dray-rr-");
  std::vector<std::string> warnings;
  auto doc = [&](const std::string& integrator) {
    return read_scene_document(t.write("s.xml", dray::testing::scene_xml(integrator + "<shape type=\"sphere\"/>")), {}, warnings);
  };
  CHECK(doc(R"(<integrator type="path"><integer name="rr_depth" value="7"/></integrator>)")["render"]["rr_depth"] == 6);
  CHECK(doc(R"(<integrator type="path"/>)")["render"]["rr_depth"] == 4);  // Mitsuba's default 5
  CHECK_THAT(dray::testing::load_error(t.write("e.xml", dray::testing::scene_xml(R"(<integrator type="path"><integer name="rr_depth" value="0"/></integrator><shape type="sphere"/>)"))),
             Catch::Contains("rr_depth must be at least 1"));
}
