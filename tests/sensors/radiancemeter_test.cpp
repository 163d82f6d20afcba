// Mitsuba's `radiancemeter` (renderer/sensors/radiancemeter.h) against Mitsuba's own tests
// (src/sensors/tests/test_radiancemeter.py: its rays, its construction errors, the radiance of a
// constant emitter and of an emitting sphere) and a closed form with its derivatives: the radiance
// of a diffuse sphere under a directional light, by the albedo and by the sphere's position (an
// interior term only: a single ray has no film area for edges to cross).
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <string>

#include "../temp_dir.h"
#include "renderer/integrators/gradient_tiles.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/io/mitsuba_scenes.h"
#include "tests/sensors/meter_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// A 1 x 1 film with a box filter, `spp` samples, the path integrator; `sensor` the radiancemeter's
// inside, `rest` the scene's other elements.
std::string meter_scene(const std::string& sensor, const std::string& rest, int pixels = 1, int spp = 1) {
  return meter_xml("radiancemeter", sensor, rest, pixels, spp);
}

// A diffuse sphere (albedo 0.5, radius 1, centre (cx, 0, 0)) under a directional light of irradiance
// 2 arriving from +z, seen by a radiance meter on the z axis looking down -z.
json lit_sphere(double cx) {
  return {{"camera", {{"type", "radiancemeter"}, {"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"width", 1}, {"height", 1}}},
          {"render", {{"spp", 4}, {"max_depth", 1}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}}}}},
          {"shapes", json::array({{{"name", "s"}, {"type", "sphere"}, {"center", {cx, 0, 0}}, {"radius", 1}, {"material", "m"}}})},
          {"lights", json::array({{{"name", "sun"}, {"type", "directional"}, {"direction", {0, 0, -1}}, {"irradiance", 2}}})}};
}

}  // namespace

TEST_CASE("radiancemeter: every film sample is the one ray from origin along direction (Mitsuba's test_sample_ray)",
          "[camera]") {
  TempDir t("dray-radiancemeter-");
  for (const glm::vec3 d : {glm::vec3(0, 0, 1), glm::vec3(-1, -1, 0), glm::vec3(2, 0, 0)})
    for (const glm::vec3 o : {glm::vec3(0, 0, 0), glm::vec3(-1, -1, 0.5), glm::vec3(4, 1, 0)}) {
      auto triple = [](const glm::vec3& v) {
        return std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z);
      };
      const Scene scene = load_scene(t.write("r.xml", meter_scene(R"(<point name="origin" value=")" + triple(o) +
                                                                   R"("/><vector name="direction" value=")" + triple(d) + R"("/>)",
                                                               "")));
      const CameraFrame<float> f = camera_frame(scene.own_camera(), ParamView<float>(scene.params));
      for (const FilmSample s : {FilmSample{0.32f, 0.87f, {0.16f, 0.44f}}, FilmSample{0.9f, 0.1f}}) {
        const RayT<float> r = camera_ray(f, s);
        INFO("origin " << triple(o) << ", direction " << triple(d));
        CHECK(glm::length(to_glm(r.o) - o) < 1e-5f);
        CHECK(glm::length(to_glm(r.d) - glm::normalize(d)) < 1e-6f);
      }
    }
}

TEST_CASE("radiancemeter: what Mitsuba refuses is refused", "[camera]") {
  TempDir t("dray-radiancemeter-errors-");
  CHECK_THAT(load_error(t.write("a.xml", meter_scene(R"(<vector name="direction" value="0, 1, 0"/>)", ""))),
             Catch::Contains("give both origin and direction"));
  CHECK_THAT(load_error(t.write("b.xml", meter_scene(R"(<point name="origin" value="0, 1, 0"/>)", ""))),
             Catch::Contains("give both origin and direction"));
  CHECK_THAT(load_error(t.write("c.xml", meter_scene("", "", 2))),
             Catch::Contains("a radiancemeter's film is 1 x 1 pixels (as Mitsuba's), got 2 x 2"));
  CHECK_THAT(load_error(t.write("d.xml", meter_scene(R"(<float name="fov" value="30"/>)", ""))),
             Catch::Contains("fov: unknown key"));
}

