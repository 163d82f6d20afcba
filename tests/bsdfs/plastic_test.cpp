// plastic and roughplastic: χ² of the mixture (Dirac coating reflection and diffuse base, the Dirac share one more
// cell), consistency and reciprocity, energy ≤ 1, Mitsuba's diffuse term, derivatives.
#include "ad/dual.h"
#include "tests/bsdfs/bsdf_checks.h"

using namespace dray;
using namespace dray::test;

namespace {
BsdfFixture plastic(glm::vec3 rho, bool nonlinear = false, float int_ior = 1.49f) {
  BsdfFixture fx;
  PlasticBsdf b;
  b.int_ior = fx.params.add("int_ior", int_ior);
  b.ext_ior = fx.params.add("ext_ior", 1.000277f);
  b.diffuse_reflectance = fx.params.add("diffuse_reflectance", rho);
  b.specular_reflectance = fx.params.add("specular_reflectance", glm::vec3(1.f));
  b.nonlinear = nonlinear;
  fx.bsdf = b;
  return fx;
}
BsdfFixture rough_plastic(MicrofacetType t, float alpha, glm::vec3 rho) {
  BsdfFixture fx = plastic(rho);
  RoughPlasticBsdf r;
  r.base = std::get<PlasticBsdf>(fx.bsdf);
  r.distribution = t;
  r.alpha = fx.params.add("alpha", alpha);
  refresh_coating(r, fx.params);
  fx.bsdf = r;
  return fx;
}
}  // namespace

TEST_CASE("plastic: samples follow the pdf and the Dirac share (chi2)", "[bsdf]") {
  check_chi2(plastic(glm::vec3(0.5f)), {0.f, 45.f, 80.f});
  check_chi2(plastic({0.1f, 0.2f, 0.05f}), {20.f, 70.f});
}

TEST_CASE("plastic: consistency, reciprocity, energy, Mitsuba's diffuse term", "[bsdf]") {
  check_consistency(plastic({0.2f, 0.5f, 0.8f}), true);
  check_consistency(plastic({0.2f, 0.5f, 0.8f}, true), true);
  for (float theta : {0.f, 60.f, 85.f}) {
    // A white base with internal reflections (nonlinear) reflects everything: F + (1 - F) (1 - F_dr,int) /
    // (1 - F_dr,int) = 1, up to the 0.1% of the F_dr fit; the linear model (ρ / (1 - F_dr)) keeps ≤ 1 too.
    const Albedo a = albedo(plastic(glm::vec3(1.f), true), direction(theta));
    INFO("theta " << theta << ": sampled " << a.sampled << " +- " << a.sampled_error);
    CHECK(a.sampled == Approx(1.).margin(2e-3 + 4. * a.sampled_error));
    const Albedo b = albedo(plastic(glm::vec3(0.9f)), direction(theta));
    CHECK(b.sampled <= 1.0 + 4. * b.sampled_error);
  }
  // f = ρ / (1 - F_dr(1/η)) (1 - F(θi)) (1 - F(θo)) / (π η²)
  const BsdfFixture fx = plastic(glm::vec3(0.5f));
  const float eta = 1.49f / 1.000277f, ci = 0.8f, co = 0.5f;
  const Vec3<float> wi(std::sqrt(1 - ci * ci), 0.f, ci), wo(0.f, std::sqrt(1 - co * co), co);
  const float expected = 0.5f / (1.f - fresnel_diffuse_reflectance(1.f / eta)) * (1.f - fresnel_dielectric(ci, eta)) *
                         (1.f - fresnel_dielectric(co, eta)) / (kPi * eta * eta);
  CHECK(bsdf_f(fx.bsdf, fx.view(), wo, wi).x == Approx(expected).epsilon(1e-5));
}

TEST_CASE("plastic: derivatives of f in the base colour and the IOR", "[bsdf][gradcheck]") {
  BsdfFixture fx = plastic({0.2f, 0.5f, 0.8f}, true);
  const PlasticBsdf b = std::get<PlasticBsdf>(fx.bsdf);
  const glm::vec3 wo = direction(30.f), wi = direction(70.f, 120.f);
  check_f_derivative<ad::Dual<1>>(fx, b.int_ior, wo, wi, 1e-3f);
  check_f_derivative<ad::Dual<1>>(fx, b.diffuse_reflectance.slot + 1, wo, wi, 1e-3f);
}

