// Fresnel terms against closed forms, and the microfacet distributions' normalisation: ∫ D cos θm
// = 1 and ∫ G1(wo, m) max(0, wo·m) D(m) dm = cos θo (the shadowing matches its distribution).
#include <catch2/catch.hpp>

#include "ad/dual.h"
#include "renderer/bsdfs/fresnel.h"
#include "renderer/bsdfs/microfacet.h"
#include "tests/bsdfs/bsdf_checks.h"

using namespace dray;

TEST_CASE("dielectric Fresnel: normal incidence, no interface, total internal reflection, Snell", "[fresnel]") {
  for (float eta : {1.33f, 1.5f, 2.4f}) {
    const float r0 = (eta - 1.f) / (eta + 1.f);
    CHECK(fresnel_dielectric(1.f, eta) == Approx(r0 * r0).epsilon(1e-5));
    CHECK(fresnel_dielectric(-1.f, eta) == Approx(r0 * r0).epsilon(1e-5));  // from inside, the same
    CHECK(fresnel_dielectric(0.f, eta) == Approx(1.f));                      // grazing
    // Inside, beyond the critical angle: everything reflects.
    const float critical = std::sqrt(1.f - 1.f / (eta * eta));
    CHECK(fresnel_dielectric(-(critical - 0.01f), eta) == 1.f);
    float cos_t, eta_ti;
    const float ci = 0.6f, F = fresnel_dielectric(ci, eta, cos_t, eta_ti);
    CHECK(F < 1.f);
    CHECK(eta_ti == Approx(1.f / eta));
    CHECK(std::sqrt(1.f - cos_t * cos_t) == Approx(std::sqrt(1.f - ci * ci) / eta).epsilon(1e-5));  // Snell
    CHECK(cos_t < 0.f);
  }
  CHECK(fresnel_dielectric(0.7f, 1.f) == Approx(0.f).margin(1e-7));
}

TEST_CASE("conductor Fresnel: normal incidence, k = 0 is a dielectric, eta 0 k 1 a perfect mirror", "[fresnel]") {
  const float n = 0.2f, k = 3.9f;
  CHECK(fresnel_conductor(1.f, n, k) == Approx(((n - 1) * (n - 1) + k * k) / ((n + 1) * (n + 1) + k * k)).epsilon(1e-5));
  for (float c : {0.1f, 0.5f, 0.9f}) {
    CHECK(fresnel_conductor(c, 1.5f, 0.f) == Approx(fresnel_dielectric(c, 1.5f)).epsilon(1e-4));
    CHECK(fresnel_conductor(c, 0.f, 1.f) == Approx(1.f).epsilon(1e-6));
  }
  // The derivative in eta against differences.
  const ad::Dual<1> e(1.3f, 0);
  const float h = 1e-3f;
  const float diff = (fresnel_conductor(0.4f, 1.3f + h, 2.f) - fresnel_conductor(0.4f, 1.3f - h, 2.f)) / (2 * h);
  CHECK(fresnel_conductor(ad::Dual<1>(0.4f), e, ad::Dual<1>(2.f)).d[0] == Approx(diff).epsilon(1e-2));
}

TEST_CASE("diffuse Fresnel reflectance: the fits against 2 ∫ F(μ) μ dμ", "[fresnel]") {
  for (float eta : {0.6f, 1.f / 1.49f, 1.33f, 1.5f, 2.f}) {
    double sum = 0.;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const float mu = (float(i) + 0.5f) / float(n);
      sum += 2. * fresnel_dielectric(mu, eta) * mu / n;
    }
    INFO("eta " << eta);
    CHECK(fresnel_diffuse_reflectance(eta) == Approx(sum).epsilon(1e-2));
  }
}

TEST_CASE("microfacet distributions are normalised and their shadowing matches them", "[microfacet]") {
  for (MicrofacetType t : {MicrofacetType::beckmann, MicrofacetType::ggx})
    for (glm::vec2 a : {glm::vec2(0.1f), glm::vec2(0.5f), glm::vec2(1.f), glm::vec2(0.2f, 0.6f)}) {
      const Microfacet<float> d{t, a.x, a.y};
      for (float theta : {0.f, 40.f, 70.f, 85.f}) {
        const glm::vec3 wo = test::direction(theta, 25.f);
        double projected = 0., visible = 0.;
        // Midpoints in (θm, φ) over the upper hemisphere, fine enough for GGX's narrow peak at α = 0.1.
        const int nt = 4000, np = 400;
        for (int it = 0; it < nt; ++it)
          for (int ip = 0; ip < np; ++ip) {
            const double th = (it + 0.5) * 0.5 * M_PI / nt, phi = (ip + 0.5) * 2. * M_PI / np;
            const double z = std::cos(th), r = std::sin(th);
            const Vec3<float> m(float(r * std::cos(phi)), float(r * std::sin(phi)), float(z));
            const double D = d.D(m) * r;  // sin θ dθ dφ
            projected += D * z;
            visible += d.G1(Vec3<float>(wo), m) * std::max(0.f, dot(Vec3<float>(wo), m)) * D;
          }
        const double cell = (0.5 * M_PI / nt) * (2. * M_PI / np);
        INFO((t == MicrofacetType::ggx ? "ggx" : "beckmann") << " alpha " << a.x << "," << a.y << " theta " << theta);
        CHECK(projected * cell == Approx(1.).epsilon(2e-3));
        CHECK(visible * cell == Approx(wo.z).epsilon(3e-3));
      }
    }
}
