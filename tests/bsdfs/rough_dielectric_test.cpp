// roughdielectric: χ² of reflection and refraction sampling from both sides (Beckmann, GGX),
// consistency, energy from outside (F + (1 - F)/η² ≤ 1 in radiance units) by quadrature and by
// sampling, the smooth limit, derivatives of alpha and int_ior for reflected and refracted pairs.
#include "ad/dual.h"
#include "tests/bsdfs/bsdf_checks.h"

using namespace dray;
using namespace dray::test;

namespace {
BsdfFixture rough_glass(MicrofacetType t, float au, float av, float ior = 1.5f) {
  BsdfFixture fx;
  RoughDielectricBsdf b;
  add_roughness(fx, b, t, au, av);
  return with_interface(b, ior, 1.f, std::move(fx));
}
}  // namespace

TEST_CASE("roughdielectric: samples follow the pdf from outside and inside (chi2)", "[bsdf]") {
  const std::vector<float> thetas = {10.f, 50.f, 80.f};
  const double alpha = 1. - std::pow(0.99, 1. / 6.);
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx})
    for (glm::vec2 a : {glm::vec2(0.2f), glm::vec2(0.5f), glm::vec2(0.15f, 0.4f)}) {
      const BsdfFixture fx = rough_glass(t, a.x, a.y);
      for (float theta : thetas)
        for (float side : {1.f, -1.f}) {
          glm::vec3 wo = direction(theta, 30.f);
          wo.z *= side;
          const Chi2Result r = chi2_test(fx, wo);
          INFO(name(t) << " alpha " << a.x << "," << a.y << " theta " << theta << " side " << side << ": chi2 "
                       << r.statistic << " dof " << r.dof << " p " << r.p_value);
          CHECK(r.dof > 10);
          CHECK(r.p_value > alpha);
        }
    }
}

TEST_CASE("roughdielectric: pdf covers f, weights are f cos / pdf", "[bsdf]") {
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx}) {
    INFO(name(t));
    check_consistency(rough_glass(t, 0.3f, 0.3f), false);
    check_consistency(rough_glass(t, 0.1f, 0.4f, 1.33f), false);
  }
}

TEST_CASE("roughdielectric: energy from outside, and the smooth limit", "[bsdf]") {
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx})
    for (float alpha : {0.1f, 0.5f})
      for (float theta : {0.f, 60.f}) {
        const Albedo a = albedo(rough_glass(t, alpha, alpha), direction(theta));
        INFO(name(t) << " alpha " << alpha << " theta " << theta << ": quadrature " << a.quadrature << ", sampled "
                     << a.sampled << " +- " << a.sampled_error);
        CHECK(a.sampled == Approx(a.quadrature).margin(4. * a.sampled_error + 3e-3));
        // Smooth glass sends F + (1 - F)/η² back in radiance units; a rough one at most that.
        const float F = fresnel_dielectric(std::cos(theta * kPi / 180.f), 1.5f);
        CHECK(a.sampled <= F + (1. - F) / 2.25 + 4. * a.sampled_error + 2e-3);
        if (alpha == 0.1f && theta == 0.f) CHECK(a.sampled == Approx(F + (1. - F) / 2.25).epsilon(0.01));
      }
}

TEST_CASE("roughdielectric: derivatives of alpha and int_ior against differences", "[bsdf][gradcheck]") {
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx}) {
    INFO(name(t));
    BsdfFixture fx = rough_glass(t, 0.3f, 0.3f);
    const RoughDielectricBsdf b = std::get<RoughDielectricBsdf>(fx.bsdf);
    glm::vec3 below = direction(35.f, 200.f);
    below.z = -below.z;
    const glm::vec3 wo = direction(40.f, 10.f);
    for (const glm::vec3& wi : {direction(50.f, 180.f), below}) {
      check_f_derivative<ad::Dual<1>>(fx, b.alpha_u.slot, wo, wi, 1e-3f);
      check_f_derivative<ad::Dual<1>>(fx, b.int_ior, wo, wi, 1e-3f);
    }
  }
}
