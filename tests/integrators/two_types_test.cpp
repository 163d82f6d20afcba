// The kernel on two scalar types (renderer/integrators/two_types.h): with geometry in float where a
// pass seeds no geometry, forward and reverse derivatives equal the one-type kernel's, parameter
// entry by entry, in every example scene and in a scene of the geometric kinds the example scenes
// lack (a normal map, point, spot and directional lights, a refracting sphere in a blend). An entry
// that moves geometry and were not detected by geometry_seeded would lose its derivative and fail.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "ad/dual.h"
#include "renderer/integrators/gradient_tiles.h"
#include "renderer/integrators/pixel_estimate.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;

namespace {

const std::string kScenes = std::string(DRAY_SOURCE_DIR) + "/scenes";
constexpr int kW = 12, kH = 9;

std::vector<std::string> size_overrides(int spp) {
  return {"camera.width=" + std::to_string(kW), "camera.height=" + std::to_string(kH), "render.spp=" + std::to_string(spp)};
}

// The kinds the example scenes lack: a bitmap normal map, point, spot and directional lights, a
// dielectric inside a blend.
Scene geometric_kinds() {
  const json normal_map = {{"type", "bitmap"}, {"width", 2}, {"height", 2}, {"value", {0.6, 0.45, 0.9}}, {"raw", true}};
  const json doc = {
      {"camera", {{"origin", {0, 2, 4}}, {"target", {0, 0, 0}}, {"width", kW}, {"height", kH}}},
      {"render", {{"spp", 4}, {"max_depth", 4}}},
      {"textures", {{"bumps", normal_map}}},
      {"materials",
       {{"mapped", {{"type", "normalmap"}, {"normalmap", "bumps"}, {"bsdf", {{"type", "diffuse"}, {"reflectance", 0.6}}}}},
        {"mixed", {{"type", "blendbsdf"}, {"weight", 0.4},
                   {"bsdf", {{{"type", "dielectric"}, {"int_ior", 1.4}}, {{"type", "diffuse"}, {"reflectance", 0.3}}}}}}}},
      {"shapes",
       {{{"type", "quad"}, {"corner", {-3, 0, -3}}, {"edge_u", {0, 0, 6}}, {"edge_v", {6, 0, 0}}, {"material", "mapped"}},
        {{"type", "sphere"}, {"center", {0.3, 0.8, 0}}, {"radius", 0.7}, {"material", "mixed"}}}},
      {"lights",
       {{{"type", "point"}, {"position", {1, 3, 1}}, {"intensity", 8}},
        {{"type", "spot"}, {"position", {-1, 3, 1}}, {"target", {0, 0, 0}}, {"intensity", 10}},
        {{"type", "directional"}, {"direction", {0.2, -1, -0.3}}, {"irradiance", 0.5}}}}};
  return load_scene(doc, "kinds.json");
}

std::vector<std::pair<std::string, Scene>> scenes() {
  std::vector<std::pair<std::string, Scene>> out;
  for (const char* file : {"spheres.json", "cornell-box.json", "materials.json", "glow-fit.json", "light-fit.json",
                           "shadow-fit.json", "texture-fit.json", "roughness-fit.json"})
    out.emplace_back(file, load_scene(kScenes + "/" + file, size_overrides(2)));
  out.emplace_back("geometric kinds", geometric_kinds());
  return out;
}

std::vector<Slot> slots_of(const ParamEntry& e) {
  std::vector<Slot> s(e.size);
  std::iota(s.begin(), s.end(), e.slot);
  return s;
}

}  // namespace

TEST_CASE("reverse: the two-type replay gives the one-type gradient, entry by entry", "[two_types]") {
  int float_geometry = 0, adjoint_geometry = 0;
  for (const auto& [name, scene] : scenes()) {
    std::vector<Tile> tiles = make_tiles(kW, kH, 4);
    std::vector<int> ids(tiles.size());
    std::iota(ids.begin(), ids.end(), 0);
    Image target(kW, kH, 3), primal(kW, kH, 3);
    for (float& v : target.data) v = 0.25f;
    for (const ParamEntry& e : scene.params.entries()) {
      const std::vector<Slot> params = slots_of(e);
      const Seeds seeds(scene.params.values().size(), params);
      (geometry_seeded(scene, scene.shot(), ParamView<float>(scene.params, seeds)) ? adjoint_geometry : float_geometry)++;
      GradientMode one;
      one.one_type = true;
      const GradientResult two = gradient_tiles(scene, scene.shot(), tiles, ids, target, Loss::l2, 3.0 * kW * kH, params, 2, primal,
                                                scene.render.seed, {});
      const GradientResult ref = gradient_tiles(scene, scene.shot(), tiles, ids, target, Loss::l2, 3.0 * kW * kH, params, 2, primal,
                                                scene.render.seed, one);
      double largest = 0;
      for (double g : ref.gradient) largest = std::max(largest, std::fabs(g));
      for (size_t k = 0; k < params.size(); ++k) {
        INFO(name << ": " << e.name << "[" << k << "]");
        CHECK(two.gradient[k] == Approx(ref.gradient[k]).epsilon(1e-6).margin(1e-6 * largest + 1e-15));
      }
      CHECK(two.loss == ref.loss);
    }
  }
  // Both kinds of pass were exercised.
  CHECK(float_geometry > 20);
  CHECK(adjoint_geometry > 20);
}

TEST_CASE("forward: geometry in float gives the one-type tangents and the float image", "[two_types]") {
  using D = ad::Dual<4>;
  int compared = 0;
  for (const auto& [name, scene] : scenes()) {
    const ParamView<float> Pf(scene.params);
    for (const ParamEntry& e : scene.params.entries()) {
      std::vector<Slot> params = slots_of(e);
      params.resize(std::min<size_t>(params.size(), 4));
      const Seeds seeds(scene.params.values().size(), params);
      const ParamView<D> P(scene.params, seeds);
      if (geometry_seeded(scene, scene.shot(), P)) continue;
      ++compared;
      for (int y = 0; y < kH; y += 2)
        for (int x = 0; x < kW; x += 3) {
          const PixelEstimate<D> two = pixel_estimate<D, float>(scene, scene.shot(), P, x, y), one = pixel_estimate<D, D>(scene, scene.shot(), P, x, y);
          const PixelEstimate<float> plain = pixel_estimate(scene, scene.shot(), Pf, x, y);
          INFO(name << ": " << e.name << " at pixel " << x << ", " << y);
          CHECK(two.mean == plain.mean);
          CHECK(two.nonfinite == one.nonfinite);
          for (size_t k = 0; k < params.size(); ++k)
            for (int c = 0; c < 3; ++c)
              CHECK(two.tangent[k][c] == Approx(one.tangent[k][c]).epsilon(1e-6).margin(1e-12));
        }
    }
  }
  CHECK(compared > 20);
}
