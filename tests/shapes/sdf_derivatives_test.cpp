// An sdfgrid's transform derivatives (its silhouettes and shadows drawn by
// renderer/shapes/sdf_contour.h, its surface moving in the kernel): against central differences
// at h and h/2 (over each image half, which holds one of the moving outline's sides) and against
// the analytic sphere's derivatives (a 64³ grid of its distances); reverse mode equal to forward.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "renderer/core/tile.h"
#include "renderer/integrators/gradient.h"
#include "tests/integrators/shadow_check.h"
#include "tests/shapes/sdf_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// The forward derivative by a sum of scalars (name, coefficient), summed over columns [x0, x1),
// the mean over seeds 1 .. seeds.
double forward_sum(const Scene& scene, const std::vector<std::pair<std::string, double>>& wrt, int x0, int x1,
                   int seeds = 3) {
  RenderOutputs out;
  for (const auto& [name, coef] : wrt) out.wrt.push_back(slot_of(scene, name));
  double sum = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    Scene s = scene;
    s.render.seed = uint64_t(seed);
    const Image im = render_local(s, 2, out);
    for (size_t k = 0; k < wrt.size(); ++k)
      sum += wrt[k].second * region_sum(im, out.derivative_channel(k), x0, x1, 0, 48) / seeds;
  }
  return sum;
}

// The lit scene's ball alone under its sky, seen directly (max_depth 1): only the outline moves;
// red albedo dark so that its step (0.2 against 0.04) is most of the sum.
json sky_scene(bool sdf) {
  json doc = lit_scene(sdf);
  doc["render"] = {{"spp", 16}, {"max_depth", 1}, {"boundary_samples", 40000}};
  doc["materials"]["clay"]["albedo"] = {0.2, 0.5, 0.7};
  doc["shapes"].erase(1);
  doc["lights"].erase(0);
  return doc;
}

// The same scene with its ball (the sdfgrid) in a group at half size about the origin and an
// instance scaling it back by 2 and moving it: the same surface.
json instanced(json doc) {
  json member = doc["shapes"][0];
  member.erase("name");
  member["transform"] = {{"translate", {-0.5, -0.5, -0.5}}};
  doc["shapes"][0] = {{"name", "g"}, {"type", "group"}, {"shapes", json::array({member})}};
  doc["shapes"].push_back({{"name", "ball"}, {"type", "instance"}, {"group", "g"},
                           {"transform", {{"scale", 2}, {"translate", {0, 0.7, 0}}}}});
  return doc;
}

// Reverse mode (the gradient of the image mean) against the mean of the forward derivative
// images, by each named parameter.
void check_reverse_equals_forward(Scene scene, std::initializer_list<const char*> names) {
  scene.render.spp = 4;
  const std::vector<Tile> tiles = make_tiles(64, 48, 8);
  std::vector<int> ids(tiles.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::vector<Slot> slots;
  for (const char* name : names) slots.push_back(slot_of(scene, name));
  // The gradient of the image mean, and the mean of the forward derivative images.
  Image none(64, 48, 3), primal(64, 48, 3);
  const GradientResult rev = gradient_tiles(scene, tiles, ids, none, Loss::mean, 3.0 * 64 * 48, slots, 2, primal, scene.render.seed);
  RenderOutputs out;
  out.wrt = slots;
  Image fwd(64, 48, out.channels());
  render_tiles(scene, tiles, ids, fwd, 2, out);
  for (size_t k = 0; k < slots.size(); ++k) {
    double mean = 0, mean_abs = 0;
    for (size_t i = 0; i < size_t(64 * 48); ++i)
      for (int c = 0; c < 3; ++c) {
        const double d = fwd.data[i * size_t(fwd.channels) + size_t(out.derivative_channel(k)) + size_t(c)];
        mean += d / (3.0 * 64 * 48);
        mean_abs += std::fabs(d) / (3.0 * 64 * 48);
      }
    INFO("parameter " << k << ": reverse " << rev.gradient[k] << ", forward " << mean);
    CHECK(mean_abs > 1e-4);
    CHECK(rev.gradient[k] == Approx(mean).epsilon(1e-5).margin(1e-5 * mean_abs + 1e-12));
  }
}

}  // namespace

