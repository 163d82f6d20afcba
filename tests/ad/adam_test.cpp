// The one Adam (ad/adam.h) against Kingma and Ba's update written out step by step, and its
// variants as Mitsuba defines them: UniformAdam's one denominator per block, mask_updates, and
// non-finite gradient components that move nothing.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "ad/adam.h"

using dray::ad::adam_step;
using dray::ad::AdamSettings;

TEST_CASE("Adam's steps are Kingma and Ba's, with Mitsuba's epsilon placement", "[adam]") {
  const AdamSettings s;
  const std::vector<std::vector<double>> grads = {{0.5, -2.0}, {0.25, 1.0}, {-1.0, 3.0}};
  std::vector<double> m(2, 0.0), v(2, 0.0), step(2);
  double mr[2] = {0, 0}, vr[2] = {0, 0};
  for (long t = 1; t <= 3; ++t) {
    adam_step(grads[size_t(t - 1)], m, v, t, s, step);
    for (int k = 0; k < 2; ++k) {
      const double g = grads[size_t(t - 1)][size_t(k)];
      mr[k] = 0.9 * mr[k] + 0.1 * g;
      vr[k] = 0.999 * vr[k] + 0.001 * g * g;
      const double expected = std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t)) * mr[k] / (std::sqrt(vr[k]) + 1e-8);
      CHECK(m[size_t(k)] == Approx(mr[k]).epsilon(1e-15));
      CHECK(v[size_t(k)] == Approx(vr[k]).epsilon(1e-15));
      CHECK(step[size_t(k)] == Approx(expected).epsilon(1e-14));
    }
  }
  // The first step is sign(g) up to epsilon: |m̂| = √v̂ = |g|.
  std::vector<double> m1(1, 0.0), v1(1, 0.0), s1(1);
  adam_step(std::vector<double>{-4.0}, m1, v1, 1, s, s1);
  CHECK(s1[0] == Approx(-1.0).epsilon(1e-7));
}

TEST_CASE("Adam descends a quadratic to its minimum", "[adam]") {
  // f(x) = Σ c_k (x_k − a_k)², lr 0.05: Adam's steps shrink as m does near the minimum.
  const double a[3] = {1.0, -2.0, 0.5}, c[3] = {1.0, 10.0, 0.1};
  std::vector<double> x(3, 0.0), m(3, 0.0), v(3, 0.0), g(3), step(3);
  for (long t = 1; t <= 2000; ++t) {
    for (int k = 0; k < 3; ++k) g[size_t(k)] = 2 * c[k] * (x[size_t(k)] - a[k]);
    adam_step(g, m, v, t, {}, step);
    for (int k = 0; k < 3; ++k) x[size_t(k)] -= 0.05 * step[size_t(k)];
  }
  for (int k = 0; k < 3; ++k) CHECK(x[size_t(k)] == Approx(a[k]).margin(1e-3));
}

TEST_CASE("UniformAdam divides a block by its largest second moment", "[adam]") {
  AdamSettings s;
  s.uniform = true;
  std::vector<double> m(3, 0.0), v(3, 0.0), step(3);
  adam_step(std::vector<double>{1.0, -3.0, 0.5}, m, v, 1, s, step);
  // One denominator: the steps keep the gradient's proportions; the largest is sign(g), -1 up to
  // ε/√(1 − β₂)/3 ≈ 1e-7.
  CHECK(step[1] == Approx(-1.0).epsilon(1e-6));
  CHECK(step[0] == Approx(1.0 / 3.0).epsilon(1e-6));
  CHECK(step[2] == Approx(0.5 / 3.0).epsilon(1e-6));
}

TEST_CASE("Non-finite gradients, and zeros under mask_updates, move nothing and keep their moments", "[adam]") {
  AdamSettings s;
  std::vector<double> m = {0.1, 0.2, 0.3}, v = {0.01, 0.02, 0.03}, step(3);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  adam_step(std::vector<double>{nan, inf, 0.0}, m, v, 4, s, step);
  CHECK(step[0] == 0.0);
  CHECK(step[1] == 0.0);
  CHECK(m[0] == 0.1);
  CHECK(v[1] == 0.02);
  CHECK(m[2] == Approx(0.27));  // a zero gradient without the mask is a gradient: the moments decay
  CHECK(step[2] > 0.0);         // and the value keeps moving on its momentum
  s.mask_updates = true;
  std::vector<double> m2 = {0.3}, v2 = {0.03}, step2(1);
  adam_step(std::vector<double>{0.0}, m2, v2, 4, s, step2);
  CHECK(step2[0] == 0.0);
  CHECK(m2[0] == 0.3);
  CHECK(v2[0] == 0.03);
}
