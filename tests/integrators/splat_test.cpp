// The splatting film (render.splat, Mitsuba's hdrfilm; renderer/integrators/splat.h): images and
// derivative images bitwise the same for any tiling and thread count, its variance 1/π of filter
// importance sampling's for the Gaussian (Mitsuba's ∫f²/(∫f)²) with the same expected image, and
// a crop with sample_border the same pixels as the whole film. The step edge against its closed
// form is in sensors/pixel_filter_test.cpp; forward against reverse mode in Python's tests.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;

namespace {

// A diffuse plane filling the view under a uniform sky (radiance 1), and a sphere in front lit
// by a point light: alone, the plane's expected pixels are its albedo exactly; sampling the sky makes
// every sample's noise independent of its position.
Scene scene(bool splat, int spp, uint64_t seed, bool sphere = true) {
  json shapes = json::array({{{"name", "plane"}, {"type", "quad"}, {"corner", {-20, -20, -5}}, {"edge_u", {40, 0, 0}},
                              {"edge_v", {0, 40, 0}}, {"material", "grey"}}});
  json lights = json::array({{{"name", "sky"}, {"type", "environment"}, {"radiance", {1, 1, 1}}}});
  if (sphere) {
    shapes.push_back({{"name", "ball"}, {"type", "sphere"}, {"center", {0.3, 0, -3}}, {"radius", 0.6}, {"material", "red"}});
    lights.push_back({{"name", "lamp"}, {"type", "point"}, {"position", {1, 2, 0}}, {"intensity", {5, 5, 5}}});
  }
  return load_scene(json{{"camera", {{"origin", {0, 0, 0}}, {"target", {0, 0, -1}}, {"up", {0, 1, 0}}, {"fov_y", 40},
                                     {"width", 24}, {"height", 20}}},
                         {"render", {{"spp", spp}, {"seed", seed}, {"max_depth", 2}, {"filter", "gaussian"}, {"splat", splat},
                                     {"sample_border", true}}},
                         {"materials", {{"grey", {{"type", "diffuse"}, {"reflectance", {0.5, 0.5, 0.5}}}},
                                        {"red", {{"type", "diffuse"}, {"reflectance", {0.7, 0.2, 0.1}}}}}},
                         {"lights", lights},
                         {"shapes", shapes}},
                    "splat.json");
}

Image render_with(const Scene& s, int tile, int threads, const RenderOutputs& out) {
  const std::vector<Tile> tiles = make_tiles(s.own_camera().width, s.own_camera().height, tile);
  std::vector<int> ids(tiles.size());
  std::iota(ids.begin(), ids.end(), 0);
  Image image(s.own_camera().width, s.own_camera().height, out.channels());
  render_tiles(s, s.shot(), tiles, ids, image, threads, out);
  return image;
}

}  // namespace

TEST_CASE("the splatting film is bitwise the same for any tiling and thread count, derivatives included", "[splat]") {
  const Scene s = scene(true, 4, 3);
  RenderOutputs out;
  for (const char* name : {"shapes.ball.radius", "materials.red.reflectance[0]", "lights.lamp.position[1]"})
    out.wrt.push_back(resolve_scalars(s.params, {name}).at(0).slot);
  const Image reference = render_with(s, 16, 1, out);
  for (const auto& [tile, threads] : {std::pair{8, 2}, std::pair{5, 2}, std::pair{7, 1}, std::pair{64, 2}}) {
    INFO("tile " << tile << ", threads " << threads);
    CHECK(render_with(s, tile, threads, out).data == reference.data);
  }
  double derivative = 0;  // the derivative images are not empty
  for (int y = 0; y < reference.height; ++y)
    for (int x = 0; x < reference.width; ++x) derivative += std::fabs(reference.pixel(x, y)[out.derivative_channel(0)]);
  CHECK(derivative > 0);
}

TEST_CASE("the splatting film's variance is 1/pi of importance sampling's for the Gaussian, its image the same", "[splat]") {
  // Per-pixel variance over 12 seeds of the plane alone (expected 0.5 everywhere) at 4 spp.
  constexpr int kSeeds = 12;
  double variance[2] = {0, 0}, mean[2] = {0, 0};
  long count = 0;
  for (int splat = 0; splat < 2; ++splat) {
    std::vector<Image> images;
    for (int seed = 0; seed < kSeeds; ++seed) images.push_back(render_local(scene(splat, 4, uint64_t(seed), false), 2, RenderOutputs{}));
    count = 0;
    for (int y = 0; y < images[0].height; ++y)
      for (int x = 0; x < images[0].width; ++x, ++count) {
        double sum = 0, sum_sq = 0;
        for (const Image& im : images) {
          sum += im.pixel(x, y)[1];
          sum_sq += double(im.pixel(x, y)[1]) * im.pixel(x, y)[1];
        }
        mean[splat] += sum / kSeeds;
        variance[splat] += (sum_sq - sum * sum / kSeeds) / (kSeeds - 1);
      }
    mean[splat] /= count;
    variance[splat] /= count;
  }
  INFO("variance sampled " << variance[0] << ", splatted " << variance[1] << "; means " << mean[0] << ", " << mean[1]);
  CHECK(variance[1] / variance[0] == Approx(1.0 / M_PI).margin(0.04));
  // The whole image's mean: 0.5 within 5 standard errors of each film's.
  for (int splat = 0; splat < 2; ++splat) CHECK(std::fabs(mean[splat] - 0.5) <= 5 * std::sqrt(variance[0] / (count * kSeeds)));
}

TEST_CASE("the splatting film with sample_border: a crop's pixels are the whole film's", "[splat]") {
  Scene whole = scene(true, 2, 5);
  const Image full = render_local(whole, 2, RenderOutputs{});
  Scene cropped = scene(true, 2, 5);
  cropped.render.crop = Tile{3, 4, 15, 13};
  const Image crop = render_local(cropped, 2, RenderOutputs{});
  bool same = true;
  for (int y = 4; y < 13; ++y)
    for (int x = 3; x < 15; ++x)
      for (int c = 0; c < 3; ++c) same = same && crop.pixel(x, y)[c] == full.pixel(x, y)[c];
  CHECK(same);
}
