// Mitsuba's `distant` (renderer/sensors/distant.h) against Mitsuba's own tests
// (src/sensors/tests/test_distant.py: its rays, its construction errors, a constant emitter's
// radiance) and closed forms: a lit diffuse plane's radiance aimed at one point, and averaged over
// the cross-section of the scene's bounding sphere (the plane's share of that disk).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "../temp_dir.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/scene_loader.h"
#include "tests/io/mitsuba_scenes.h"
#include "tests/sensors/meter_scenes.h"

using namespace dray;
using namespace dray::testing;

namespace {

// A distant sensor (`inside`: its direction, target, …) on a 1 x 1 film with a box filter, `spp`
// samples, the path integrator; `rest` the scene's other elements.
std::string distant_scene(const std::string& inside, const std::string& rest, int spp = 1, int pixels = 1) {
  return meter_xml("distant", inside, rest, pixels, spp);
}

// Mitsuba's unit rectangle [-1, 1]² in z = 0, diffuse with albedo 0.5, under a directional light
// of irradiance 2 arriving along -z: its radiance is ρ E / π everywhere.
const char* kLitPlane =
    R"(<shape type="rectangle"><bsdf type="diffuse"><rgb name="reflectance" value="0.5"/></bsdf></shape>)"
    R"(<emitter type="directional"><vector name="direction" value="0, 0, -1"/><rgb name="irradiance" value="2"/></emitter>)";
const char* kDown = R"(<vector name="direction" value="0, 0, -1"/>)";

}  // namespace

TEST_CASE("distant: its rays run along its direction from outside the scene's bounding sphere (Mitsuba's test_sample_ray)",
          "[camera]") {
  TempDir t("dray-distant-");
  const std::string sphere = R"(<shape type="sphere"><point name="center" value="1, 2, 3"/><float name="radius" value="2"/></shape>)";
  for (const glm::vec3 d : {glm::vec3(0, 0, -1), glm::vec3(1, -1, 0.5f)}) {
    const std::string dir = std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z);
    const Scene free = load_scene(t.write("a.xml", distant_scene(R"(<vector name="direction" value=")" + dir + R"("/>)", sphere)));
    const Scene aimed = load_scene(t.write("b.xml", distant_scene(R"(<vector name="direction" value=")" + dir +
                                                                      R"("/><point name="target" value="0.5, 0, 1"/>)", sphere)));
    const glm::vec3 u = glm::normalize(d), centre(1, 2, 3);
    const float r = 2.f;  // the sphere's box's bounding sphere: radius 2 √3
    for (const glm::vec2 lens : {glm::vec2(0.f), glm::vec2(0.6f, -0.7f), glm::vec2(-1.f, 0.f)}) {
      INFO("direction " << dir << ", disk point " << lens.x << ", " << lens.y);
      const RayT<float> a = camera_ray(camera_frame(free.own_camera(), ParamView<float>(free.params)), FilmSample{0.5f, 0.5f, lens});
      CHECK(glm::length(to_glm(a.d) - u) < 1e-6f);
      // The origin: a disk point of the cross-section, one radius back along the direction.
      const glm::vec3 rel = to_glm(a.o) - centre;
      const float R = r * std::sqrt(3.f);
      CHECK(glm::dot(rel, u) == Approx(-R).epsilon(1e-3));
      CHECK(glm::length(rel - glm::dot(rel, u) * u) == Approx(R * glm::length(lens)).margin(1e-3));
      const RayT<float> b = camera_ray(camera_frame(aimed.own_camera(), ParamView<float>(aimed.params)), FilmSample{0.5f, 0.5f, lens});
      CHECK(glm::length(to_glm(b.o) + 2.f * R * u - glm::vec3(0.5f, 0, 1)) < 2e-3f);
      CHECK(glm::length(to_glm(b.d) - u) < 1e-6f);
    }
  }
}