TEST_CASE("an sdfgrid's translation and scale against central differences and the analytic sphere", "[sdf]") {
  // Its outline is mostly the creases where voxels meet (the trilinear surface is only C0); its
  // smooth normal turns from the viewer in a band just inside them (renderer/integrators/boundary.h).
  TempDir t("dray-sdf-moving-");
  sphere_vol(t, 64);
  const std::string path = (t.dir / "scene.json").string();
  const Scene sdf = load_scene(sky_scene(true), path), sphere = load_scene(sky_scene(false), path);
  for (auto [x0, x1] : {std::pair{0, 32}, std::pair{32, 64}}) {
    // x: the outline's sides, against central differences (edges moved about 1 and 0.5 pixels)
    // and the analytic sphere's centre.
    const ForwardAndDifferences r = forward_and_differences(sdf, slot_of(sdf, "shapes.ball.translate[0]"), 0.04f, x0, x1, 0, 48, 256);
    const double analytic = forward_sum(sphere, {{"shapes.ball.center[0]", 1.0}}, x0, x1);
    INFO("columns " << x0 << "-" << x1 << ": translate[0] forward " << r.fwd << ", differences " << r.fd << " (h), "
                    << r.fd_half << " (h/2); the analytic sphere's " << analytic);
    CHECK(std::fabs(r.fwd) > 10.0);
    CHECK(r.fwd == Approx(r.fd).epsilon(0.02));
    CHECK(r.fd_half == Approx(r.fd).epsilon(0.02));
    CHECK(r.fwd == Approx(analytic).epsilon(0.02));
    // scale s of the object cube: the radius grows by 0.35 s and the centre by (0.5, 0.5, 0.5) s.
    const double by_scale = forward_sum(sdf, {{"shapes.ball.scale", 1.0}}, x0, x1);
    const double grown = forward_sum(sphere, {{"shapes.ball.radius", 0.35}, {"shapes.ball.center[0]", 0.5},
                                              {"shapes.ball.center[1]", 0.5}, {"shapes.ball.center[2]", 0.5}}, x0, x1);
    INFO("scale: forward " << by_scale << ", the analytic sphere's " << grown);
    CHECK(by_scale == Approx(grown).epsilon(0.03));
  }
}

TEST_CASE("an sdfgrid lit by a point light: its outline, shading and shadow on the floor move as the sphere's", "[sdf]") {
  // Direct light only; the image halves' sums of d/dx over 6 seeds, and the analytic sphere's,
  // against central differences (256 spp): the outline, the shading turning and the floor's shadow.
  TempDir t("dray-sdf-lit-");
  sphere_vol(t, 64);
  json doc = lit_scene(true), ball = lit_scene(false);
  for (json* d : {&doc, &ball}) {
    (*d)["render"] = {{"spp", 16}, {"max_depth", 1}, {"boundary_samples", 40000}};
    (*d)["lights"].erase(1);
  }
  const std::string path = (t.dir / "scene.json").string();
  const Scene sdf = load_scene(doc, path), sphere = load_scene(ball, path);
  for (auto [x0, x1] : {std::pair{0, 32}, std::pair{32, 64}}) {
    const double fwd = forward_sum(sdf, {{"shapes.ball.translate[0]", 1.0}}, x0, x1, 6);
    const double analytic = forward_sum(sphere, {{"shapes.ball.center[0]", 1.0}}, x0, x1, 6);
    const double fd = region_difference(sdf, slot_of(sdf, "shapes.ball.translate[0]"), 0.04f, x0, x1, 0, 48, 1, 256);
    INFO("columns " << x0 << "-" << x1 << ": forward " << fwd << ", the analytic sphere's " << analytic << ", differences " << fd);
    CHECK(fwd == Approx(fd).epsilon(0.03));
    CHECK(analytic == Approx(fd).epsilon(0.03));
  }
}

TEST_CASE("an instanced sdfgrid's transform derivatives are the directly placed one's", "[sdf]") {
  // The instance's x and scale move the same outline as the direct grid's (measured: the same
  // sums to 6 digits).
  TempDir t("dray-sdf-instance-");
  sphere_vol(t, 48);
  const std::string path = (t.dir / "scene.json").string();
  const Scene a = load_scene(sky_scene(true), path), b = load_scene(instanced(sky_scene(true)), path);
  for (auto [x0, x1] : {std::pair{0, 32}, std::pair{32, 64}}) {
    const double fa = forward_sum(a, {{"shapes.ball.translate[0]", 1.0}}, x0, x1);
    const double fb = forward_sum(b, {{"shapes.ball.translate[0]", 1.0}}, x0, x1);
    // The instance's scale grows the sphere about its centre; the direct grid's about the grid's
    // corner, also moving the centre by (0.5, 0.5, 0.5) per unit.
    const double sa = forward_sum(a, {{"shapes.ball.scale", 1.0}, {"shapes.ball.translate[0]", -0.5},
                                      {"shapes.ball.translate[1]", -0.5}, {"shapes.ball.translate[2]", -0.5}}, x0, x1);
    const double sb = forward_sum(b, {{"shapes.ball.scale", 1.0}}, x0, x1);
    INFO("columns " << x0 << "-" << x1 << ": translate[0] direct " << fa << ", instanced " << fb << "; scale " << sa << ", " << sb);
    CHECK(std::fabs(fa) > 10.0);
    CHECK(sb == Approx(sa).epsilon(1e-3));
    CHECK(fb == Approx(fa).epsilon(1e-3));
  }
}

TEST_CASE("an sdfgrid's transform: reverse mode equals forward mode with the same samples", "[sdf][reverse]") {
  TempDir t("dray-sdf-reverse-");
  sphere_vol(t, 32);
  const std::string path = (t.dir / "scene.json").string();
  check_reverse_equals_forward(load_scene(lit_scene(true), path), {"shapes.ball.translate[1]", "shapes.ball.rotate_y", "shapes.ball.scale"});
  // The instance's (it turns the sphere about its centre: no rotation here).
  check_reverse_equals_forward(load_scene(instanced(lit_scene(true)), path), {"shapes.ball.translate[0]", "shapes.ball.translate[1]", "shapes.ball.scale"});
}
