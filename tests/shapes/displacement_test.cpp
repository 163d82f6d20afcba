// dray's `displacement` (renderer/shapes/displacement.h) on scenes/lens-heightmap.json: a 9 × 9
// grid (the lens's exit face, facing -y) displaced by a 4 × 4 heightmap. Its vertices against the
// bilinear lookup written out here; its derivatives by a texel against its vertices' derivatives as a plain
// vertex block, chained (an independent path through the kernel); forward mode
// against reverse mode by texels; and against central differences with the same light paths.
#include <catch2/catch.hpp>

#include <cmath>

#include "renderer/integrators/render_tiles.h"
#include "renderer/scene_params.h"
#include "tests/integrators/lens_scenes.h"

using namespace dray;

namespace {

constexpr int kGrid = 9, kTexels = 4;

Scene heightmap_lens(int spp, uint64_t seed = 1, std::vector<std::string> more = {}) {
  return lens_scene("lens-heightmap.json", spp, seed, std::move(more));
}

// A heightmap of grey bumps, ±0.04: texel (i, j) (row i from the top), H×W×3.
std::vector<float> bumps() {
  std::vector<float> h;
  for (int i = 0; i < kTexels; ++i)
    for (int j = 0; j < kTexels; ++j)
      for (int c = 0; c < 3; ++c) h.push_back(0.04f * float((i + 2 * j) % 3 - 1));
  return h;
}

// The bitmap's bilinear height at uv, wrapping (texel centres at (k + 0.5) / 4).
double bilinear(const std::vector<float>& h, double u, double v) {
  const double x = u * kTexels - 0.5, y = v * kTexels - 0.5;
  const int x0 = int(std::floor(x)), y0 = int(std::floor(y));
  const double fx = x - x0, fy = y - y0;
  auto at = [&](int i, int j) { return double(h[size_t(3 * (((j % kTexels + kTexels) % kTexels) * kTexels + (i % kTexels + kTexels) % kTexels))]); };
  return (1 - fx) * (1 - fy) * at(x0, y0) + fx * (1 - fy) * at(x0 + 1, y0) + (1 - fx) * fy * at(x0, y0 + 1) + fx * fy * at(x0 + 1, y0 + 1);
}

const Mesh& lens_mesh(const Scene& s) {
  for (const Shape& shape : s.shapes)
    if (shape.name == "lens") return s.meshes[shape.as<MeshShape>().mesh];
  FAIL("no lens");
  return s.meshes[0];
}

}  // namespace

TEST_CASE("displacement: each vertex moves along its normal by the texture's height at its UV", "[displacement]") {
  Scene s = heightmap_lens(1);
  const Slot texel = slots_of(s, {"textures.heightmap.data[1,2,0]"})[0];
  CHECK(s.moves_geometry(texel));
  CHECK_FALSE(s.moves_geometry(slots_of(s, {"materials.white.reflectance[0]"})[0]));
  CHECK_FALSE(s.params.find("shapes.lens.vertices"));  // the heightmap is its shape
  const std::vector<float> h = bumps();
  update_params(s, {{"textures.heightmap.data", h}});
  const Mesh& m = lens_mesh(s);
  REQUIRE(m.world_positions.size() == size_t(kGrid * kGrid));
  double worst = 0, moved = 0;
  for (int i = 0; i < kGrid; ++i)
    for (int j = 0; j < kGrid; ++j) {
      // The OBJ's vertex (i, j) at x = -1 + i/4, z = -1 + j/4, its vt (i/8, j/8) flipped in v as Mitsuba reads OBJs.
      const double u = i / 8.0, v = 1.0 - j / 8.0, height = bilinear(h, u, v);
      const glm::vec3 p = m.world_positions[size_t(i * kGrid + j)];
      worst = std::max({worst, std::abs(p.x - (-1 + i / 4.0)), std::abs(p.y + height), std::abs(p.z - (-1 + j / 4.0))});
      moved = std::max(moved, std::abs(height));
    }
  CHECK(worst < 1e-6);
  CHECK(moved > 0.02);
  // Its smooth normals follow the bumps.
  double tilt = 0;
  for (const glm::vec3& n : m.world_normals) tilt = std::max(tilt, 1.0 - double(-n.y));
  CHECK(tilt > 1e-3);
}

