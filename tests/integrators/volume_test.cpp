// The kernel's media (renderer/integrators/volume.h) against closed forms: what a camera ray sees
// through an absorbing medium in front of a uniform sky is the sky times the transmittance, and
// its derivatives (σt's scale, each voxel of a grid) are those of exp(−∫σt); a medium outside
// volpath is ignored, as Mitsuba's path ignores it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "ad/dual.h"
#include "renderer/integrators/gradient.h"
#include "renderer/integrators/integrator.h"
#include "renderer/io/scene_loader.h"
#include "tests/media/vol_writer.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;
using D8 = ad::Dual<8>;

namespace {

const std::string kModels = std::string(DRAY_SOURCE_DIR) + "/scenes/models";

// A unit cube at the origin (null boundary) holding `medium`, before a sky of radiance 1.
json absorbing_scene(const json& medium) {
  return {{"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"width", 4}, {"height", 4}}},
          {"render", {{"integrator", "volpath"}, {"max_depth", 8}}},
          {"media", {{"m", medium}}},
          {"materials", {{"none", {{"type", "null"}}}}},
          {"shapes", {{{"name", "box"}, {"type", "mesh"}, {"file", kModels + "/unit-cube.obj"}, {"material", "none"}, {"interior", "m"}}}},
          {"lights", {{{"name", "sky"}, {"type", "environment"}, {"radiance", 1}}}}};
}

// The mean over n paths of the radiance along ray (o, d) and its derivatives.
template <class T>
Vec3<T> mean_radiance(const Scene& s, const ParamView<T>& P, glm::vec3 o, glm::vec3 d, int n) {
  Vec3<T> sum(T(0.f));
  for (int i = 0; i < n; ++i) {
    Sampler sampler(1, 0, uint64_t(i));
    sum = sum + radiance(s, P, RayT<T>{Vec3<T>(o), Vec3<T>(glm::normalize(d))}, sampler);
  }
  return sum / T(float(n));
}

// A res³ grid of values 0.2 + step · ((7x + 3y + 5z) mod res), written as t.dir/g.vol.
std::vector<float> patterned_grid(const testing::TempDir& t, int res, float step) {
  std::vector<float> v;
  for (int z = 0; z < res; ++z)
    for (int y = 0; y < res; ++y)
      for (int x = 0; x < res; ++x) v.push_back(0.2f + step * float((x * 7 + y * 3 + z * 5) % res));
  testing::write_vol((t.dir / "g.vol").string(), res, 1, v);
  return v;
}

}  // namespace

TEST_CASE("an absorbing homogeneous medium: the sky times exp(-sigma_t s d), and its derivatives", "[volume]") {
  // Albedo 0: paths die where they scatter, so the estimate is the transmittance; the ray
  // crosses the cube along z (d = 1).
  const glm::vec3 sigma(0.5f, 1.f, 2.f);
  Scene s = load_scene(absorbing_scene({{"type", "homogeneous"}, {"sigma_t", {0.5, 1, 2}}, {"albedo", 0}, {"scale", 1.5}}), "m.json");
  std::vector<int> seeds(s.params.values().size(), -1);
  seeds[s.media[0].scale] = 0;
  seeds[s.media[0].sigma_t + 2] = 1;
  const ParamView<D8> P(s.params, seeds.data());
  const Vec3<D8> L = mean_radiance(s, P, {0.1f, 0.2f, 5.f}, {0.f, 0.f, -1.f}, 20000);
  for (int c = 0; c < 3; ++c) {
    const float tr = std::exp(-sigma[c] * 1.5f);
    // The channel picked for each distance is random: the estimate is exact only in the mean.
    CHECK(L[c].v == Approx(tr).epsilon(0.02));
    CHECK(L[c].d[0] == Approx(-sigma[c] * tr).epsilon(0.03));
    CHECK(L[c].d[1] == Approx(c == 2 ? -1.5f * tr : 0.f).margin(0.03 * tr));
  }
  // path ignores media, as Mitsuba's path does: the sky, with no derivative.
  s.render.volpath = false;
  const Vec3<D8> plain = mean_radiance(s, P, {0.1f, 0.2f, 5.f}, {0.f, 0.f, -1.f}, 10);
  for (int c = 0; c < 3; ++c) {
    CHECK(plain[c].v == 1.f);
    CHECK(plain[c].d[0] == 0.f);
  }
}

TEST_CASE("an absorbing grid: transmittance and the derivatives of eight voxels against quadrature", "[volume]") {
  // d/dv_k exp(−s ∫ σ) = −T s ∫ w_k, w_k the trilinear weight of voxel k along the ray: the
  // weights by quadrature (the grid's own Dual derivative at each point), the kernel by delta
  // tracking averaged over paths.
  testing::TempDir t("dray-volume-");
  const int res = 6;
  const std::vector<float> v = patterned_grid(t, res, 0.15f);
  json medium = {{"type", "heterogeneous"}, {"albedo", 0}, {"scale", 2},
                 {"sigma_t", {{"type", "gridvolume"}, {"filename", "g.vol"},
                              {"to_world", {1, 0, 0, -0.5, 0, 1, 0, -0.5, 0, 0, 1, -0.5, 0, 0, 0, 1}}}}};
  const Scene s = load_scene(absorbing_scene(medium), (t.dir / "m.json").string());
  const glm::vec3 o(0.05f, 0.1f, 5.f), d(0.f, 0.f, -1.f);  // voxel coordinates x 2.8, y 3.1
  // Eight voxels around the ray's middle.
  const Slot base = s.volumes[0].data;
  std::vector<int> seeds(s.params.values().size(), -1);
  int k = 0;
  for (int z : {2, 3})
    for (int y : {3, 4})
      for (int x : {2, 3}) seeds[base + Slot((z * res + y) * res + x)] = k++;
  const ParamView<D8> P(s.params, seeds.data());
  // Quadrature of ∫σ and ∫ w_k over the ray's chord through the cube.
  const Ray r{o, d, INFINITY};
  const float t0 = 4.5f, t1 = 5.5f;  // z from 0.5 to -0.5
  const int n = 20000;
  D8 depth(0.f);
  for (int i = 0; i < n; ++i) {
    const Vec3<D8> sigma = medium_sigma_t(s.media[0], s.volumes, P, r.o + r.d * (t0 + (t1 - t0) * (float(i) + 0.5f) / float(n)));
    depth = depth + sigma.x * D8((t1 - t0) / float(n));
  }
  const float tr = std::exp(-depth.v);
  REQUIRE(tr < 0.7f);
  const Vec3<D8> L = mean_radiance(s, P, o, d, 40000);
  CHECK(L.x.v == Approx(tr).epsilon(0.02));
  for (int j = 0; j < 8; ++j) {
    INFO("voxel " << j << ": quadrature " << -tr * depth.d[size_t(j)]);
    REQUIRE(depth.d[size_t(j)] > 0.f);
    CHECK(L.x.d[size_t(j)] == Approx(-tr * depth.d[size_t(j)]).epsilon(0.05));
  }
}

TEST_CASE("an absorbing grid's reverse gradient: 100 random voxels against the closed form over the image", "[volume]") {
  // The image's mean through an absorbing grid before a sky of radiance 1: each ray sees
  // T = exp(−s ∫σ) and dT/dv_k = −T s ∫ w_k. The closed form integrates that over each pixel (a
  // 6×6 grid of film points, box filter) with the trilinear weights written out here, not the
  // grid's; the kernel's reverse gradient (delta tracking, path replay) over the whole block is
  // compared on 100 voxels drawn at random among those the image depends on (≥ 25% of the largest
  // derivative). The estimate is noisy voxel by voxel (null-collision weights 1/(μ − σ) have heavy
  // tails where σ nears its cell's majorant): at 8,192 spp each voxel within 15% (measured worst
  // 9.6%, rms 2.9%), their sum within 1% (measured 0.25%); at 131,072 spp (once, 73 s) worst
  // 3.8%, rms 0.79%, 98 of 100 within 2%, the sum 0.04%: the error falls as 1/√spp, no bias.
  testing::TempDir t("dray-volume-");
  const int res = 8, W = 16, H = 16;
  const float scale = 1.5f;
  const std::vector<float> v = patterned_grid(t, res, 0.1f);
  json medium = {{"type", "heterogeneous"}, {"albedo", 0}, {"scale", scale},
                 {"sigma_t", {{"type", "gridvolume"}, {"filename", "g.vol"},
                              {"to_world", {1, 0, 0, -0.5, 0, 1, 0, -0.5, 0, 0, 1, -0.5, 0, 0, 0, 1}}}}};
  json doc = absorbing_scene(medium);
  doc["camera"] = {{"origin", {0.3, 0.2, 3}}, {"target", {0, 0, 0}}, {"fov_y", 24}, {"width", W}, {"height", H}};
  doc["render"]["spp"] = 8192;
  const Scene s = load_scene(doc, (t.dir / "m.json").string());
  const size_t n_vox = v.size();

  // The closed form: d mean(I) / d v_k, I averaged over pixels and film points.
  std::vector<double> closed(n_vox, 0.0);
  const ParamView<float> PF(s.params);
  const int n_film = 6, n_steps = 400;
  for (int py = 0; py < H; ++py)
    for (int px = 0; px < W; ++px)
      for (int j = 0; j < n_film * n_film; ++j) {
        const RayT<float> ray = camera_ray(s.camera, PF, float(px) + (float(j % n_film) + 0.5f) / n_film,
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
            const double x = double(u[a]) * res - 0.5;
            lo[a] = int(std::floor(x));
            f[a] = x - std::floor(x);
          }
          for (int k = 0; k < 8; ++k) {
            int idx[3];
            double wk = 1;
            for (int a = 0; a < 3; ++a) {
              const int hi = (k >> a) & 1;
              idx[a] = std::clamp(lo[a] + hi, 0, res - 1);
              wk *= hi ? f[a] : 1 - f[a];
            }
            const size_t voxel = (size_t(idx[2]) * res + size_t(idx[1])) * res + size_t(idx[0]);
            depth += wk * v[voxel] * scale * dt;
            w.push_back({voxel, wk * dt});
          }
        }
        const double tr = std::exp(-depth) / (double(W) * H * n_film * n_film);
        for (const auto& [voxel, wk] : w) closed[voxel] -= tr * scale * wk;
      }