TEST_CASE("distant: what Mitsuba refuses is refused, and what dray lacks says so", "[camera]") {
  TempDir t("dray-distant-errors-");
  CHECK_THAT(load_error(t.write("a.xml", distant_scene(kDown, "", 1, 2))),
             Catch::Contains("a distant sensor's film is 1 x 1 pixels (as Mitsuba's), got 2 x 2"));
  CHECK_THAT(load_error(t.write("b.xml", distant_scene(std::string(kDown) + R"(<transform name="to_world"><rotate x="1" angle="30"/></transform>)", ""))),
             Catch::Contains("either a to_world or a direction"));
  CHECK_THAT(load_error(t.write("c.xml", distant_scene(R"(<shape type="rectangle"/>)", ""))),
             Catch::Contains("target shape is not supported"));
  // No light path connects to it, and a measurement over a disk has edges that move.
  std::string ptracer = distant_scene(kDown, kLitPlane);
  ptracer.replace(ptracer.find(R"(type="path")"), 11, R"(type="ptracer")");
  CHECK_THROWS_WITH(render_local(load_scene(t.write("d.xml", ptracer)), 1), Catch::Contains("cannot render through sensor type distant"));
  RenderOutputs out;
  const Scene plane = load_scene(t.write("e.xml", distant_scene(kDown, kLitPlane)));
  out.wrt = {resolve_scalars(plane.params, {"shapes.shape0.corner"}).at(0).slot};
  CHECK_THROWS_WITH(render_local(plane, 1, out), Catch::Contains("camera type distant"));
}

TEST_CASE("distant: it measures a constant emitter's radiance (Mitsuba's test_render)", "[camera]") {
  TempDir t("dray-distant-sky-");
  for (int e = -2; e <= 2; ++e) {
    const std::string radiance = std::to_string(std::pow(10.0, e));
    const Scene s = load_scene(t.write("sky.xml", distant_scene(kDown, R"(<emitter type="constant"><rgb name="radiance" value=")" +
                                                                          radiance + R"("/></emitter>)", 4)));
    const Image im = render_local(s, 2);
    for (int c = 0; c < 3; ++c) CHECK(im.pixel(0, 0)[c] == Approx(std::pow(10.0, e)).epsilon(1e-5));
  }
}

TEST_CASE("distant: a lit plane's radiance at a target point, and its share of the bounding sphere's disk", "[camera]") {
  TempDir t("dray-distant-plane-");
  const double L = 0.5 * 2 / kPi;  // ρ E / π
  const Image aimed = render_local(load_scene(t.write("a.xml", distant_scene(std::string(kDown) + R"(<point name="target" value="0.3, -0.2, 0"/>)", kLitPlane, 16))), 2);
  CHECK(aimed.pixel(0, 0)[0] == Approx(L).epsilon(1e-5));
  // Rays over the disk of the sphere around [-1, 1]² (radius √2): the plane covers 4 / (2π) of it,
  // the rest sees no light. A binomial share: its standard error over n rays.
  const int n = 1 << 16;
  const Image free = render_local(load_scene(t.write("b.xml", distant_scene(kDown, kLitPlane, n))), 2);
  const double share = 4 / (2 * kPi), sigma = L * std::sqrt(share * (1 - share) / n);
  CHECK(std::fabs(free.pixel(0, 0)[0] - L * share) < 4 * sigma);
}

TEST_CASE("distant: its target point survives a view's settings (camera_settings, add_sensor), and a meter's shape is found",
          "[camera]") {
  TempDir t("dray-distant-settings-");
  Scene scene = load_scene(t.write("a.xml", distant_scene(std::string(kDown) + R"(<point name="target" value="0.3, -0.2, 0"/>)", kLitPlane)));
  const CameraSettings c = camera_settings(scene, 0);
  CHECK(c.constants.at("target_point") == nlohmann::json({0.3, -0.2, 0.0}));
  const int view = add_sensor(scene, "view", c);  // placed at once: the scene is built
  const Shot shot{view, 1};
  const RayT<float> r = camera_ray(camera_frame(scene.camera(shot), ParamView<float>(scene.params)), FilmSample{0.5f, 0.5f, {0.4f, 0.1f}});
  const float R = std::sqrt(2.f) * (1.f + 8.9e-5f);
  CHECK(glm::length(to_glm(r.o) - glm::vec3(0.3f, -0.2f, 2.f * R)) < 1e-4f);
  // An irradiance meter names the shape it measures over; a name no shape has is refused.
  nlohmann::json doc = {{"camera", {{"type", "irradiancemeter"}, {"shape", "nowhere"}, {"width", 1}, {"height", 1}}},
                        {"shapes", nlohmann::json::array({{{"name", "s"}, {"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "m"}}})},
                        {"materials", {{"m", {{"type", "diffuse"}}}}}};
  CHECK_THROWS_WITH(load_scene(doc, "m.json"), Catch::Contains("no shape named \"nowhere\" to measure over"));
}
