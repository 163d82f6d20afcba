#pragma once
// A χ² goodness-of-fit test of a direction sampler against its density over the sphere, as
// Mitsuba 3's chi2 tests: a histogram over (θ, φ) cells against the density integrated over each
// cell (Gauss–Legendre, open: no point on a cell's edge where a density may drop to 0); Dirac
// samples form one more cell, expected to hold what the density leaves of the unit mass.
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/samplers/sampler.h"
#include "renderer/core/vec.h"

namespace dray::test {

// The regularised upper incomplete gamma function Q(a, x) (series below a + 1, Lentz's continued
// fraction above): the p-value of a χ² statistic x2 with k degrees of freedom is Q(k/2, x2/2).
inline double gamma_q(double a, double x) {
  if (x <= 0.) return 1.;
  const double log_prefix = -x + a * std::log(x) - std::lgamma(a);
  if (x < a + 1.) {
    double term = 1. / a, sum = term;
    for (int n = 1; n < 10000 && std::fabs(term) > 1e-15 * std::fabs(sum); ++n) sum += term *= x / (a + n);
    return 1. - sum * std::exp(log_prefix);
  }
  double b = x + 1. - a, c = 1e300, d = 1. / b, h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2.;
    d = an * d + b;
    if (std::fabs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (std::fabs(c) < 1e-300) c = 1e-300;
    d = 1. / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.) < 1e-15) break;
  }
  return std::exp(log_prefix) * h;
}

struct Chi2Result {
  double statistic = 0., p_value = 0.;
  int dof = 0;
  double delta_fraction = 0.;  // samples that chose a Dirac lobe
};

// One draw: none (absorbed), a Dirac, or a direction.
struct Chi2Draw {
  enum Kind { none, dirac, direction } kind = none;
  glm::vec3 d{0.f};
};

// Draws n samples (`draw`) and compares their histogram over (θ, φ) cells with `pdf` integrated
// over each cell ((4q)² points); `has_dirac`: a Dirac share is expected. Cells expected to hold
// fewer than 5 samples are pooled; samples where the density expects none fail the test.
inline Chi2Result chi2_sphere(const std::function<Chi2Draw(Sampler&)>& draw, const std::function<double(const glm::vec3&)>& pdf,
                              bool has_dirac, uint64_t seed, int n = 1000000, int res_z = 30, int res_phi = 40, int q = 6) {
  std::vector<double> observed(size_t(res_z * res_phi) + 1, 0.), expected(observed.size(), 0.);
  Sampler sampler(7, seed, 0);
  for (int i = 0; i < n; ++i) {
    const Chi2Draw s = draw(sampler);
    if (s.kind == Chi2Draw::none) continue;  // absorbed: counts nowhere (the pdf integrates to less than 1)
    if (s.kind == Chi2Draw::dirac) {
      observed.back() += 1.;
      continue;
    }
    const float theta = std::acos(std::clamp(s.d.z, -1.f, 1.f));
    float phi = std::atan2(s.d.y, s.d.x);
    if (phi < 0.f) phi += 2.f * kPi;
    const int iz = std::min(int(theta / kPi * float(res_z)), res_z - 1);
    const int ip = std::min(int(phi / (2.f * kPi) * float(res_phi)), res_phi - 1);
    observed[size_t(iz * res_phi + ip)] += 1.;
  }
  const double gx[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526};
  const double gw[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538};
  double total = 0.;
  for (int iz = 0; iz < res_z; ++iz)
    for (int ip = 0; ip < res_phi; ++ip) {
      const double dt = M_PI / res_z / q, dp = 2. * M_PI / res_phi / q;
      const double t0 = M_PI * iz / res_z, p0 = 2. * M_PI * ip / res_phi;
      double sum = 0.;
      for (int a = 0; a < 4 * q; ++a)
        for (int b = 0; b < 4 * q; ++b) {
          const double th = t0 + dt * (a / 4 + 0.5 + 0.5 * gx[a % 4]), phi = p0 + dp * (b / 4 + 0.5 + 0.5 * gx[b % 4]);
          const double z = std::cos(th), r = std::sin(th);
          sum += gw[a % 4] * gw[b % 4] * pdf(glm::vec3(float(r * std::cos(phi)), float(r * std::sin(phi)), float(z))) * r;
        }
      const double integral = sum * (0.5 * dt) * (0.5 * dp);
      expected[size_t(iz * res_phi + ip)] = integral * n;
      total += integral;
    }
  expected.back() = has_dirac ? std::max(0., 1. - total) * n : 0.;
  Chi2Result r;
  r.delta_fraction = observed.back() / n;
  // An absorbing sampler is compared on the samples it returned: scale the expectation to them.
  double obs_total = 0., exp_total = 0.;
  for (size_t i = 0; i < observed.size(); ++i) obs_total += observed[i], exp_total += expected[i];
  double pooled_o = 0., pooled_e = 0.;
  int cells = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double e = expected[i] * obs_total / exp_total, o = observed[i];
    if (e < 5.) {
      pooled_o += o;
      pooled_e += e;
      continue;
    }
    r.statistic += (o - e) * (o - e) / e;
    ++cells;
  }
  if (pooled_e >= 5.) {
    r.statistic += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
    ++cells;
  } else if (pooled_o > 20.) {
    r.statistic += 1e9;  // samples where the pdf says there are none
  }
  r.dof = cells - 1;
  r.p_value = gamma_q(0.5 * r.dof, 0.5 * r.statistic);
  return r;
}

}  // namespace dray::test