  const std::vector<Tile> tiles = make_tiles(W, H, 8);
  std::vector<int> ids(tiles.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::vector<Slot> all(n_vox);
  for (size_t k = 0; k < n_vox; ++k) all[k] = s.volumes[0].data + Slot(k);
  Image primal(W, H, 3), none(W, H, 3);
  const GradientResult rev = gradient_tiles(s, tiles, ids, none, Loss::mean, 3.0 * W * H, all, 2, primal, s.render.seed);

  double largest = 0;
  for (double c : closed) largest = std::max(largest, std::fabs(c));
  std::vector<size_t> candidates;
  for (size_t k = 0; k < n_vox; ++k)
    if (std::fabs(closed[k]) >= 0.25 * largest) candidates.push_back(k);
  REQUIRE(candidates.size() >= 100);
  std::mt19937 rng(11);
  std::shuffle(candidates.begin(), candidates.end(), rng);
  double worst = 0;
  for (size_t i = 0; i < 100; ++i) {
    const size_t k = candidates[i];
    const double err = std::fabs(rev.gradient[k] - closed[k]) / std::fabs(closed[k]);
    worst = std::max(worst, err);
    INFO("voxel " << k << ": reverse " << rev.gradient[k] << ", closed form " << closed[k]);
    CHECK(err <= 0.15);
  }
  double sum_rev = 0, sum_closed = 0, sq = 0;
  for (size_t k : candidates) {
    sum_rev += rev.gradient[k];
    sum_closed += closed[k];
    sq += std::pow((rev.gradient[k] - closed[k]) / closed[k], 2);
  }
  WARN("worst relative error over 100 voxels: " << worst << " (of " << candidates.size() << " candidates); summed over them "
       << sum_rev / sum_closed - 1 << ", rms " << std::sqrt(sq / double(candidates.size())));
  CHECK(std::fabs(sum_rev / sum_closed - 1) <= 0.01);
  CHECK(std::sqrt(sq / double(candidates.size())) <= 0.05);
}
