// Mitsuba's `irradiancemeter` (renderer/sensors/irradiancemeter.h) against Mitsuba's own tests
// (src/sensors/tests/test_irradiancemeter.py: its rays leave the shape's surface into the
// normal's hemisphere, a constant emitter's irradiance is π L) and closed forms: the irradiance
// under a sky with a black sphere overhead, π L cos² of the sphere's half-angle, and the derivative
// of the irradiance by the sky's radiance, π.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "../temp_dir.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;

namespace {

// An irradiance meter inside `shape` (Mitsuba's XML: the sensor nested in the shape it measures
// over; `place`, the shape's own elements), on a 1 x 1 film, `spp` samples; `rest` the scene's
// other elements.
std::string meter_scene(const std::string& shape, const std::string& place, const std::string& rest, int spp = 1,
                        const std::string& sensor_extra = "", int pixels = 1) {
  const std::string n = std::to_string(pixels);
  return R"(<scene version="3.0.0"><integrator type="path"/><shape type=")" + shape + R"(">)" + place +
         R"(<sensor type="irradiancemeter">)" + sensor_extra + R"(<film type="hdrfilm"><integer name="width" value=")" + n +
         R"("/><integer name="height" value=")" + n + R"("/><rfilter type="box"/></film><sampler type="independent">)" +
         R"(<integer name="sample_count" value=")" + std::to_string(spp) + R"("/></sampler></sensor></shape>)" + rest + "</scene>";
}

std::string sky(double radiance) {
  return R"(<emitter type="constant"><rgb name="radiance" value=")" + std::to_string(radiance) + R"("/></emitter>)";
}

const char* kSmallSquare = R"(<transform name="to_world"><scale value="0.01"/></transform>)";

}  // namespace

TEST_CASE("irradiancemeter: its rays leave the shape's surface into the normal's hemisphere (Mitsuba's test_sampling)",
          "[camera]") {
  TempDir t("dray-irradiancemeter-");
  const Scene ball = load_scene(t.write("a.xml", meter_scene("sphere", R"(<point name="center" value="1, 2, 3"/><float name="radius" value="2"/>)", "")));
  const CameraFrame<float> f = camera_frame(ball.own_camera(), ParamView<float>(ball.params));
  for (float u : {0.1f, 0.5f, 0.93f})
    for (const glm::vec2 lens : {glm::vec2(0.f), glm::vec2(0.5f, -0.3f), glm::vec2(-0.99f, 0.f)}) {
      FilmSample s{0.5f, 0.5f, lens};
      s.position = {u, 1.f - u};
      const RayT<float> r = camera_ray(f, s);
      const glm::vec3 n = glm::normalize(to_glm(r.o) - glm::vec3(1, 2, 3));
      INFO("position " << u << ", disk point " << lens.x << ", " << lens.y);
      CHECK(glm::length(to_glm(r.o) - glm::vec3(1, 2, 3)) == Approx(2).epsilon(1e-4));
      // Cosine-distributed: the disk point is the direction's tangent part, so cos θ = √(1 - |disk|²).
      CHECK(glm::dot(to_glm(r.d), n) == Approx(std::sqrt(1 - glm::dot(lens, lens))).margin(1e-4));
    }
}

TEST_CASE("irradiancemeter: a constant emitter gives π L on any shape (Mitsuba's test_incoming_flux)", "[camera]") {
  TempDir t("dray-irradiancemeter-sky-");
  for (const auto& [shape, place] : {std::pair<std::string, std::string>{"rectangle", kSmallSquare},
                                     {"sphere", R"(<float name="radius" value="3"/>)"}, {"disk", ""}})
    for (double L : {0.1, 1.0, 10.0}) {
      const Image im = render_local(load_scene(t.write("s.xml", meter_scene(shape, place, sky(L), 16))), 2);
      INFO(shape << ", radiance " << L);
      for (int c = 0; c < 3; ++c) CHECK(im.pixel(0, 0)[c] == Approx(kPi * L).epsilon(1e-5));
    }
}

TEST_CASE("irradiancemeter: a black sphere overhead leaves π L cos² of its half-angle; the derivative by L is that over L",
          "[camera]") {
  TempDir t("dray-irradiancemeter-shade-");
  // A sphere of radius 1 centred 2 above the square: half-angle 30°, cos² = 3/4. The square's
  // half-size 0.01 shifts the cap's edge by under 1e-4 of the result.
  const std::string ball = R"(<shape type="sphere"><point name="center" value="0, 0, 2"/><float name="radius" value="1"/>)"
                           R"(<bsdf type="diffuse"><rgb name="reflectance" value="0"/></bsdf></shape>)";
  const int n = 1 << 16;
  const Scene scene = load_scene(t.write("a.xml", meter_scene("rectangle", kSmallSquare, sky(2) + ball, n)));
  RenderOutputs out;
  out.wrt = {resolve_scalars(scene.params, {"lights.light0.radiance"}).at(0).slot};
  const Image im = render_local(scene, 2, out);
  const double open = 0.75, sigma = kPi * 2 * std::sqrt(open * (1 - open) / n);
  CHECK(std::fabs(im.pixel(0, 0)[0] - kPi * 2 * open) < 4 * sigma);
  // Forward mode: the image is linear in the sky's radiance (red's slot seeded).
  CHECK(im.pixel(0, 0)[out.derivative_channel(0)] == Approx(im.pixel(0, 0)[0] / 2).epsilon(1e-5));
}

TEST_CASE("irradiancemeter: what Mitsuba refuses is refused, and what dray lacks says so", "[camera]") {
  TempDir t("dray-irradiancemeter-errors-");
  CHECK_THAT(load_error(t.write("a.xml", meter_scene("rectangle", "", "", 1, "", 2))),
             Catch::Contains("an irradiance meter's film is 1 x 1 pixels (as Mitsuba's), got 2 x 2"));
  CHECK_THAT(load_error(t.write("b.xml", meter_scene("rectangle", "", "", 1, R"(<transform name="to_world"><scale value="2"/></transform>)"))),
             Catch::Contains("an irradiancemeter takes no to_world"));
  CHECK_THAT(load_error(t.write("c.xml", R"(<scene version="3.0.0"><sensor type="irradiancemeter"/></scene>)")),
             Catch::Contains("must be nested in the shape it measures over"));
  CHECK_THAT(load_error(t.write("d.xml", R"(<scene version="3.0.0"><shape type="sphere"><sensor type="perspective"/></shape></scene>)")),
             Catch::Contains("a shape may carry an irradiancemeter only"));
  std::string ptracer = meter_scene("rectangle", kSmallSquare, sky(1));
  ptracer.replace(ptracer.find(R"(type="path")"), 11, R"(type="ptracer")");
  CHECK_THROWS_WITH(render_local(load_scene(t.write("e.xml", ptracer)), 1),
                    Catch::Contains("cannot render through sensor type irradiancemeter"));
}
