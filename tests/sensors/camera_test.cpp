// The sensors against closed forms: an orthographic camera's true-size image and its edge
// derivatives, the principal point's shift, a thin lens's circle of confusion, the clip planes,
// and the camera keys' validation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/integrators/shadow_check.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

constexpr int kW = 64, kH = 48;

// An emitting sphere (radiance 1, on black) at depth `depth` on the axis of a camera at the
// origin looking down -z; `camera` adds its keys to the default 40-degree perspective one.
json sphere_scene(double depth, double radius, const json& camera, int spp = 16) {
  json cam = {{"origin", {0, 0, 0}}, {"target", {0, 0, -1}}, {"up", {0, 1, 0}}, {"width", kW}, {"height", kH}};
  cam.update(camera);
  if (!cam.contains("fov_y") && cam.value("type", "") != "orthographic") cam["fov_y"] = 40;
  return {{"camera", cam},
          {"render", {{"spp", spp}, {"max_depth", 1}, {"boundary_samples", 20000}}},
          {"materials", {{"lamp", {{"type", "diffuse"}, {"albedo", {0, 0, 0}}, {"emission", {1, 1, 1}}}}}},
          {"shapes", json::array({{{"name", "s"}, {"type", "sphere"}, {"center", {0, 0, -depth}}, {"radius", radius},
                                   {"material", "lamp"}}})}};
}

double image_mean(const Image& im, int c = 0) { return region_sum(im, c, 0, kW, 0, kH) / (kW * kH); }

// The image's weight, centroid and second moment about it (pixel centres, channel 0).
struct Moments {
  double sum = 0, x = 0, y = 0, r2 = 0;
};
Moments moments(const Image& im) {
  Moments m;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const double v = im.pixel(x, y)[0];
      m.sum += v;
      m.x += v * (x + 0.5);
      m.y += v * (y + 0.5);
    }
  m.x /= m.sum;
  m.y /= m.sum;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) m.r2 += im.pixel(x, y)[0] * (std::pow(x + 0.5 - m.x, 2) + std::pow(y + 0.5 - m.y, 2));
  m.r2 /= m.sum;
  return m;
}

}  // namespace

TEST_CASE("an orthographic camera images a sphere at its true size at any depth", "[camera]") {
  // The film spans 2 hw x 2 hh world units: a sphere of radius r covers pi r^2 / (4 hw hh) of it
  // wherever it stands; hh defaults to hw * height / width (Mitsuba's [-1, 1] x [-1/a, 1/a]).
  const double r = 0.5, hw = 1.5, hh = hw * kH / kW;
  for (double depth : {3.0, 30.0}) {
    Scene scene = load_scene(sphere_scene(depth, r, {{"type", "orthographic"}, {"half_width", hw}}), "test.json");
    REQUIRE(scene.params.get(slot_of(scene, "camera.half_height")) == Approx(hh));
    RenderOutputs out;
    out.wrt = {slot_of(scene, "shapes.s.radius"), slot_of(scene, "camera.half_width")};
    const Image im = render_local(scene, 2, out);
    const double area = M_PI * r * r / (4 * hw * hh);
    INFO("depth " << depth << ": mean " << image_mean(im) << ", closed form " << area);
    CHECK(image_mean(im) == Approx(area).epsilon(0.01));
    // The silhouette's boundary term alone: d/dr = 2 pi r / (4 hw hh), d/dhw = -area / hw.
    CHECK(image_mean(im, out.derivative_channel(0)) == Approx(2 * M_PI * r / (4 * hw * hh)).epsilon(1e-3));
    CHECK(image_mean(im, out.derivative_channel(1)) == Approx(-area / hw).epsilon(5e-3));  // sampled: ~0.15% noise
  }
}

TEST_CASE("the principal point offset moves the image by the offset times the film size", "[camera]") {
  // Mitsuba's principal_point_offset_x/y shift the sample position: film point x sees what the
  // centred camera sees at x + offset * width, so the image moves by -offset * size.
  const Moments centred = moments(render_local(load_scene(sphere_scene(5, 0.4, json::object(), 256), "t.json"), 2));
  const Moments shifted =
      moments(render_local(load_scene(sphere_scene(5, 0.4, {{"principal_point_offset", {0.25, -0.125}}}, 256), "t.json"), 2));
  INFO("centroid " << centred.x << ", " << centred.y << " -> " << shifted.x << ", " << shifted.y);
  CHECK(centred.x == Approx(kW / 2.0).margin(0.02));
  CHECK(centred.y == Approx(kH / 2.0).margin(0.02));
  CHECK(shifted.x - centred.x == Approx(-0.25 * kW).margin(0.02));
  CHECK(shifted.y - centred.y == Approx(0.125 * kH).margin(0.02));
  CHECK(shifted.sum == Approx(centred.sum).epsilon(0.01));
}

