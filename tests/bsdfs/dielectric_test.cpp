// dielectric: reflection chosen with probability F, refraction by Snell's law with weight
// (n_i/n_t)², total internal reflection, and derivatives of the weights and of the refracted
// direction in int_ior against differences.
#include "ad/dual.h"
#include "tests/bsdfs/bsdf_checks.h"

using namespace dray;
using namespace dray::test;

namespace {
BsdfFixture glass(float int_ior = 1.5f, float ext_ior = 1.f) {
  return with_interface(DielectricBsdf{}, int_ior, ext_ior);
}
}  // namespace

TEST_CASE("dielectric: lobes chosen by the Fresnel term, Snell's law, (n_i/n_t)^2", "[bsdf]") {
  BsdfFixture fx = glass();
  for (float theta : {0.f, 30.f, 60.f, 85.f}) {
    for (float side : {1.f, -1.f}) {
      glm::vec3 wo = direction(theta, 40.f);
      wo.z *= side;
      const float F = fresnel_dielectric(wo.z, 1.5f);
      Sampler sampler(5, uint64_t(theta), 0);
      const int n = 200000;
      int reflected = 0;
      for (int i = 0; i < n; ++i) {
        const float u1 = sampler.next(), u2 = sampler.next(), uc = sampler.next();
        const BsdfSample s = bsdf_sample(fx.bsdf, fx.view(), wo, uc, {u1, u2});
        REQUIRE(s.lobe);
        if (s.lobe & kLobeReflection) {
          ++reflected;
          REQUIRE(s.wi.z == Approx(wo.z));
          REQUIRE(s.weight.x == Approx(1.f));
        } else {
          // Refracted: the other side, Snell's law, radiance scaled by (n_i / n_t)^2.
          const float eta_ti = side > 0.f ? 1.f / 1.5f : 1.5f;
          REQUIRE(s.wi.z * wo.z < 0.f);
          REQUIRE(std::sqrt(1.f - s.wi.z * s.wi.z) == Approx(eta_ti * std::sqrt(1.f - wo.z * wo.z)).epsilon(1e-4).margin(1e-5));
          REQUIRE(s.wi.x * wo.x <= 0.f);
          REQUIRE(s.weight.x == Approx(eta_ti * eta_ti).epsilon(1e-5));
          REQUIRE(s.eta == Approx(1.f / eta_ti));
        }
      }
      INFO("theta " << theta << " side " << side << ": F " << F << ", reflected " << double(reflected) / n);
      CHECK(double(reflected) / n == Approx(F).margin(4. * std::sqrt(F * (1. - F) / n) + 1e-6));
    }
  }
  // Inside beyond the critical angle (41.8 degrees): all of it reflects.
  glm::vec3 wo = direction(50.f);
  wo.z = -wo.z;
  CHECK(bsdf_sample(fx.bsdf, fx.view(), wo, 0.999f, {0.5f, 0.5f}).lobe == (kLobeDelta | kLobeReflection));
  CHECK(bsdf_pdf(fx.bsdf, fx.view(), wo, -wo) == 0.f);
}