TEST_CASE("radiancemeter: it measures a constant emitter's and an emitting sphere's radiance (Mitsuba's test_render)",
          "[camera]") {
  TempDir t("dray-radiancemeter-render-");
  for (int e = -3; e <= 3; ++e) {
    const double radiance = std::pow(10.0, e);
    const std::string value = std::to_string(radiance);
    const Scene sky = load_scene(t.write("sky.xml", meter_scene("", R"(<emitter type="constant"><rgb name="radiance" value=")" + value + R"("/></emitter>)")));
    const Scene ball = load_scene(t.write("ball.xml", meter_scene(
        R"(<transform name="to_world"><lookat origin="0, 0, -3" target="0, 0, 0" up="0, 1, 0"/></transform>)",
        R"(<shape type="sphere"><emitter type="area"><rgb name="radiance" value=")" + value + R"("/></emitter></shape>)")));
    for (const Scene* s : {&sky, &ball}) {
      const Image im = render_local(*s, 2);
      INFO("radiance " << radiance);
      REQUIRE(im.width == 1);
      for (int c = 0; c < 3; ++c) CHECK(im.pixel(0, 0)[c] == Approx(radiance).epsilon(1e-5));
    }
  }
}

TEST_CASE("radiancemeter: a lit diffuse sphere's radiance and its derivatives by albedo and position are the closed form",
          "[camera]") {
  // The ray meets the sphere at (0, 0, sqrt(1 - cx²)), normal (-cx, 0, sqrt(1 - cx²)): L = ρ E cos / π
  // with cos = sqrt(1 - cx²), so dL/dρ = E cos / π and dL/dcx = -ρ E cx / (π cos).
  const double cx = 0.3, rho = 0.5, E = 2, cos = std::sqrt(1 - cx * cx);
  const Scene scene = load_scene(lit_sphere(cx), "meter.json");
  const Image primal = render_local(scene, 2);
  CHECK(primal.pixel(0, 0)[0] == Approx(rho * E * cos / kPi).epsilon(1e-5));
  const std::vector<Slot> wrt = {resolve_scalars(scene.params, {"materials.m.albedo"}).at(0).slot,
                                 resolve_scalars(scene.params, {"shapes.s.center"}).at(0).slot};
  const double expected[2] = {E * cos / kPi, -rho * E * cx / (kPi * cos)};
  RenderOutputs out;
  out.wrt = wrt;
  const Image fwd = render_local(scene, 2, out);
  const std::vector<Tile> tiles = make_tiles(1, 1, 8);
  std::vector<int> ids(tiles.size());
  std::iota(ids.begin(), ids.end(), 0);
  Image rev_primal(1, 1, 3), none(1, 1, 3);
  const GradientResult rev = gradient_tiles(scene, scene.shot(), tiles, ids, none, Loss::mean, 3.0, wrt, 2, rev_primal, scene.render.seed);
  for (size_t k = 0; k < 2; ++k) {
    INFO("parameter " << k);
    CHECK(fwd.pixel(0, 0)[out.derivative_channel(int(k))] == Approx(expected[k]).epsilon(1e-4));
    // The loss is the mean of the three channels; only red's albedo is seeded by slot k = 0.
    CHECK(rev.gradient[k] == Approx(k == 0 ? expected[k] / 3 : expected[k]).epsilon(1e-4));
  }
}

TEST_CASE("radiancemeter: no light path reaches it (ptracer renders it black, as Mitsuba's)", "[camera]") {
  json doc = lit_sphere(0.3);
  doc["render"]["integrator"] = "ptracer";
  const Image im = render_local(load_scene(doc, "meter.json"), 2);
  CHECK(im.pixel(0, 0)[0] == 0.f);
}
