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
#include "renderer/samplers/sampler.h"
#include "tests/chi2.h"

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

// The χ² test of sample() against pdf() at wo (tests/chi2.h).
inline Chi2Result chi2_test(const BsdfFixture& fx, const glm::vec3& wo, int n = 1000000) {
  const ParamView<float> P = fx.view();
  auto draw = [&](Sampler& sampler) {
    const float u1 = sampler.next(), u2 = sampler.next(), uc = sampler.next();
    const BsdfSample s = bsdf_sample(fx.bsdf, P, wo, uc, {u1, u2});
    if (!s.lobe) return Chi2Draw{};
    if (s.lobe & kLobeDelta) return Chi2Draw{Chi2Draw::dirac, {}};
    return Chi2Draw{Chi2Draw::direction, s.wi};
  };
  auto pdf = [&](const glm::vec3& wi) { return double(bsdf_pdf(fx.bsdf, P, wo, wi)); };
  // The seed from cos θo (negative inside): through int64_t, as converting a negative float to an
  // unsigned type is undefined.
  const uint64_t seed = uint64_t(int64_t(wo.z * 1e6f));
  return chi2_sphere(draw, pdf, (bsdf_flags(fx.bsdf) & kLobeDelta) != 0, seed, n);
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
    refresh_bsdf(fx.bsdf, fx.params);  // tables built from the parameters (a rough coating's) follow
    return to_glm(bsdf_f(fx.bsdf, fx.view(), Vec3<float>(wo), Vec3<float>(wi)));
  };
  const glm::vec3 diff = (f_at(x + h) - f_at(x - h)) / (2.f * h);
  fx.params.set(slot, x);
  refresh_bsdf(fx.bsdf, fx.params);
  for (int c = 0; c < 3; ++c) {
    INFO("channel " << c << ": AD " << ad::tangent(fd[c], 0) << ", differences " << diff[c]);
    CHECK(ad::tangent(fd[c], 0) == Approx(diff[c]).epsilon(2e-2).margin(1e-4 * (1.f + std::fabs(diff[c]))));
  }
}

}  // namespace dray::test
