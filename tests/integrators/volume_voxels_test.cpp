// A density grid's reverse gradient, one parameter per voxel, against a closed form dray did not
// make: the image's mean through an absorbing grid before a sky of radiance 1. Each ray sees
// T = exp(−s ∫σ) and dT/dv_k = −T s ∫ w_k; the closed form integrates that over each pixel (a
// 16×16 grid of film points, box filter) with the trilinear weights written out here, not the
// grid's. The kernel's gradient (delta tracking, path replay) over the whole block is compared on
// 100 voxels drawn at random among those the image depends on (≥ 25% of the largest derivative).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "renderer/integrators/gradient_tiles.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/integrators/volume_scenes.h"

using namespace dray;
using nlohmann::json;

namespace {

constexpr int kRes = 8, kW = 16, kH = 16;
constexpr float kScale = 1.5f;

// d mean(I) / d v_k for every voxel of the grid `v` (kRes³ in [−0.5, 0.5]³, scale kScale).
std::vector<double> closed_form(const Scene& s, const std::vector<float>& v) {
  std::vector<double> closed(v.size(), 0.0);
  const ParamView<float> P(s.params);
  // 16² film points: 6² left a quadrature error of up to 2.6% on voxels at the edge of a
  // pixel's footprint (measured against 16², 65,536 spp).
  const int n_film = 16, n_steps = 400;
  for (int py = 0; py < kH; ++py)
    for (int px = 0; px < kW; ++px)
      for (int j = 0; j < n_film * n_film; ++j) {
        const RayT<float> ray = camera_ray(s.own_camera(), P, float(px) + (float(j % n_film) + 0.5f) / n_film,
                                           float(py) + (float(j / n_film) + 0.5f) / n_film);
        const glm::vec3 o = value(ray.o), d = value(ray.d);
        float t0 = 0.f, t1 = INFINITY;  // the chord through [−0.5, 0.5]³
        for (int a = 0; a < 3; ++a) {
          float ta = (-0.5f - o[a]) / d[a], tb = (0.5f - o[a]) / d[a];
          if (ta > tb) std::swap(ta, tb);
          t0 = std::max(t0, ta);
          t1 = std::min(t1, tb);
        }
        if (!(t0 < t1)) continue;
        double depth = 0;
        std::vector<std::pair<size_t, double>> w;  // ∫ w_k along the chord, per voxel touched
        const double dt = double(t1 - t0) / n_steps;
        for (int i = 0; i < n_steps; ++i) {
          const glm::vec3 u = o + d * (t0 + (t1 - t0) * (float(i) + 0.5f) / float(n_steps)) + glm::vec3(0.5f);
          int lo[3];
          double f[3];
          for (int a = 0; a < 3; ++a) {
            const double x = double(u[a]) * kRes - 0.5;
            lo[a] = int(std::floor(x));
            f[a] = x - std::floor(x);
          }
          for (int k = 0; k < 8; ++k) {
            int idx[3];
            double wk = 1;
            for (int a = 0; a < 3; ++a) {
              const int hi = (k >> a) & 1;
              idx[a] = std::clamp(lo[a] + hi, 0, kRes - 1);
              wk *= hi ? f[a] : 1 - f[a];
            }
            const size_t voxel = (size_t(idx[2]) * kRes + size_t(idx[1])) * kRes + size_t(idx[0]);
            depth += wk * v[voxel] * kScale * dt;
            w.push_back({voxel, wk * dt});
          }
        }
        const double tr = std::exp(-depth) / (double(kW) * kH * n_film * n_film);
        for (const auto& [voxel, wk] : w) closed[voxel] -= tr * kScale * wk;
      }
  return closed;
}

struct VoxelErrors {
  double worst = 0, rms = 0, sum = 0;  // relative: the worst of 100 voxels, rms and summed over all candidates
};

// The reverse gradient of the whole block at `spp` (majorant slack `majorant_factor`) against the
// closed form; each of the 100 voxels is CHECKed against `each`.
VoxelErrors voxel_errors(int spp, double majorant_factor, double each) {
  testing::TempDir t("dray-voxels-");
  const std::vector<float> v = testing::patterned_grid(t, kRes, 0.1f);
  const json medium = {{"type", "heterogeneous"}, {"albedo", 0}, {"scale", kScale}, {"majorant_factor", majorant_factor},
                       {"sigma_t", {{"type", "gridvolume"}, {"filename", "g.vol"},
                                    {"to_world", {1, 0, 0, -0.5, 0, 1, 0, -0.5, 0, 0, 1, -0.5, 0, 0, 0, 1}}}}};
  json doc = testing::absorbing_scene(medium);
  doc["camera"] = {{"origin", {0.3, 0.2, 3}}, {"target", {0, 0, 0}}, {"fov_y", 24}, {"width", kW}, {"height", kH}};
  doc["render"]["spp"] = spp;
  const Scene s = load_scene(doc, (t.dir / "m.json").string());
  const std::vector<double> closed = closed_form(s, v);

  const std::vector<Tile> tiles = make_tiles(kW, kH, 8);
  std::vector<int> ids(tiles.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::vector<Slot> all(v.size());
  for (size_t k = 0; k < v.size(); ++k) all[k] = s.volumes[0].data + Slot(k);
  Image primal(kW, kH, 3), none(kW, kH, 3);
  const GradientResult rev = gradient_tiles(s, s.shot(), tiles, ids, none, Loss::mean, 3.0 * kW * kH, all, 2, primal, s.render.seed);

  double largest = 0;
  for (double c : closed) largest = std::max(largest, std::fabs(c));
  std::vector<size_t> candidates;
  for (size_t k = 0; k < v.size(); ++k)
    if (std::fabs(closed[k]) >= 0.25 * largest) candidates.push_back(k);
  REQUIRE(candidates.size() >= 100);
  std::mt19937 rng(11);
  std::shuffle(candidates.begin(), candidates.end(), rng);
  VoxelErrors e;
  for (size_t i = 0; i < 100; ++i) {
    const size_t k = candidates[i];
    const double err = std::fabs(rev.gradient[k] - closed[k]) / std::fabs(closed[k]);
    e.worst = std::max(e.worst, err);
    INFO("voxel " << k << ": reverse " << rev.gradient[k] << ", closed form " << closed[k]);
    CHECK(err <= each);
  }
  double sum_rev = 0, sum_closed = 0, sq = 0;
  for (size_t k : candidates) {
    sum_rev += rev.gradient[k];
    sum_closed += closed[k];
    sq += std::pow((rev.gradient[k] - closed[k]) / closed[k], 2);
  }
  e.rms = std::sqrt(sq / double(candidates.size()));
  e.sum = sum_rev / sum_closed - 1;
  WARN(spp << " spp, majorant factor " << majorant_factor << ": worst of 100 voxels " << e.worst << " (of "
           << candidates.size() << " candidates), rms " << e.rms << ", summed " << e.sum);
  return e;
}

}  // namespace

TEST_CASE("a grid's reverse gradient: 100 random voxels against the closed form", "[volume]") {
  // The estimate is noisy voxel by voxel (null-collision weights 1/(μ − σ) have heavy tails where
  // σ nears its cell's majorant; majorant_factor 2 keeps μ − σ ≥ σ). At 8,192 spp measured worst
  // 4.1%, rms 1.4%, sum 0.16%; the error falls as 1/√spp (the [2pct] case below), no bias.
  const VoxelErrors e = voxel_errors(8192, 2.0, 0.08);
  CHECK(e.rms <= 0.025);
  CHECK(std::fabs(e.sum) <= 0.01);
}

// Issue 34's goal, each voxel within 2%: 65,536 spp (~35 s in Release; ctest
// integrators_volume_voxels_2pct, label slow). Measured worst 1.54%, rms 0.51%, sum 0.007%; at
// majorant_factor 1.01 worst 2.7%, and with 6² film points in the closed form 2.6%.
TEST_CASE("a grid's reverse gradient: each of 100 random voxels within 2%", "[.][2pct]") {
  const VoxelErrors e = voxel_errors(65536, 2.0, 0.02);
  CHECK(e.rms <= 0.01);
  CHECK(std::fabs(e.sum) <= 0.005);
}
