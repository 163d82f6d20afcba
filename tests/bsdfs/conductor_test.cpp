// conductor (and mirror): a Dirac reflection with the conductor Fresnel term; the derivative of
// its weight in eta and k and of its direction in the normal (through wo).
#include "ad/dual.h"
#include "tests/bsdfs/bsdf_checks.h"

using namespace dray;
using namespace dray::test;

TEST_CASE("conductor: mirror direction, Fresnel weight, perfect mirror without an index", "[bsdf]") {
  BsdfFixture gold;
  ConductorBsdf b;
  b.eta = gold.params.add("eta", glm::vec3(0.143f, 0.375f, 1.442f));
  b.k = gold.params.add("k", glm::vec3(3.983f, 2.386f, 1.603f));
  b.specular_reflectance = gold.params.add("specular_reflectance", glm::vec3(1.f, 1.f, 0.5f));
  gold.bsdf = b;
  const glm::vec3 wo = direction(35.f, 80.f);
  const BsdfSample s = bsdf_sample(gold.bsdf, gold.view(), wo, 0.3f, {0.1f, 0.9f});
  REQUIRE(s.lobe == (kLobeDelta | kLobeReflection));
  CHECK(s.wi.x == Approx(-wo.x));
  CHECK(s.wi.y == Approx(-wo.y));
  CHECK(s.wi.z == Approx(wo.z));
  const glm::vec3 eta(0.143f, 0.375f, 1.442f), k(3.983f, 2.386f, 1.603f), tint(1.f, 1.f, 0.5f);
  for (int c = 0; c < 3; ++c) CHECK(s.weight[c] == Approx(fresnel_conductor(wo.z, eta[c], k[c]) * tint[c]).epsilon(1e-6));
  // Gold is yellow: red reflects more than blue, at normal incidence ~0.95 vs ~0.4 in sRGB.
  CHECK(s.weight.x > 0.9f);
  CHECK(s.weight.z < 0.35f);
  CHECK(bsdf_pdf(gold.bsdf, gold.view(), wo, s.wi) == 0.f);  // no density off the Dirac

  BsdfFixture mirror;
  ConductorBsdf m;
  m.specular_reflectance = mirror.params.add("specular_reflectance", glm::vec3(0.8f));
  mirror.bsdf = m;
  const BsdfSample t = bsdf_sample(mirror.bsdf, mirror.view(), wo, 0.5f, {0.5f, 0.5f});
  CHECK(t.weight == glm::vec3(0.8f));
  CHECK(!bsdf_sample(mirror.bsdf, mirror.view(), -wo, 0.5f, {0.5f, 0.5f}).lobe);  // from below: nothing

  // d weight / d eta_red in T against differences.
  std::vector<int> seeds(gold.params.values().size(), -1);
  seeds[b.eta.slot] = 0;
  using D1 = ad::Dual<1>;
  const DeltaLobe<D1> d = bsdf_delta(gold.bsdf, ParamView<D1>(gold.params, seeds.data()), Vec3<D1>(Vec3<float>(wo)), s);
  const float h = 1e-3f;
  auto weight_at = [&](float v) {
    gold.params.set(b.eta.slot, v);
    return bsdf_sample(gold.bsdf, gold.view(), wo, 0.3f, {0.1f, 0.9f}).weight.x;
  };
  const float diff = (weight_at(0.143f + h) - weight_at(0.143f - h)) / (2 * h);
  CHECK(ad::tangent(d.weight.x, 0) == Approx(diff).epsilon(1e-2));
}
