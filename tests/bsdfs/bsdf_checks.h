#pragma once
// Checks every BSDF must pass, on its own (no scene): a χ² goodness-of-fit test of sample()
// against pdf() over the sphere of directions (as Mitsuba 3's chi2 tests), pdf > 0 wherever f > 0,
// sample weights equal to f |cos| / pdf, reciprocity, and the directional albedo (energy ≤ 1)
// integrated by quadrature and by sampling.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ad/dual.h"
#include "renderer/bsdfs/bsdf.h"
#include "renderer/sampler.h"

namespace dray::test {

// A scene-free BSDF: a parameter table and one Bsdf reading it.
struct BsdfFixture {
  ParamTable params;
  Bsdf bsdf;
  ParamView<float> view() const { return ParamView<float>(params); }
};

// A microfacet BSDF's roughness in a fixture: one slot when isotropic, as the loader makes it.
template <class B>
void add_roughness(BsdfFixture& fx, B& b, MicrofacetType type, float au, float av) {
  b.distribution = type;
  b.alpha_u = fx.params.add("alpha_u", au);
  b.alpha_v = au == av ? b.alpha_u : fx.params.add("alpha_v", av);
}

// A dielectric interface's slots (int_ior inside, ext_ior outside, white reflectance and transmittance).
template <class B>
BsdfFixture with_interface(B b, float int_ior, float ext_ior, BsdfFixture fx = {}) {
  b.int_ior = fx.params.add("int_ior", int_ior);
  b.ext_ior = fx.params.add("ext_ior", ext_ior);
  b.specular_reflectance = fx.params.add("specular_reflectance", glm::vec3(1.f));
  b.specular_transmittance = fx.params.add("specular_transmittance", glm::vec3(1.f));
  fx.bsdf = b;
  return fx;
}

inline const char* name(MicrofacetType t) { return t == MicrofacetType::ggx ? "ggx" : "beckmann"; }

inline glm::vec3 direction(float theta_deg, float phi_deg = 0.f) {
  const float t = theta_deg * kPi / 180.f, p = phi_deg * kPi / 180.f;
  return {std::sin(t) * std::cos(p), std::sin(t) * std::sin(p), std::cos(t)};
}

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

// Draws n samples at wo and compares their histogram over (θ, φ) cells (as Mitsuba 3's chi2 tests)
// with the integral of pdf() over each cell (Gauss-Legendre, (4q)² points). Samples of Dirac
// lobes form one more cell, expected to hold what the pdf leaves of the unit mass. Cells expected
// to hold fewer than 5 samples are pooled.
inline Chi2Result chi2_test(const BsdfFixture& fx, const glm::vec3& wo, int n = 1000000, int res_z = 30, int res_phi = 40,
                            int q = 6) {
  const ParamView<float> P = fx.view();
  std::vector<double> observed(size_t(res_z * res_phi) + 1, 0.), expected(observed.size(), 0.);
  Sampler sampler(7, uint64_t(wo.z * 1e6f), 0);
  for (int i = 0; i < n; ++i) {
    const float u1 = sampler.next(), u2 = sampler.next(), uc = sampler.next();
    const BsdfSample s = bsdf_sample(fx.bsdf, P, wo, uc, {u1, u2});
    if (!s.lobe) continue;  // absorbed: counts nowhere (the pdf integrates to less than 1)
    if (s.lobe & kLobeDelta) {
      observed.back() += 1.;
      continue;
    }
    const float theta = std::acos(std::clamp(s.wi.z, -1.f, 1.f));
    float phi = std::atan2(s.wi.y, s.wi.x);
    if (phi < 0.f) phi += 2.f * kPi;
    const int iz = std::min(int(theta / kPi * float(res_z)), res_z - 1);
    const int ip = std::min(int(phi / (2.f * kPi) * float(res_phi)), res_phi - 1);
    observed[size_t(iz * res_phi + ip)] += 1.;
  }
  // Gauss-Legendre, 4 points on each of q sub-intervals per axis: open (no point on a cell's edge,
  // where a pdf may drop to 0 at the horizon) and exact to degree 7 on each.
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
          const glm::vec3 wi(float(r * std::cos(phi)), float(r * std::sin(phi)), float(z));
          sum += gw[a % 4] * gw[b % 4] * double(bsdf_pdf(fx.bsdf, P, wo, wi)) * r;
        }
      const double integral = sum * (0.5 * dt) * (0.5 * dp);
      expected[size_t(iz * res_phi + ip)] = integral * n;
      total += integral;
    }
  // The Dirac lobes' mass; with none, nothing is expected there.
  expected.back() = (bsdf_flags(fx.bsdf) & kLobeDelta) ? std::max(0., 1. - total) * n : 0.;
  Chi2Result r;
  r.delta_fraction = observed.back() / n;
  // An absorbing BSDF (the sample fails where the pdf has no mass) is compared on the samples it
  // returned: scale the expectation to their count.
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

// Runs the χ² test at each incidence angle, at significance 1% over all of them (Šidák).
inline void check_chi2(const BsdfFixture& fx, const std::vector<float>& thetas_deg) {
  const double alpha = 1. - std::pow(1. - 0.01, 1. / double(thetas_deg.size()));
  for (float t : thetas_deg) {
    const Chi2Result r = chi2_test(fx, direction(t, 30.f));
    INFO("theta_o = " << t << " deg: chi2 = " << r.statistic << ", dof = " << r.dof << ", p = " << r.p_value);
    CHECK(r.dof > 10);
    CHECK(r.p_value > alpha);
  }
}

