// The sampler plugins (Mitsuba's stratified, multijitter, orthogonal, ldsampler): their layouts
// round spp as Mitsuba's do, their samples fill the strata each construction promises (checked by
// counting, for one pixel's full set of samples), they are uniform over pixels (χ²), and they
// integrate a smooth function with a lower error than the independent sampler.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <vector>

#include "renderer/samplers/sampler.h"

using namespace dray;

namespace {

// A pixel's `n` samples (n from the pattern's layout), each its first `dims` numbers as 2-D pairs.
std::vector<std::vector<glm::vec2>> pixel_points(const SamplePattern& pattern, uint64_t pixel, int pairs) {
  std::vector<std::vector<glm::vec2>> out;
  for (uint32_t s = 0; s < pattern.layout.count; ++s) {
    Sampler sampler(pattern, 3, pixel, s);
    std::vector<glm::vec2> p;
    for (int d = 0; d < pairs; ++d) p.push_back(sampler.next_2d());
    out.push_back(p);
  }
  return out;
}

// Whether each of the bx x by cells holds exactly one of the points' (a, b) coordinates.
bool one_per_cell(const std::vector<glm::vec2>& points, int bx, int by) {
  std::set<int> cells;
  for (const glm::vec2& p : points) {
    if (!(p.x >= 0.f && p.x < 1.f && p.y >= 0.f && p.y < 1.f)) return false;
    cells.insert(int(p.y * float(by)) * bx + int(p.x * float(bx)));
  }
  return int(cells.size()) == bx * by && int(points.size()) == bx * by;
}

std::vector<glm::vec2> column(const std::vector<std::vector<glm::vec2>>& samples, int pair) {
  std::vector<glm::vec2> c;
  for (const auto& s : samples) c.push_back(s[size_t(pair)]);
  return c;
}

}  // namespace

TEST_CASE("samplers: layouts round spp as Mitsuba's samplers do", "[sampler]") {
  auto count = [](const SamplerPlugin& p, int spp) { return SamplePattern(p, spp).layout.count; };
  CHECK(count(IndependentSampler{}, 10) == 10);
  CHECK(count(StratifiedSampler{}, 16) == 16);
  CHECK(count(StratifiedSampler{}, 10) == 16);
  CHECK(count(MultijitterSampler{}, 16) == 16);
  CHECK(count(MultijitterSampler{}, 10) == 12);  // 3 rows of 4
  CHECK(count(OrthogonalSampler{}, 25) == 25);
  CHECK(count(OrthogonalSampler{}, 16) == 25);  // 4 is not prime
  CHECK(count(OrthogonalSampler{}, 1) == 4);
  CHECK(count(LowDiscrepancySampler{}, 16) == 16);
  CHECK(count(LowDiscrepancySampler{}, 17) == 64);
  CHECK(count(LowDiscrepancySampler{}, 1) == 4);
}

TEST_CASE("samplers: the independent plugin draws the independent sampler's numbers", "[sampler]") {
  const SamplePattern pattern(IndependentSampler{}, 16);
  for (uint64_t s = 0; s < 16; ++s) {
    Sampler a(pattern, 9, 77, s), b(9, 77, s), c(9, 77, s);
    for (int d = 0; d < 8; ++d) {
      const glm::vec2 u = a.next_2d();
      REQUIRE(u.x == b.next());
      REQUIRE(u.y == b.next());
      REQUIRE(c.next() == u.x);
      REQUIRE(c.next() == u.y);
    }
  }
}

