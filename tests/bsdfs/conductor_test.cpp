// conductor (and mirror): a Dirac reflection with the conductor Fresnel term; the derivative of
// its weight in eta and k and of its direction in the normal (through wo).
#include "ad/dual.h"
#include "renderer/bsdfs/ior.h"
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

TEST_CASE("named conductors: Mitsuba's list, as its RGB variants compute them", "[bsdf]") {
  // Every material src/bsdfs/conductor.cpp documents.
  for (const char* n : {"a-C", "Ag", "Al", "AlAs", "AlAs_palik", "AlSb", "AlSb_palik", "Au", "Be", "Be_palik", "Cr", "CsI",
                        "CsI_palik", "Cu", "Cu_palik", "Cu2O", "Cu2O_palik", "CuO", "CuO_palik", "d-C", "d-C_palik", "Hg",
                        "Hg_palik", "HgTe", "HgTe_palik", "Ir", "Ir_palik", "K", "K_palik", "Li", "Li_palik", "MgO",
                        "MgO_palik", "Mo", "Mo_palik", "Na_palik", "Nb", "Nb_palik", "Ni_palik", "Rh", "Rh_palik", "Se",
                        "Se_palik", "SiC", "SiC_palik", "SnTe", "SnTe_palik", "Ta", "Ta_palik", "Te", "Te_palik", "ThF4",
                        "ThF4_palik", "TiC", "TiC_palik", "TiN", "TiN_palik", "TiO2", "TiO2_palik", "VC", "VC_palik",
                        "V_palik", "VN", "VN_palik", "W", "none"}) {
    INFO(n);
    CHECK(conductor_ior(n).has_value());
  }
  CHECK_FALSE(conductor_ior("Ni").has_value());  // Mitsuba 3 has Ni_palik only
  // Against an independent integration of the same spectra: Yocto/GL's RGB table of Mitsuba's
  // eta and k (yocto_scene.cpp), to 0.1%.
  struct Fit {
    const char* name;
    glm::vec3 eta, k;
  };
  for (const Fit& f : {Fit{"Ag", {0.1552646f, 0.1167233f, 0.1383807f}, {4.8283433f, 3.1222459f, 2.1469504f}},
                       Fit{"Al", {1.6574600f, 0.8803690f, 0.5212287f}, {9.2238692f, 6.2695232f, 4.8370012f}},
                       Fit{"Au", {0.1431190f, 0.3749570f, 1.4424786f}, {3.9831604f, 2.3857207f, 1.6032153f}},
                       Fit{"Cu", {0.2004377f, 0.9240334f, 1.1022120f}, {3.9129485f, 2.4528477f, 2.1421880f}},
                       Fit{"W", {4.3707030f, 3.3002972f, 2.9982667f}, {3.5006779f, 2.6048653f, 2.2731931f}}}) {
    const ConductorIor c = *conductor_ior(f.name);
    INFO(f.name);
    for (int i = 0; i < 3; ++i) {
      CHECK(c.eta[i] == Approx(f.eta[i]).epsilon(3e-3));
      CHECK(c.k[i] == Approx(f.k[i]).epsilon(1e-3));
    }
  }
}