// pdf > 0 wherever f > 0; sampled weights equal f |cos θi| / pdf; f reciprocal (if asked).
inline void check_consistency(const BsdfFixture& fx, bool reciprocal) {
  const ParamView<float> P = fx.view();
  Sampler sampler(11, 0, 0);
  int compared = 0, positive = 0;
  for (int i = 0; i < 20000; ++i) {
    const glm::vec3 wo = direction(89.f * sampler.next(), 360.f * sampler.next());
    const glm::vec3 wi = direction(180.f * sampler.next(), 360.f * sampler.next());
    const glm::vec3 f = to_glm(bsdf_f(fx.bsdf, P, Vec3<float>(wo), Vec3<float>(wi)));
    if (f.x > 1e-20f || f.y > 1e-20f || f.z > 1e-20f) {  // not denormal: pdf may underflow there
      ++positive;
      INFO("wo " << wo.x << " " << wo.y << " " << wo.z << ", wi " << wi.x << " " << wi.y << " " << wi.z << ": f " << f.x);
      REQUIRE(bsdf_pdf(fx.bsdf, P, wo, wi) > 0.f);
      if (reciprocal && wi.z > 0.f) {
        const glm::vec3 g = to_glm(bsdf_f(fx.bsdf, P, Vec3<float>(wi), Vec3<float>(wo)));
        for (int c = 0; c < 3; ++c) REQUIRE(g[c] == Approx(f[c]).epsilon(1e-4).margin(1e-6));
      }
    }
    const float u1 = sampler.next(), u2 = sampler.next(), uc = sampler.next();
    const BsdfSample s = bsdf_sample(fx.bsdf, P, wo, uc, {u1, u2});
    if (!s.lobe || (s.lobe & kLobeDelta)) continue;
    const glm::vec3 fs = to_glm(bsdf_f(fx.bsdf, P, Vec3<float>(wo), Vec3<float>(s.wi)));
    REQUIRE(s.pdf == Approx(bsdf_pdf(fx.bsdf, P, wo, s.wi)).epsilon(1e-3));
    for (int c = 0; c < 3; ++c) REQUIRE(s.weight[c] == Approx(fs[c] * std::fabs(s.wi.z) / s.pdf).epsilon(1e-3).margin(1e-6));
    ++compared;
  }
  CHECK(positive > 1000);
  CHECK(compared > 1000);
}

// The directional albedo at wo (channel c): by quadrature of f |cos| over the sphere (the
// non-Dirac lobes) and by the mean sample weight (all lobes), with the latter's standard error.
struct Albedo {
  double quadrature = 0., sampled = 0., sampled_error = 0.;
};
inline Albedo albedo(const BsdfFixture& fx, const glm::vec3& wo, int c = 0, int n = 400000) {
  const ParamView<float> P = fx.view();
  Albedo a;
  // Midpoints in (θ, φ) over the sphere, fine enough for a narrow lobe (GGX at α = 0.1).
  const int nt = 4000, np = 400;
  for (int it = 0; it < nt; ++it)
    for (int ip = 0; ip < np; ++ip) {
      const double th = (it + 0.5) * M_PI / nt, phi = (ip + 0.5) * 2. * M_PI / np, z = std::cos(th), r = std::sin(th);
      const glm::vec3 wi(float(r * std::cos(phi)), float(r * std::sin(phi)), float(z));
      a.quadrature += double(bsdf_f(fx.bsdf, P, Vec3<float>(wo), Vec3<float>(wi))[c]) * std::fabs(z) * r;
    }
  a.quadrature *= (M_PI / nt) * (2. * M_PI / np);
  Sampler sampler(3, 0, 0);
  double sum = 0., sum2 = 0.;
  for (int i = 0; i < n; ++i) {
    const float u1 = sampler.next(), u2 = sampler.next(), uc = sampler.next();
    const BsdfSample s = bsdf_sample(fx.bsdf, P, wo, uc, {u1, u2});
    const double v = s.lobe ? s.weight[c] : 0.;
    sum += v;
    sum2 += v * v;
  }
  a.sampled = sum / n;
  a.sampled_error = std::sqrt(std::max(0., sum2 / n - a.sampled * a.sampled) / n);
  return a;
}

// d f / d (the scalar at `slot`) in Dual<1> against central differences of f in float.
template <class Dual1>
void check_f_derivative(BsdfFixture& fx, Slot slot, const glm::vec3& wo, const glm::vec3& wi, float h) {
  std::vector<int> seeds(fx.params.values().size(), -1);
  seeds[slot] = 0;
  const ParamView<Dual1> PD(fx.params, seeds.data());
  const Vec3<Dual1> fd = bsdf_f(fx.bsdf, PD, Vec3<Dual1>(Vec3<float>(wo)), Vec3<Dual1>(Vec3<float>(wi)));
  const float x = fx.params.get(slot);
  auto f_at = [&](float v) {
    fx.params.set(slot, v);
    return to_glm(bsdf_f(fx.bsdf, fx.view(), Vec3<float>(wo), Vec3<float>(wi)));
  };
  const glm::vec3 diff = (f_at(x + h) - f_at(x - h)) / (2.f * h);
  fx.params.set(slot, x);
  for (int c = 0; c < 3; ++c) {
    INFO("channel " << c << ": AD " << ad::tangent(fd[c], 0) << ", differences " << diff[c]);
    CHECK(ad::tangent(fd[c], 0) == Approx(diff[c]).epsilon(2e-2).margin(1e-4 * (1.f + std::fabs(diff[c]))));
  }
}

}  // namespace dray::test