TEST_CASE("samplers: each fills its strata", "[sampler]") {
  for (uint64_t pixel : {0ull, 1ull, 12345ull}) {
    SECTION("stratified: a √n x √n grid in 2-D, n strata in 1-D") {
      const SamplePattern pattern(StratifiedSampler{}, 16);
      const auto pts = pixel_points(pattern, pixel, 4);
      for (int d = 0; d < 4; ++d) CHECK(one_per_cell(column(pts, d), 4, 4));
      std::vector<glm::vec2> first;
      for (uint32_t s = 0; s < 16; ++s) {
        Sampler sampler(pattern, 3, pixel, s);
        first.push_back({sampler.next(), 0.5f});
      }
      CHECK(one_per_cell(first, 16, 1));
    }
    SECTION("multijitter: the grid and each axis's n strata") {
      const SamplePattern pattern(MultijitterSampler{}, 12);
      const auto pts = pixel_points(pattern, pixel, 4);
      for (int d = 0; d < 4; ++d) {
        CHECK(one_per_cell(column(pts, d), 4, 3));
        CHECK(one_per_cell(column(pts, d), 12, 1));
        CHECK(one_per_cell(column(pts, d), 1, 12));
      }
    }
    SECTION("orthogonal: every dimension in p² strata, every pair of dimensions in p x p cells") {
      const SamplePattern pattern(OrthogonalSampler{}, 25);
      std::vector<std::vector<float>> u(25);
      for (uint32_t s = 0; s < 25; ++s) {
        Sampler sampler(pattern, 3, pixel, s);
        for (int d = 0; d < 6; ++d) u[s].push_back(sampler.next());
      }
      for (int a = 0; a < 6; ++a) {
        std::vector<glm::vec2> one;
        for (const auto& s : u) one.push_back({s[size_t(a)], 0.5f});
        CHECK(one_per_cell(one, 25, 1));
        for (int b = a + 1; b < 6; ++b) {
          std::vector<glm::vec2> pair;
          for (const auto& s : u) pair.push_back({s[size_t(a)], s[size_t(b)]});
          CHECK(one_per_cell(pair, 5, 5));
        }
      }
    }
    SECTION("ldsampler: a (0, 2)-net, one point in each elementary interval of area 1/n") {
      const SamplePattern pattern(LowDiscrepancySampler{}, 64);
      const auto pts = pixel_points(pattern, pixel, 3);
      for (int d = 0; d < 3; ++d)
        for (int bx = 1; bx <= 64; bx *= 2) CHECK(one_per_cell(column(pts, d), bx, 64 / bx));
    }
  }
}

TEST_CASE("samplers: uniform over pixels (χ²) and deterministic", "[sampler]") {
  const std::vector<SamplerPlugin> plugins = {StratifiedSampler{}, MultijitterSampler{}, OrthogonalSampler{},
                                              LowDiscrepancySampler{}};
  for (const SamplerPlugin& plugin : plugins) {
    const SamplePattern pattern(plugin, 16);
    // Sample 5 of many pixels: its dimension-3 pair over an 8 x 8 grid (63 degrees of freedom:
    // the 99.9% quantile is 103.4).
    const int n = 64000, bins = 64;
    std::vector<int> hist(bins, 0);
    for (int p = 0; p < n; ++p) {
      Sampler s(pattern, 1, uint64_t(p), 5), again(pattern, 1, uint64_t(p), 5);
      s.next_2d(), again.next_2d();
      s.next();
      again.next();
      const glm::vec2 u = s.next_2d();
      REQUIRE(u == again.next_2d());
      ++hist[size_t(int(u.y * 8.f) * 8 + int(u.x * 8.f))];
    }
    double chi2 = 0.0, expect = double(n) / bins;
    for (int h : hist) chi2 += (h - expect) * (h - expect) / expect;
    INFO("plugin " << plugin.index());
    CHECK(chi2 < 103.4);
  }
}

TEST_CASE("samplers: a smooth integral's error falls below the independent sampler's", "[sampler]") {
  // ∫∫ f over the unit square, f(x, y) = x·e^y + sin(3y)·x²: (e − 1)/2 + (1 − cos 3)/9.
  auto f = [](glm::vec2 u) { return u.x * std::exp(u.y) + std::sin(3.f * u.y) * u.x * u.x; };
  const double exact = (std::exp(1.0) - 1.0) / 2.0 + (1.0 - std::cos(3.0)) / 9.0;
  auto rmse = [&](const SamplerPlugin& plugin, int spp) {
    const SamplePattern pattern(plugin, spp);
    double sq = 0.0;
    const int pixels = 4000;
    for (int p = 0; p < pixels; ++p) {
      double sum = 0.0;
      for (int s = 0; s < spp; ++s) {
        Sampler sampler(pattern, 2, uint64_t(p), uint64_t(s));
        sampler.next();  // a 1-D draw first, as the light choice comes before the light sample
        sum += f(sampler.next_2d());
      }
      sq += (sum / spp - exact) * (sum / spp - exact);
    }
    return std::sqrt(sq / pixels);
  };
  const double independent = rmse(IndependentSampler{}, 16);
  for (const auto& [plugin, spp] : std::vector<std::pair<SamplerPlugin, int>>{
           {StratifiedSampler{}, 16}, {MultijitterSampler{}, 16}, {OrthogonalSampler{}, 25}, {LowDiscrepancySampler{}, 16}}) {
    const double e = rmse(plugin, spp), scale = std::sqrt(double(spp) / 16.0);  // at equal spp
    INFO("plugin " << plugin.index() << ": RMSE " << e << " against independent " << independent);
    // Stratified sampling of a smooth 2-D integrand: error O(n^-1) against n^-1/2, 4x at 16 spp.
    CHECK(e * scale < independent / 2.5);
  }
}
