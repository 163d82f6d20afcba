// Mitsuba's depth integrator: the first hit's distance against closed forms (an orthographic view
// of a plane, a pinhole's view of a plane and of a sphere, 0 where the ray meets nothing), read
// from Mitsuba's XML, the same on any thread count, and its refusals (derivatives, AOVs).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/temp_dir.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

constexpr int kW = 16, kH = 12;

json depth_scene(const json& camera, const json& shapes) {
  json cam = {{"origin", {0, 0, 0}}, {"target", {0, 0, -1}}, {"width", kW}, {"height", kH}};
  cam.update(camera);
  return {{"camera", cam},
          {"render", {{"spp", 16}, {"integrator", "depth"}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}}}}},
          {"shapes", shapes},
          {"lights", json::array({{{"type", "environment"}, {"radiance", {1, 1, 1}}}})}};
}

// The plane z = -depth from x, y in [-20, 20], facing +z.
json plane(double depth) {
  return json::array({{{"name", "p"}, {"type", "quad"}, {"corner", {-20, -20, -depth}}, {"edge_u", {40, 0, 0}},
                       {"edge_v", {0, 40, 0}}, {"material", "m"}}});
}

}  // namespace

TEST_CASE("depth: an orthographic view of a plane is its distance at every pixel, in every channel", "[depth]") {
  const Scene s = load_scene(depth_scene({{"type", "orthographic"}, {"half_width", 2}, {"half_height", 1.5}}, plane(3)),
                             "depth.json", true);
  REQUIRE(integrator_traits(s.render).name == "depth");
  RenderOutputs outputs;
  outputs.variance = true;
  const Image im = render_local(s, 2, outputs);
  double worst = 0, worst_variance = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      for (int c = 0; c < 3; ++c) {
        worst = std::max(worst, std::fabs(im.pixel(x, y)[c] - 3.0));
        worst_variance = std::max(worst_variance, double(im.pixel(x, y)[3 + c]));
      }
  CHECK(worst < 1e-5);
  CHECK(worst_variance < 1e-9);
}

TEST_CASE("depth: a pinhole's view of a plane is 3 / cos of the pixel's angle, the same on 1 and 2 threads", "[depth]") {
  const Scene s = load_scene(depth_scene({{"fov_y", 60}}, plane(3)), "depth.json", true);
  const Image one = render_local(s, 1), two = render_local(s, 2);
  CHECK(one.data == two.data);
  const double tan_half = std::tan(30.0 * M_PI / 180.0);
  double worst = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      // The pixel centre's direction: (u, v, -1) on the film plane at unit distance.
      const double v = tan_half * (1 - 2 * (y + 0.5) / kH), u = tan_half * (2 * (x + 0.5) / kW - 1) * kW / kH;
      const double expected = 3 * std::sqrt(1 + u * u + v * v);  // 3 / cos θ
      worst = std::max(worst, std::fabs(one.pixel(x, y)[1] / expected - 1));
    }
  CHECK(worst < 0.01);  // the film jitter over the pixel: a curvature term under 1%
}

TEST_CASE("depth: a sphere's nearest point, and 0 where the rays meet nothing", "[depth]") {
  const json sphere = json::array({{{"name", "s"}, {"type", "sphere"}, {"center", {0, 0, -5}}, {"radius", 1}, {"material", "m"}}});
  const Scene s = load_scene(depth_scene({{"fov_y", 30}}, sphere), "depth.json", true);
  const Image im = render_local(s, 2);
  CHECK(im.pixel(kW / 2, kH / 2)[0] == Approx(4.0).epsilon(0.01));
  CHECK(im.pixel(0, 0)[0] == 0.f);
  CHECK(im.pixel(kW - 1, kH - 1)[2] == 0.f);
}

TEST_CASE("depth: read from Mitsuba's XML; derivatives and AOVs refused", "[depth][mitsuba]") {
  TempDir t("dray-depth-");
  const std::string xml = R"(<scene version="3.0.0"><integrator type="depth"/><sensor type="perspective">
      <film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="6"/></film></sensor>
      <shape type="sphere"><transform name="to_world"><translate z="4"/></transform><bsdf type="diffuse"/></shape>
      <emitter type="constant"/></scene>)";
  const Scene s = load_scene(t.write("d.xml", xml));
  CHECK(integrator_traits(s.render).name == "depth");
  const Image im = render_local(s, 2);
  CHECK(im.pixel(4, 3)[0] == Approx(3.0).epsilon(0.02));  // the unit sphere at 4 along the view
  RenderOutputs wrt;
  wrt.wrt = {Slot(0)};
  CHECK_THROWS_WITH(render_local(s, 1, wrt), Catch::Contains("integrator depth has no derivatives"));
  json doc = depth_scene(json::object(), plane(3));
  doc["render"]["aovs"] = "d:depth";
  CHECK_THROWS_WITH(load_scene(doc, "depth.json", false), Catch::Contains("/render/aovs: integrator depth renders the distance only"));
}