TEST_CASE("roughplastic: chi2, consistency, reciprocity, energy, derivatives of alpha and the IOR", "[bsdf][gradcheck]") {
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx}) {
    INFO((t == MicrofacetType::ggx ? "ggx" : "beckmann"));
    check_chi2(rough_plastic(t, 0.2f, {0.6f, 0.2f, 0.1f}), {0.f, 45.f, 80.f});
    check_consistency(rough_plastic(t, 0.3f, {0.2f, 0.5f, 0.8f}), true);
    for (float theta : {0.f, 60.f, 85.f}) {
      const Albedo a = albedo(rough_plastic(t, 0.3f, glm::vec3(0.9f)), direction(theta));
      INFO("theta " << theta << ": quadrature " << a.quadrature << ", sampled " << a.sampled << " +- " << a.sampled_error);
      CHECK(a.sampled == Approx(a.quadrature).margin(4. * a.sampled_error + 3e-3));
      CHECK(a.sampled <= 1.0 + 4. * a.sampled_error);
    }
    BsdfFixture fx = rough_plastic(t, 0.3f, {0.2f, 0.5f, 0.8f});
    const RoughPlasticBsdf& b = std::get<RoughPlasticBsdf>(fx.bsdf);
    const glm::vec3 wo = direction(30.f), wi = direction(35.f, 175.f);  // near the highlight: both lobes
    check_f_derivative<ad::Dual<1>>(fx, b.alpha, wo, wi, 1e-3f);
    check_f_derivative<ad::Dual<1>>(fx, b.base.int_ior, wo, wi, 1e-3f);
  }
}

TEST_CASE("roughplastic's coating table: the smooth coating's transmittance and internal reflectance as α → 0", "[bsdf]") {
  // A nearly smooth coating transmits 1 − F(μ) (Fresnel's closed form) and reflects inside
  // 2 ∫ F(μ, 1/η) μ dμ, which Mitsuba's fit F_dr(1/η) gives to 0.2%.
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx})
    for (float eta : {1.3f, 1.5168f, 2.0f}) {
      INFO((t == MicrofacetType::ggx ? "ggx" : "beckmann") << ", eta " << eta);
      const auto table = coating_table(t, 1e-3f, eta);
      for (int i = 8; i < CoatingTable::kRes; i += 5) {
        const float mu = float(i) / float(CoatingTable::kRes - 1);
        CHECK(table->t[i] == Approx(1.f - fresnel_dielectric(mu, eta)).margin(2e-3));
      }
      // The mean over 64 μ (Mitsuba's rule) against the fit: within the rule's and the fit's error.
      CHECK(table->ri == Approx(fresnel_diffuse_reflectance(1.f / eta)).epsilon(0.02));
    }
  // A rougher coating lets less in at grazing angles (its shadowing), more than Fresnel alone near
  // the normal would suggest never: t stays in [0, 1], falls towards μ = 0.
  const auto rough = coating_table(MicrofacetType::ggx, 0.5f, 1.5f);
  for (int i = 0; i < CoatingTable::kRes; ++i) CHECK((rough->t[i] >= 0.f && rough->t[i] <= 1.f));
  CHECK(rough->t[2] < rough->t[40]);
  CHECK(rough->t[40] < 1.f - fresnel_dielectric(40.f / 63.f, 1.5f) + 1e-3f);
}

TEST_CASE("roughplastic's coating table: derivatives in α and η against rebuilt tables", "[bsdf][gradcheck]") {
  const auto table = coating_table(MicrofacetType::beckmann, 0.3f, 1.5f);
  const float h = 0.01f;
  const auto ap = coating_table(MicrofacetType::beckmann, 0.3f + h, 1.5f), am = coating_table(MicrofacetType::beckmann, 0.3f - h, 1.5f);
  const auto ep = coating_table(MicrofacetType::beckmann, 0.3f, 1.5f + h), em = coating_table(MicrofacetType::beckmann, 0.3f, 1.5f - h);
  const CoatingTable::Derivatives& d = table->derivatives();
  for (int i : {5, 20, 40, 63}) {
    CHECK(d.dt_dalpha[i] == Approx((ap->t[i] - am->t[i]) / (2 * h)).epsilon(0.03).margin(2e-3));
    CHECK(d.dt_deta[i] == Approx((ep->t[i] - em->t[i]) / (2 * h)).epsilon(0.03).margin(2e-3));
  }
  CHECK(d.dri_dalpha == Approx((ap->ri - am->ri) / (2 * h)).epsilon(0.03).margin(2e-3));
  CHECK(d.dri_deta == Approx((ep->ri - em->ri) / (2 * h)).epsilon(0.03).margin(2e-3));
}