TEST_CASE("displacement: a texel's derivative is its vertices' along their normals, by the chain rule", "[displacement]") {
  // Texel (1, 2) moves each vertex v by -w_v(texel) · luminance along y (w_v its bilinear weight at
  // v's UV); its three channels' luminance weights sum to 1. The same grid as a plain vertex block
  // at the displaced positions gives the vertices' derivatives through the kernel's other path.
  Scene displaced = heightmap_lens(16);
  const std::vector<float> h = bumps();
  update_params(displaced, {{"textures.heightmap.data", h}});
  Scene plain = heightmap_lens(16, 1, {"shapes.lens.displacement=null"});
  std::vector<float> positions;
  for (const glm::vec3& p : lens_mesh(displaced).object_positions) positions.insert(positions.end(), {p.x, p.y, p.z});
  update_params(plain, {{"shapes.lens.vertices", positions}});
  const Image g = ramp();
  const std::vector<double> texel = reverse(displaced, g, slots_of(displaced, {"textures.heightmap.data[1,2,0]", "textures.heightmap.data[1,2,1]", "textures.heightmap.data[1,2,2]"}), 2);
  const double d_texel = texel[0] + texel[1] + texel[2];
  std::vector<std::string> ys;
  for (int v = 0; v < kGrid * kGrid; ++v) ys.push_back("shapes.lens.vertices[" + std::to_string(v) + ",1]");
  const std::vector<double> d_y = reverse(plain, g, slots_of(plain, ys), 2);
  double chained = 0;
  for (int i = 0; i < kGrid; ++i)
    for (int j = 0; j < kGrid; ++j) {
      std::vector<float> one(h.size(), 0.f);  // texel (1, 2)'s bilinear weight at the vertex: the lookup of a unit texel
      for (int c = 0; c < 3; ++c) one[size_t(3 * (1 * kTexels + 2) + c)] = 1.f;
      chained -= bilinear(one, i / 8.0, 1.0 - j / 8.0) * d_y[size_t(i * kGrid + j)];
    }
  INFO("d/dtexel " << d_texel << ", chained " << chained);
  CHECK(std::abs(d_texel) > 1e-2);
  CHECK(d_texel == Approx(chained).epsilon(1e-4));
  // The images agree bitwise: the same positions, the same normals.
  CHECK(render_local(displaced, 2).data == render_local(plain, 2).data);
}

TEST_CASE("displacement: forward and reverse mode by texels agree", "[displacement]") {
  Scene s = heightmap_lens(16);
  update_params(s, {{"textures.heightmap.data", bumps()}});
  const std::vector<std::string> names = {"textures.heightmap.data[1,1,0]", "textures.heightmap.data[1,2,1]",
                                          "textures.heightmap.data[2,1,1]", "textures.heightmap.data[3,0,2]",
                                          "shapes.lens.rotate_z"};
  RenderOutputs outputs;
  outputs.wrt = slots_of(s, names);
  const Image forward = render_local(s, 2, outputs);
  const Image g = ramp();
  const std::vector<double> rev = reverse(s, g, outputs.wrt, 2);
  for (size_t k = 0; k < names.size(); ++k) {
    INFO(names[k] << ": forward " << weighted(forward, g, outputs.derivative_channel(k)) << ", reverse " << rev[k]);
    const double fwd = weighted(forward, g, outputs.derivative_channel(k));
    CHECK(std::abs(rev[k] - fwd) <= 1e-5 * std::abs(fwd) + 1e-9);
    CHECK(std::abs(fwd) > 1e-5);
  }
  CHECK(reverse(s, g, outputs.wrt, 1) == rev);  // exact sums: bitwise on any thread count
}

TEST_CASE("displacement: a texel's derivative against central differences with the same light paths", "[displacement]") {
  const std::string name = "textures.heightmap.data[1,2,1]";
  const Image g = ramp();
  for (double h : {0.01, 0.005}) {
    double ad_sum = 0, fd_sum = 0, fd_sq = 0;
    const int seeds = 3;
    for (int seed = 1; seed <= seeds; ++seed) {
      Scene s = heightmap_lens(32, uint64_t(seed));
      update_params(s, {{"textures.heightmap.data", bumps()}});
      RenderOutputs outputs;
      outputs.wrt = slots_of(s, {name});
      ad_sum += weighted(render_local(s, 2, outputs), g, outputs.derivative_channel(0));
      const float value = s.params.get(outputs.wrt[0]);
      auto at = [&](double v) {
        Scene moved = s;
        update_params(moved, {{name, {float(v)}}});
        return render_local(moved, 2);
      };
      const double fd = (weighted(at(value + h), g) - weighted(at(value - h), g)) / (2 * h);
      fd_sum += fd;
      fd_sq += fd * fd;
    }
    const double fd_mean = fd_sum / seeds, ad_mean = ad_sum / seeds;
    const double stderr_fd = std::sqrt(std::max(0.0, fd_sq / seeds - fd_mean * fd_mean) / (seeds - 1));
    INFO(name << " h " << h << ": AD " << ad_mean << ", FD " << fd_mean << " +- " << stderr_fd);
    WARN(name << " h " << h << ": AD " << ad_mean << ", FD " << fd_mean << " +- " << stderr_fd);
    CHECK(std::abs(ad_mean - fd_mean) <= 0.02 * std::abs(fd_mean) + 3 * stderr_fd);
    CHECK(std::abs(fd_mean) > 1e-3);
  }
}

TEST_CASE("displacement: what it needs is asked for", "[displacement]") {
  CHECK_THROWS_WITH(heightmap_lens(1, 1, {"shapes.lens.displacement.texture=nothing"}), Catch::Contains("no texture named \"nothing\""));
  CHECK_THROWS_WITH(heightmap_lens(1, 1, {"shapes.lens.file=models/lens-grid.obj"}), Catch::Contains("no texture coordinates"));
  CHECK_THROWS_WITH(heightmap_lens(1, 1, {"shapes.lens.displacement.size=2"}), Catch::Contains("unknown key"));
}
