// An sdfgrid's transform derivatives (its silhouettes and shadows drawn by
// renderer/shapes/sdf_contour.h, its surface moving in the kernel): against central differences
// at h and h/2 (over each image half, which holds one of the moving outline's sides) and against
// the analytic sphere's derivatives (a 64³ grid of its distances); reverse mode equal to forward.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "renderer/core/tile.h"
#include "renderer/integrators/gradient_tiles.h"
#include "tests/integrators/shadow_check.h"
#include "tests/shapes/sdf_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// The forward derivative by a sum of scalars (name, coefficient), summed over columns [x0, x1)
// and rows [y0, y1), the mean over the scene's seed + 1 .. seeds.
double forward_sum(const Scene& scene, const std::vector<std::pair<std::string, double>>& wrt, int x0, int x1,
                   int seeds = 3, int y0 = 0, int y1 = 48) {
  RenderOutputs out;
  for (const auto& [name, coef] : wrt) out.wrt.push_back(slot_of(scene, name));
  double sum = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    Scene s = scene;
    s.render.seed = scene.render.seed + uint64_t(seed);
    const Image im = render_local(s, 2, out);
    for (size_t k = 0; k < wrt.size(); ++k)
      sum += wrt[k].second * region_sum(im, out.derivative_channel(k), x0, x1, y0, y1) / seeds;
  }
  return sum;
}