TEST_CASE("dielectric: derivatives in int_ior of the weights and the refracted direction", "[bsdf][gradcheck]") {
  using D1 = ad::Dual<1>;
  BsdfFixture fx = glass();
  const Slot ior = std::get<DielectricBsdf>(fx.bsdf).int_ior;
  std::vector<int> seeds(fx.params.values().size(), -1);
  seeds[ior] = 0;
  const ParamView<D1> PD(fx.params, seeds.data());
  const glm::vec3 wo = direction(50.f, 20.f);
  const float h = 1e-3f;
  for (float uc : {0.01f, 0.99f}) {  // reflection, refraction
    const BsdfSample s = bsdf_sample(fx.bsdf, fx.view(), wo, uc, {0.5f, 0.5f});
    const DeltaLobe<D1> d = bsdf_delta(fx.bsdf, PD, Vec3<D1>(Vec3<float>(wo)), s);
    auto at = [&](float v) {
      fx.params.set(ior, v);
      // The same lobe, its pdf held (the probability is a decision made at the value).
      const DeltaLobe<float> e = bsdf_delta(fx.bsdf, fx.view(), Vec3<float>(wo), s);
      fx.params.set(ior, 1.5f);
      return e;
    };
    const DeltaLobe<float> hi = at(1.5f + h), lo = at(1.5f - h);
    INFO("lobe " << s.lobe);
    CHECK(ad::tangent(d.weight.x, 0) == Approx((hi.weight.x - lo.weight.x) / (2 * h)).epsilon(1e-2).margin(1e-4));
    CHECK(ad::tangent(d.wi.x, 0) == Approx((hi.wi.x - lo.wi.x) / (2 * h)).epsilon(1e-2).margin(1e-4));
    CHECK(ad::tangent(d.wi.z, 0) == Approx((hi.wi.z - lo.wi.z) / (2 * h)).epsilon(1e-2).margin(1e-4));
  }
}

TEST_CASE("thindielectric: reflects 2F/(1+F), passes the rest straight through, both differentiable in int_ior", "[bsdf]") {
  BsdfFixture fx = with_interface(ThinDielectricBsdf{}, 1.5f, 1.f);
  for (float theta : {0.f, 50.f, 80.f})
    for (float side : {1.f, -1.f}) {
      glm::vec3 wo = direction(theta, 20.f);
      wo.z *= side;
      const float F = fresnel_dielectric(std::fabs(wo.z), 1.5f), R = 2.f * F / (1.f + F);
      Sampler sampler(9, uint64_t(theta), 0);
      const int n = 100000;
      int reflected = 0;
      for (int i = 0; i < n; ++i) {
        const float u1 = sampler.next(), u2 = sampler.next(), uc = sampler.next();
        const BsdfSample s = bsdf_sample(fx.bsdf, fx.view(), wo, uc, {u1, u2});
        REQUIRE(s.lobe);
        REQUIRE(s.weight.x == Approx(1.f));  // white: a furnace passes it unchanged
        if (s.lobe & kLobeReflection) {
          ++reflected;
          REQUIRE(to_glm(reflect_local(Vec3<float>(wo))) == s.wi);
        } else {
          REQUIRE(s.wi == -wo);
          REQUIRE(s.eta == 1.f);
        }
      }
      const double share = double(reflected) / n, sigma = std::sqrt(R * (1. - R) / n);
      INFO("theta " << theta << " side " << side << ": R " << R << ", reflected " << share);
      CHECK(std::fabs(share - R) < 5. * sigma + 1e-6);
    }
  // d/d int_ior of the reflected weight R / P (P fixed) at normal incidence: F = ((η − 1)/(η + 1))²,
  // dF/dη = 4 (η − 1)/(η + 1)³, dR/dF = 2/(1 + F)².
  std::vector<int> seeds(fx.params.values().size(), -1);
  seeds[fx.params.find("int_ior")->slot] = 0;
  const ParamView<ad::Dual<1>> PD(fx.params, seeds.data());
  const glm::vec3 wo(0.f, 0.f, 1.f);
  BsdfSample s;
  s.lobe = kLobeDelta | kLobeReflection;
  s.pdf = 0.5f;
  const DeltaLobe<ad::Dual<1>> d = bsdf_delta(fx.bsdf, PD, Vec3<ad::Dual<1>>(Vec3<float>(wo)), s);
  const float eta = 1.5f, F = (eta - 1.f) * (eta - 1.f) / ((eta + 1.f) * (eta + 1.f));
  const float dF = 4.f * (eta - 1.f) / ((eta + 1.f) * (eta + 1.f) * (eta + 1.f)), dR = 2.f / ((1.f + F) * (1.f + F)) * dF;
  CHECK(d.weight.x.v == Approx(2.f * F / (1.f + F) / 0.5f).epsilon(1e-5));
  CHECK(d.weight.x.d[0] == Approx(dR / 0.5f).epsilon(1e-4));
}
