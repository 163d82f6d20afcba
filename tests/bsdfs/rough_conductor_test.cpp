// roughconductor: χ² of visible-normal sampling for Beckmann and GGX (isotropic and anisotropic),
// consistency and reciprocity, the white furnace (a mirror-index metal reflects what single
// scattering predicts, < 1, by quadrature and by sampling alike), derivatives of alpha, eta and k.
#include "ad/dual.h"
#include "tests/bsdfs/bsdf_checks.h"

using namespace dray;
using namespace dray::test;

namespace {

BsdfFixture rough(MicrofacetType type, float au, float av, glm::vec3 eta = glm::vec3(0.f), glm::vec3 k = glm::vec3(1.f)) {
  BsdfFixture fx;
  RoughConductorBsdf b;
  add_roughness(fx, b, type, au, av);
  b.eta = fx.params.add("eta", eta);
  b.k = fx.params.add("k", k);
  b.specular_reflectance = fx.params.add("specular_reflectance", glm::vec3(1.f));
  fx.bsdf = b;
  return fx;
}


}  // namespace

TEST_CASE("roughconductor: samples follow the pdf (chi2)", "[bsdf]") {
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx})
    for (glm::vec2 a : {glm::vec2(0.2f), glm::vec2(0.6f), glm::vec2(0.15f, 0.5f)}) {
      INFO(name(t) << " alpha " << a.x << ", " << a.y);
      check_chi2(rough(t, a.x, a.y), {0.f, 30.f, 60.f, 80.f});
    }
}

TEST_CASE("roughconductor: pdf covers f, weights are f cos / pdf, f is reciprocal", "[bsdf]") {
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx}) {
    INFO(name(t));
    check_consistency(rough(t, 0.3f, 0.3f, {0.2f, 0.9f, 1.1f}, {3.9f, 2.4f, 2.1f}), true);
    check_consistency(rough(t, 0.1f, 0.4f), true);
  }
}

TEST_CASE("roughconductor: white furnace, single scattering, energy below 1", "[bsdf]") {
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx})
    for (float alpha : {0.1f, 0.5f, 1.0f})
      for (float theta : {0.f, 45.f, 75.f}) {
        const Albedo a = albedo(rough(t, alpha, alpha), direction(theta));
        INFO(name(t) << " alpha " << alpha << " theta " << theta << ": quadrature " << a.quadrature << ", sampled "
                     << a.sampled << " +- " << a.sampled_error);
        CHECK(a.sampled == Approx(a.quadrature).margin(4. * a.sampled_error + 2e-3));
        CHECK(a.quadrature <= 1.0 + 1e-3);
        CHECK(a.sampled <= 1.0 + 4. * a.sampled_error);
        // Smooth surfaces lose little to masking; rough ones at grazing angles lose much.
        if (alpha == 0.1f && theta < 50.f) CHECK(a.quadrature > 0.98);
        if (alpha == 1.0f && theta == 75.f) CHECK(a.quadrature < 0.9);
      }
}

TEST_CASE("roughconductor: derivatives of alpha, eta and k against differences", "[bsdf][gradcheck]") {
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx}) {
    INFO(name(t));
    BsdfFixture fx = rough(t, 0.3f, 0.3f, {0.2f, 0.9f, 1.1f}, {3.9f, 2.4f, 2.1f});
    const RoughConductorBsdf& b = std::get<RoughConductorBsdf>(fx.bsdf);
    const glm::vec3 wo = direction(40.f, 10.f), wi = direction(55.f, 170.f), wj = direction(20.f, 200.f);
    for (const glm::vec3& w : {wi, wj}) {
      check_f_derivative<ad::Dual<1>>(fx, b.alpha_u.slot, wo, w, 1e-3f);
      check_f_derivative<ad::Dual<1>>(fx, b.eta.slot + 1, wo, w, 1e-3f);
      check_f_derivative<ad::Dual<1>>(fx, b.k.slot + 2, wo, w, 1e-3f);
    }
  }
}