TEST_CASE("a thin lens blurs an edge off the focus plane by its circle of confusion", "[camera]") {
  // An emitting half-plane x < 0 at depth z. The ray of film point u (pixels right of the centre)
  // from lens point l meets depth z at what the pinhole sees at u - l_x k (1/F - 1/z), k = H / (2
  // tan(fov/2)): the pixel's value is the share of the unit disk whose x exceeds u / D (is below
  // it where D < 0, before the focus plane), D = a k (1/F - 1/z) (the circle of confusion's
  // radius in pixels), averaged over the pixel's width.
  const double a = 0.5, F = 2, k = kH / (2 * std::tan(20 * M_PI / 180));
  auto segment = [](double c) {  // the share of the unit disk with x > c
    c = std::clamp(c, -1.0, 1.0);
    return (std::acos(c) - c * std::sqrt(1 - c * c)) / M_PI;
  };
  auto column = [&](int i, double D) {  // the closed form of column i, by the midpoint rule
    constexpr int n = 2000;
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      const double u = i - kW / 2 + (j + 0.5) / n;
      sum += D == 0 ? (u < 0 ? 1 : 0) : D > 0 ? segment(u / D) : 1 - segment(u / D);
    }
    return sum / n;
  };
  for (double z : {4.0, 1.5, 2.0}) {
    json doc = sphere_scene(1, 0.1, {{"type", "thinlens"}, {"aperture_radius", a}, {"focus_distance", F}}, 256);
    doc["shapes"] = json::array({{{"name", "half"}, {"type", "quad"}, {"corner", {-100, -100, -z}}, {"edge_u", {100, 0, 0}},
                                  {"edge_v", {0, 200, 0}}, {"material", "lamp"}}});
    const Image im = render_local(load_scene(doc, "t.json"), 2);
    const double D = a * k * (1 / F - 1 / z);
    double worst = 0, rms = 0, rms_wider = 0, rms_narrower = 0;
    for (int i = 0; i < kW; ++i) {
      const double measured = region_sum(im, 0, i, i + 1, 0, kH) / kH;
      worst = std::max(worst, std::fabs(measured - column(i, D)));
      rms += std::pow(measured - column(i, D), 2) / kW;
      rms_wider += std::pow(measured - column(i, 1.1 * D), 2) / kW;
      rms_narrower += std::pow(measured - column(i, 0.9 * D), 2) / kW;
    }
    INFO("depth " << z << ", blur radius " << D << " px: worst column " << worst << ", rms " << std::sqrt(rms)
                  << " (against 1.1 D: " << std::sqrt(rms_wider) << ", 0.9 D: " << std::sqrt(rms_narrower) << ")");
    CHECK(worst <= 0.02);  // 256 spp x 48 rows: a column's standard error is at most 0.0045
    if (D != 0) CHECK(std::sqrt(rms) < 0.4 * std::min(std::sqrt(rms_wider), std::sqrt(rms_narrower)));
  }
}

TEST_CASE("the clip planes hide what lies nearer than near_clip and farther than far_clip", "[camera]") {
  // The sphere spans depths 2.5 to 3.5: rays start at near_clip and end at far_clip along the axis.
  auto mean = [](const json& camera) { return image_mean(render_local(load_scene(sphere_scene(3, 0.5, camera), "t.json"), 2)); };
  const double all = mean(json::object());
  CHECK(all > 0.01);
  CHECK(mean({{"near_clip", 1}, {"far_clip", 10}}) == all);
  CHECK(mean({{"near_clip", 4}}) == 0.0);
  CHECK(mean({{"far_clip", 2}}) == 0.0);
  CHECK(mean({{"type", "orthographic"}, {"near_clip", 4}}) == 0.0);
}

TEST_CASE("a thin lens refuses derivatives that move edges; other derivatives render", "[camera]") {
  Scene scene = load_scene(sphere_scene(4, 0.5, {{"type", "thinlens"}, {"aperture_radius", 0.1}, {"focus_distance", 3}}), "t.json");
  RenderOutputs out;
  out.wrt = {slot_of(scene, "shapes.s.radius")};
  CHECK_THROWS_WITH(render_local(scene, 2, out), Catch::Contains("thinlens"));
  out.wrt = {slot_of(scene, "camera.aperture_radius")};
  CHECK_THROWS_WITH(render_local(scene, 2, out), Catch::Contains("thinlens"));
}

TEST_CASE("camera keys are checked by type", "[camera]") {
  auto error = [](const json& camera) {
    try {
      load_scene(sphere_scene(3, 0.5, camera), "t.json");
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(error({{"type", "fisheye"}}), Catch::Contains("/camera/type: unknown camera type \"fisheye\""));
  CHECK_THAT(error({{"type", "orthographic"}, {"fov_y", 30}}), Catch::Contains("/camera/fov_y: unknown key (expected one of: type, half_width, half_height, origin"));
  CHECK_THAT(error({{"half_width", 2}}), Catch::Contains("/camera/half_width: unknown key (expected one of: type, fov_y, origin"));
  CHECK_THAT(error({{"type", "thinlens"}}), Catch::Contains("/camera/aperture_radius: required key"));
  CHECK_THAT(error({{"near_clip", 5}, {"far_clip", 4}}), Catch::Contains("/camera/near_clip: must be less than far_clip"));
  CHECK_THAT(error({{"principal_point_offset", {0.1}}}), Catch::Contains("must be an array of 2 numbers"));
  // A thin lens focuses at Mitsuba's far clip without a focus_distance.
  const Scene s = load_scene(sphere_scene(3, 0.5, {{"type", "thinlens"}, {"aperture_radius", 0.1}}), "t.json");
  CHECK(s.params.get(slot_of(s, "camera.focus_distance")) == 1e4f);
}
