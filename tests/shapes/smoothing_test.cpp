// The large-steps smoothing system M = I + λ L: its product by closed forms, its solve as the
// product's inverse, and the smoothing it does to a gradient.
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "renderer/shapes/smoothing.h"

using namespace dray;

namespace {

// A cycle of n vertices: each has two neighbours.
std::vector<std::pair<uint32_t, uint32_t>> cycle(uint32_t n) {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t i = 0; i < n; ++i) e.push_back({i, (i + 1) % n});
  return e;
}

}  // namespace

TEST_CASE("M x on a cycle: x + λ (2 x_i - x_(i-1) - x_(i+1)), repeated edges merged", "[smoothing]") {
  auto edges = cycle(5);
  edges.push_back({1, 0});  // the same edge again, reversed
  const SmoothingSystem m(5, edges, 3.0);
  std::vector<double> x(15);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(double(i) + 0.5);
  const std::vector<double> y = m.multiply(x);
  for (size_t v = 0; v < 5; ++v)
    for (size_t c = 0; c < 3; ++c) {
      const double xi = x[3 * v + c], prev = x[3 * ((v + 4) % 5) + c], next = x[3 * ((v + 1) % 5) + c];
      REQUIRE(y[3 * v + c] == Approx(xi + 3.0 * (2 * xi - prev - next)).epsilon(1e-14));
    }
}

TEST_CASE("solve inverts multiply, and M⁻¹ spreads a spike over its neighbourhood", "[smoothing]") {
  const uint32_t n = 200;
  const SmoothingSystem m(n, cycle(n), 20.0);
  std::vector<double> x(3 * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.37 * double(i)) + (i % 7 == 0 ? 2.0 : 0.0);
  const std::vector<double> back = m.solve(m.multiply(x));
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(back[i] == Approx(x[i]).margin(1e-9));
  // A spike at vertex 0 (x only): M⁻¹ keeps its sum (constants are M's eigenvectors with eigenvalue
  // 1), decays monotonically away from it, and leaves y and z zero.
  std::vector<double> spike(3 * n, 0.0);
  spike[0] = 1.0;
  const std::vector<double> s = m.solve(spike);
  double sum = 0;
  for (uint32_t v = 0; v < n; ++v) {
    sum += s[3 * v];
    REQUIRE(s[3 * v + 1] == 0.0);
  }
  REQUIRE(sum == Approx(1.0).epsilon(1e-9));
  for (uint32_t v = 1; v < n / 2; ++v) REQUIRE(s[3 * v] < s[3 * (v - 1)]);
  REQUIRE(s[0] < 0.2);  // spread: with λ = 20 about 1 / sqrt(4λ + 1) stays
  REQUIRE(s[0] == Approx(1.0 / std::sqrt(81.0)).epsilon(0.01));
}

TEST_CASE("λ = 0 is the identity", "[smoothing]") {
  const SmoothingSystem m(4, cycle(4), 0.0);
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  REQUIRE(m.multiply(x) == x);
  REQUIRE(m.solve(x) == x);
}

TEST_CASE("one column a vertex (a grey voxel grid's 6-neighbours): M x by hand, and solve inverts it", "[smoothing]") {
  // A 3×3×3 grid of voxels, one value each: M x at the centre voxel is x + λ (6 x_c − Σ neighbours).
  const uint32_t n = 3;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  auto at = [&](uint32_t x, uint32_t y, uint32_t z) { return (z * n + y) * n + x; };
  for (uint32_t z = 0; z < n; ++z)
    for (uint32_t y = 0; y < n; ++y)
      for (uint32_t x = 0; x < n; ++x) {
        if (x + 1 < n) edges.push_back({at(x, y, z), at(x + 1, y, z)});
        if (y + 1 < n) edges.push_back({at(x, y, z), at(x, y + 1, z)});
        if (z + 1 < n) edges.push_back({at(x, y, z), at(x, y, z + 1)});
      }
  const double lambda = 2.0;
  const SmoothingSystem m(n * n * n, edges, lambda);
  std::vector<double> x(n * n * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(double(i));
  const std::vector<double> y = m.multiply(x);
  REQUIRE(y.size() == x.size());
  const uint32_t c = at(1, 1, 1);
  const double around = x[at(0, 1, 1)] + x[at(2, 1, 1)] + x[at(1, 0, 1)] + x[at(1, 2, 1)] + x[at(1, 1, 0)] + x[at(1, 1, 2)];
  CHECK(y[c] == Approx(x[c] + lambda * (6 * x[c] - around)).epsilon(1e-12));
  const std::vector<double> back = m.solve(y);
  for (size_t i = 0; i < x.size(); ++i) CHECK(back[i] == Approx(x[i]).margin(1e-9));
}
