// blendbsdf: f = (1 − w) f₀ + w f₁ against its two BSDFs, χ² of sampling against the pdf,
// consistency, energy by quadrature and by sampling with a Dirac child, the derivative by the
// weight, and Dirac lobes re-evaluated through the blend.
#include "ad/dual.h"
#include "tests/bsdfs/bsdf_checks.h"

using namespace dray;
using namespace dray::test;

namespace {

// A diffuse base blended with a rough (or, `smooth`, a Dirac) gold.
BsdfFixture blend(float weight, bool smooth = false) {
  BsdfFixture fx;
  DiffuseBsdf d;
  d.reflectance = fx.params.add("reflectance", glm::vec3(0.6f, 0.5f, 0.4f));
  RoughConductorBsdf r;
  r.distribution = MicrofacetType::ggx;
  r.alpha_u = r.alpha_v = fx.params.add("alpha", 0.25f);
  r.eta = fx.params.add("eta", glm::vec3(0.2f, 0.4f, 1.4f));
  r.k = fx.params.add("k", glm::vec3(4.f, 2.4f, 1.6f));
  r.specular_reflectance = fx.params.add("specular_reflectance", glm::vec3(1.f));
  ConductorBsdf c;
  c.eta = r.eta;
  c.k = r.k;
  c.specular_reflectance = r.specular_reflectance;
  BlendBsdf b;
  b.weight = fx.params.add("weight", weight);
  b.a = BsdfBox(Bsdf(d));
  b.b = smooth ? BsdfBox(Bsdf(c)) : BsdfBox(Bsdf(r));
  fx.bsdf = b;
  return fx;
}

}  // namespace

TEST_CASE("blendbsdf: (1 - w) f0 + w f1, weight clamped to [0, 1]", "[bsdf]") {
  const glm::vec3 wo = direction(30.f, 10.f), wi = direction(45.f, 200.f);
  for (float w : {0.f, 0.3f, 1.f, 1.5f}) {
    const BsdfFixture fx = blend(w);
    const BlendBsdf& b = std::get<BlendBsdf>(fx.bsdf);
    const glm::vec3 f = to_glm(bsdf_f(fx.bsdf, fx.view(), Vec3<float>(wo), Vec3<float>(wi)));
    const glm::vec3 f0 = to_glm(bsdf_f(*b.a.p, fx.view(), Vec3<float>(wo), Vec3<float>(wi)));
    const glm::vec3 f1 = to_glm(bsdf_f(*b.b.p, fx.view(), Vec3<float>(wo), Vec3<float>(wi)));
    const float x = std::min(w, 1.f);
    for (int c = 0; c < 3; ++c) CHECK(f[c] == Approx((1.f - x) * f0[c] + x * f1[c]).epsilon(1e-6));
    CHECK(bsdf_pdf(fx.bsdf, fx.view(), wo, wi) ==
          Approx((1.f - x) * bsdf_pdf(*b.a.p, fx.view(), wo, wi) + x * bsdf_pdf(*b.b.p, fx.view(), wo, wi)).epsilon(1e-6));
  }
}

TEST_CASE("blendbsdf: samples follow the pdf (chi2), weights are f cos / pdf", "[bsdf]") {
  const BsdfFixture fx = blend(0.4f);
  check_chi2(fx, {10.f, 50.f, 80.f});
  check_consistency(fx, true);
}

TEST_CASE("blendbsdf: energy by quadrature and by sampling, with a Dirac child", "[bsdf]") {
  for (float theta : {0.f, 60.f}) {
    // Smooth children: quadrature and sampling agree.
    const Albedo a = albedo(blend(0.4f), direction(theta));
    INFO("theta " << theta << ": quadrature " << a.quadrature << ", sampled " << a.sampled << " +- " << a.sampled_error);
    CHECK(a.sampled == Approx(a.quadrature).margin(4. * a.sampled_error + 3e-3));
    // A Dirac gold: the mean weight is 0.6 ρ + 0.4 F(θ), the diffuse part by quadrature.
    const BsdfFixture fx = blend(0.4f, true);
    const Albedo d = albedo(fx, direction(theta));
    const float F = fresnel_conductor(std::cos(theta * kPi / 180.f), 0.2f, 4.f);
    INFO("Dirac child: quadrature " << d.quadrature << ", sampled " << d.sampled << " +- " << d.sampled_error << ", F " << F);
    CHECK(d.quadrature == Approx(0.6 * 0.6).epsilon(2e-3));
    CHECK(d.sampled == Approx(0.6 * 0.6 + 0.4 * F).margin(4. * d.sampled_error + 2e-3));
  }
}

TEST_CASE("blendbsdf: derivatives by the weight and through a Dirac child", "[bsdf]") {
  BsdfFixture fx = blend(0.4f);
  check_f_derivative<ad::Dual<1>>(fx, fx.params.find("weight")->slot, direction(30.f, 10.f), direction(45.f, 200.f), 1e-3f);
  check_f_derivative<ad::Dual<1>>(fx, fx.params.find("alpha")->slot, direction(30.f, 10.f), direction(35.f, 185.f), 1e-3f);
  // A Dirac sample of the gold: its weight F is kept, and carries d/dw = F / w (its share over its
  // probability), and d/d eta through the Fresnel term.
  BsdfFixture g = blend(0.4f, true);
  const glm::vec3 wo = direction(40.f, 0.f);
  BsdfSample s;
  for (float uc = 0.f; uc < 0.4f && !(s.lobe & kLobeDelta); uc += 0.01f) s = bsdf_sample(g.bsdf, g.view(), wo, uc, {0.3f, 0.6f});
  REQUIRE((s.lobe & kLobeDelta));
  const float F = fresnel_conductor(std::cos(40.f * kPi / 180.f), 0.2f, 4.f);
  CHECK(s.weight.x == Approx(F).epsilon(1e-5));
  CHECK(s.pdf == Approx(0.4f).epsilon(1e-6));
  std::vector<int> seeds(g.params.values().size(), -1);
  seeds[g.params.find("weight")->slot] = 0;
  const DeltaLobe<ad::Dual<1>> d = bsdf_delta(g.bsdf, ParamView<ad::Dual<1>>(g.params, seeds.data()), Vec3<ad::Dual<1>>(Vec3<float>(wo)), s);
  CHECK(d.weight.x.v == Approx(F).epsilon(1e-5));
  CHECK(d.weight.x.d[0] == Approx(F / 0.4f).epsilon(1e-4));
}
