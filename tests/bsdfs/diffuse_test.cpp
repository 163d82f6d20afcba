// diffuse: χ² of cosine sampling, consistency and reciprocity, albedo = reflectance, derivative.
#include "ad/dual.h"
#include "tests/bsdfs/bsdf_checks.h"

using namespace dray;
using namespace dray::test;

namespace {
BsdfFixture diffuse(glm::vec3 rho) {
  BsdfFixture fx;
  fx.bsdf = DiffuseBsdf{fx.params.add("reflectance", rho)};
  return fx;
}
}  // namespace

TEST_CASE("diffuse: samples follow the pdf (chi2), weights and reciprocity", "[bsdf]") {
  check_chi2(diffuse(glm::vec3(0.5f)), {0.f, 45.f, 85.f});
  check_consistency(diffuse({0.2f, 0.5f, 0.8f}), true);
}

TEST_CASE("diffuse: the albedo is the reflectance; derivative of f", "[bsdf][gradcheck]") {
  BsdfFixture fx = diffuse({0.2f, 0.5f, 0.8f});
  for (int c = 0; c < 3; ++c) {
    const Albedo a = albedo(fx, direction(30.f), c);
    CHECK(a.quadrature == Approx(fx.params.get(Slot(c))).epsilon(1e-3));
    CHECK(a.sampled == Approx(fx.params.get(Slot(c))).epsilon(1e-6));  // every weight is the reflectance
  }
  check_f_derivative<ad::Dual<1>>(fx, 1, direction(30.f), direction(60.f, 90.f), 1e-3f);
}