// The lit scene's ball alone under its sky, seen directly (max_depth 1): only the outline moves;
// red albedo dark so that its step (0.2 against 0.04) is most of the sum.
json sky_scene(bool sdf, const std::string& normals = "smooth") {
  json doc = lit_scene(sdf, normals);
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
  const GradientResult rev = gradient_tiles(scene, scene.shot(), tiles, ids, none, Loss::mean, 3.0 * 64 * 48, slots, 2, primal, scene.render.seed);
  RenderOutputs out;
  out.wrt = slots;
  Image fwd(64, 48, out.channels());
  render_tiles(scene, scene.shot(), tiles, ids, fwd, 2, out);
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

namespace {

struct Window {
  int x0, x1, y0, y1;
};

// Direct light only: sums of d/dx over 6 seeds, and the analytic sphere's, against central
// differences (256 spp), over the image halves (the outline, the shading turning and the floor's
// shadow) and a window inside the ball's outline (its shading alone).
void check_lit(const std::string& normals) {
  TempDir t("dray-sdf-lit-");
  sphere_vol(t, 64);
  json doc = lit_scene(true, normals), ball = lit_scene(false);
  for (json* d : {&doc, &ball}) {
    (*d)["render"] = {{"spp", 16}, {"max_depth", 1}, {"boundary_samples", 40000}};
    (*d)["lights"].erase(1);
  }
  const std::string path = (t.dir / "scene.json").string();
  const Scene sdf = load_scene(doc, path), sphere = load_scene(ball, path);
  for (const Window w : {Window{0, 32, 0, 48}, Window{32, 64, 0, 48}, Window{25, 39, 15, 29}}) {
    const double fwd = forward_sum(sdf, {{"shapes.ball.translate[0]", 1.0}}, w.x0, w.x1, 6, w.y0, w.y1);
    const double fd = region_difference(sdf, slot_of(sdf, "shapes.ball.translate[0]"), 0.04f, w.x0, w.x1, w.y0, w.y1, 1, 256);
    INFO(normals << " normals, columns " << w.x0 << "-" << w.x1 << ", rows " << w.y0 << "-" << w.y1 << ": forward "
                 << fwd << ", differences " << fd);
    CHECK(std::fabs(fd) > 10.0);
    CHECK(fwd == Approx(fd).epsilon(0.03));
    if (normals == "analytic") continue;  // the sphere's shading is the smooth grid's
    const double analytic = forward_sum(sphere, {{"shapes.ball.center[0]", 1.0}}, w.x0, w.x1, 6, w.y0, w.y1);
    INFO("the analytic sphere's " << analytic);
    CHECK(analytic == Approx(fd).epsilon(0.03));
  }
}

}  // namespace

TEST_CASE("an sdfgrid lit by a point light: its outline, shading and shadow on the floor move as the sphere's", "[sdf]") {
  check_lit("smooth");
}

TEST_CASE("an sdfgrid shaded by its analytic normals: the creases where voxels meet move with it", "[sdf]") {
  // Its normal jumps at every voxel face: each crease facing the eye is a shading edge. Inside
  // the outline the creases are most of d/dx (measured: -27.2 against differences of -27.5;
  // without them -2.4).
  check_lit("analytic");
}

TEST_CASE("an analytic-normal sdfgrid's creases seen in a glossy floor move with it", "[sdf]") {
  // The ball's blurred reflection in rough aluminium (rows 37-48, below the ball): its creases seen
  // from the floor's path vertices. The forward sums of 10 seeds, their error bar from their
  // scatter, against central differences at h and h/2 (4 seeds, 1,024 spp). Without the creases:
  // 37.7 (each seed's sum within 2.7 of it) against differences of 12.1.
  TempDir t("dray-sdf-glossy-");
  sphere_vol(t, 64);
  json doc = lit_scene(true, "analytic");
  doc["render"] = {{"spp", 16}, {"max_depth", 2}, {"boundary_samples", 40000}, {"indirect_samples", 400000}};
  doc["lights"].erase(1);
  doc["lights"][0]["position"] = {1.5, 0.4, 2.5};
  doc["materials"]["floor"] = {{"type", "roughconductor"}, {"distribution", "ggx"}, {"alpha", 0.4}, {"material", "Al"}};
  const Scene scene = load_scene(doc, (t.dir / "scene.json").string());
  const Slot x = slot_of(scene, "shapes.ball.translate[0]");
  constexpr int kSeeds = 10;
  double mean = 0, square = 0;
  for (int seed = 0; seed < kSeeds; ++seed) {
    Scene s = scene;
    s.render.seed = uint64_t(seed);
    const double v = forward_sum(s, {{"shapes.ball.translate[0]", 1.0}}, 12, 52, 1, 37, 48);
    mean += v / kSeeds;
    square += v * v / kSeeds;
  }
  const double error = std::sqrt(std::max(0.0, square - mean * mean) / (kSeeds - 1));  // of the mean
  double fd = 0, fd_half = 0;
  for (uint64_t seed : {1, 2, 3, 4}) {
    fd += region_difference(scene, x, 0.04f, 12, 52, 37, 48, seed, 1024) / 4;
    fd_half += region_difference(scene, x, 0.02f, 12, 52, 37, 48, seed, 1024) / 4;
  }
  INFO("forward " << mean << " ± " << error << ", differences " << fd << " (h), " << fd_half << " (h/2)");
  CHECK(fd > 5.0);
  CHECK(fd_half == Approx(fd).epsilon(0.05));
  CHECK(error < 0.15 * fd);  // a test that can tell the creases' term (about 25) from none
  CHECK(std::fabs(mean - fd) < 3.0 * error);
}

TEST_CASE("an instanced sdfgrid's transform derivatives are the directly placed one's", "[sdf]") {
  // The instance's x and scale move the same outline (and with analytic normals the same
  // creases) as the direct grid's (measured: the same sums to 6 digits).
  TempDir t("dray-sdf-instance-");
  sphere_vol(t, 48);
  const std::string path = (t.dir / "scene.json").string();
  for (const char* normals : {"smooth", "analytic"}) {
    const Scene a = load_scene(sky_scene(true, normals), path), b = load_scene(instanced(sky_scene(true, normals)), path);
    for (auto [x0, x1] : {std::pair{0, 32}, std::pair{32, 64}}) {
      const double fa = forward_sum(a, {{"shapes.ball.translate[0]", 1.0}}, x0, x1);
      const double fb = forward_sum(b, {{"shapes.ball.translate[0]", 1.0}}, x0, x1);
      // The instance's scale grows the sphere about its centre; the direct grid's about the grid's
      // corner, also moving the centre by (0.5, 0.5, 0.5) per unit.
      const double sa = forward_sum(a, {{"shapes.ball.scale", 1.0}, {"shapes.ball.translate[0]", -0.5},
                                        {"shapes.ball.translate[1]", -0.5}, {"shapes.ball.translate[2]", -0.5}}, x0, x1);
      const double sb = forward_sum(b, {{"shapes.ball.scale", 1.0}}, x0, x1);
      INFO(normals << " normals, columns " << x0 << "-" << x1 << ": translate[0] direct " << fa << ", instanced " << fb
                   << "; scale " << sa << ", " << sb);
      CHECK(std::fabs(fa) > 10.0);
      CHECK(sb == Approx(sa).epsilon(1e-3));
      CHECK(fb == Approx(fa).epsilon(1e-3));
    }
  }
}

TEST_CASE("an sdfgrid's transform: reverse mode equals forward mode with the same samples", "[sdf][reverse]") {
  TempDir t("dray-sdf-reverse-");
  sphere_vol(t, 32);
  const std::string path = (t.dir / "scene.json").string();
  check_reverse_equals_forward(load_scene(lit_scene(true), path), {"shapes.ball.translate[1]", "shapes.ball.rotate_y", "shapes.ball.scale"});
  // The instance's (it turns the sphere about its centre: no rotation here).
  check_reverse_equals_forward(load_scene(instanced(lit_scene(true)), path), {"shapes.ball.translate[0]", "shapes.ball.translate[1]", "shapes.ball.scale"});
  // Analytic normals: their creases too, from the camera and from path vertices (max_depth 3).
  check_reverse_equals_forward(load_scene(lit_scene(true, "analytic"), path), {"shapes.ball.translate[0]", "shapes.ball.scale"});
}
