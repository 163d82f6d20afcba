// Mitsuba's hdrfilm pixel formats: alpha as the share of camera rays meeting a surface (a
// sphere's projected area in closed form, 1 everywhere before a visible environment), luminance
// and XYZ from the sRGB primaries, the image's colour unchanged; their keys in JSON and XML.
#include <catch2/catch.hpp>

#include <cmath>

#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "renderer/sensors/film.h"
#include "tests/temp_dir.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

constexpr int kW = 16, kH = 12;

// A unit sphere seen by an orthographic camera whose film spans 4 x 3 world units, lit by an
// environment of radiance (0.9, 0.5, 0.2).
json sphere_doc(const std::string& format, bool hide_emitters) {
  return {{"camera", {{"type", "orthographic"}, {"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"width", kW}, {"height", kH},
                      {"half_width", 2}, {"half_height", 1.5}}},
          {"render", {{"spp", 64}, {"max_depth", 2}, {"pixel_format", format}, {"hide_emitters", hide_emitters}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}}}}},
          {"shapes", json::array({{{"name", "s"}, {"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "m"}}})},
          {"lights", json::array({{{"type", "environment"}, {"radiance", {0.9, 0.5, 0.2}}}})}};
}

Image film_of(const Scene& s, Image* raw = nullptr) {
  const RenderOutputs o = with_aovs({}, s);
  const Image image = render_local(s, 2, o);
  if (raw) *raw = image;
  return develop(image, o, s.render.pixel_format, s.render.aovs);
}

std::vector<std::string> film_names(const Scene& s) { return film_channel_names(s.render.pixel_format, s.render.aovs); }

}  // namespace

TEST_CASE("rgba: alpha is the share of camera rays meeting a surface (a sphere's projected area)", "[film]") {
  const Scene s = load_scene(sphere_doc("rgba", true), "film.json", true);
  const Image film = film_of(s);
  REQUIRE(film.channel_names == std::vector<std::string>{"R", "G", "B", "A"});
  double area = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) area += film.pixel(x, y)[3];
  // pi square units in pixels of 0.25 x 0.25; 64 samples a pixel: the rim's 40 or so pixels each
  // within a few percent.
  CHECK(area == Approx(M_PI / 0.0625).epsilon(0.01));
  CHECK(film.pixel(kW / 2, kH / 2)[3] == 1.f);
  CHECK(film.pixel(0, 0)[3] == 0.f);
  // The environment seen: every ray is opaque.
  const Image seen = film_of(load_scene(sphere_doc("rgba", false), "film.json", true));
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) REQUIRE(seen.pixel(x, y)[3] == 1.f);
}

TEST_CASE("luminance and xyz from the sRGB primaries; the colour of rgb and rgba unchanged", "[film]") {
  Image raw;
  const Image rgb = film_of(load_scene(sphere_doc("rgb", false), "film.json", true), &raw);
  const Image rgba = film_of(load_scene(sphere_doc("rgba", false), "film.json", true));
  const Image y = film_of(load_scene(sphere_doc("luminance_alpha", false), "film.json", true));
  const Image xyz = film_of(load_scene(sphere_doc("xyz", false), "film.json", true));
  CHECK(y.channel_names == std::vector<std::string>{"Y", "A"});
  CHECK(xyz.channel_names == std::vector<std::string>{"X", "Y", "Z"});
  for (int j = 0; j < kH; ++j)
    for (int i = 0; i < kW; ++i) {
      const float* c = raw.pixel(i, j);
      for (int k = 0; k < 3; ++k) REQUIRE(rgb.pixel(i, j)[k] == c[k]);
      for (int k = 0; k < 3; ++k) REQUIRE(rgba.pixel(i, j)[k] == c[k]);
      const double lum = 0.212671 * c[0] + 0.715160 * c[1] + 0.072169 * c[2];
      REQUIRE(y.pixel(i, j)[0] == Approx(lum).epsilon(1e-6));
      REQUIRE(xyz.pixel(i, j)[1] == y.pixel(i, j)[0]);
      REQUIRE(xyz.pixel(i, j)[0] == Approx(0.412453 * c[0] + 0.357580 * c[1] + 0.180423 * c[2]).epsilon(1e-6));
      REQUIRE(xyz.pixel(i, j)[2] == Approx(0.019334 * c[0] + 0.119193 * c[1] + 0.950227 * c[2]).epsilon(1e-6));
    }
  // The environment's own luminance where the rays miss.
  CHECK(y.pixel(0, 0)[0] == Approx(0.212671 * 0.9 + 0.715160 * 0.5 + 0.072169 * 0.2).epsilon(1e-6));
}

TEST_CASE("pixel_format in JSON and in Mitsuba's hdrfilm; what is refused", "[film][mitsuba]") {
  json bad = sphere_doc("rgbx", false);
  CHECK_THROWS_WITH(load_scene(bad, "film.json", false),
                    Catch::Contains("/render/pixel_format: unknown pixel format \"rgbx\" (known: rgb, rgba, luminance, luminance_alpha, xyz, xyza)"));
  json ptracer = sphere_doc("rgba", false);
  ptracer["render"]["integrator"] = "ptracer";
  CHECK_THROWS_WITH(load_scene(ptracer, "film.json", false), Catch::Contains("the ptracer integrator renders images only (no alpha)"));
  TempDir t("dray-film-");
  const std::string xml = t.write("f.xml", R"(<scene version="3.0.0"><sensor type="perspective"><film type="hdrfilm">
    <integer name="width" value="8"/><integer name="height" value="6"/><string name="pixel_format" value="RGBA"/>
    <string name="component_format" value="float16"/></film></sensor><emitter type="constant"/></scene>)");
  std::vector<std::string> warnings;
  CHECK(read_scene_document(xml, {}, warnings)["render"]["pixel_format"] == "rgba");
  CHECK(film_names(load_scene(xml)) == std::vector<std::string>{"R", "G", "B", "A"});
}
