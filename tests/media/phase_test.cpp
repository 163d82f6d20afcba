// The phase functions (media/phase.h's registry: isotropic, hg, rayleigh, tabphase, blendphase):
// each read by name with Mitsuba's keys and defaults (src/phase/*.cpp), sampled as it evaluates
// (χ² of the directions against the density, the sample's pdf its value), integrating to one,
// against closed forms, and a tabulated one's derivative by its values against central differences.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "ad/dual.h"
#include "renderer/io/mitsuba/xml_writer.h"
#include "renderer/io/scene_loader.h"
#include "renderer/media/phase.h"
#include "tests/chi2.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;

namespace {

// A scene whose one medium has the phase function `phase`.
Scene scene_with(const json& phase) {
  json doc = {{"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}, {"width", 4}, {"height", 4}}},
              {"media", {{"fog", {{"type", "homogeneous"}, {"phase", phase}}}}},
              {"shapes", {{{"name", "ball"}, {"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "null"},
                           {"interior", "fog"}}}},
              {"materials", {{"null", {{"type", "null"}}}}},
              {"lights", {{{"type", "environment"}, {"radiance", 1}}}},
              {"render", {{"integrator", "volpath"}}}};
  return load_scene(doc, "s.json");
}

const Phase& fog_phase(const Scene& s) { return s.media.at(0).phase; }

// ∫ p over the sphere, by the midpoint rule in the cosine.
double sphere_integral(const Phase& ph, const ParamView<float>& P) {
  double sum = 0.;
  const int n = 20000;
  for (int i = 0; i < n; ++i) sum += phase_eval(ph, P, float(-1. + 2. * (i + 0.5) / n)) * 2. * M_PI * (2. / n);
  return sum;
}

void check_sampling(const Phase& ph, const ParamView<float>& P, const std::string& what) {
  const glm::vec3 d = glm::normalize(glm::vec3(0.3f, -0.2f, 0.9f));
  auto draw = [&](Sampler& s) {
    const float u1 = s.next(), u2 = s.next();
    const PhaseSample x = phase_sample(ph, P, d, {u1, u2});
    REQUIRE(x.pdf == Approx(phase_eval(ph, P, glm::dot(d, x.d))).epsilon(1e-3));
    return test::Chi2Draw{test::Chi2Draw::direction, x.d};
  };
  const test::Chi2Result r =
      test::chi2_sphere(draw, [&](const glm::vec3& w) { return double(phase_eval(ph, P, glm::dot(d, w))); }, false, 11, 400000);
  INFO(what << ": chi2 " << r.statistic << " dof " << r.dof << " p " << r.p_value);
  CHECK(r.p_value > 0.005);
  CHECK(sphere_integral(ph, P) == Approx(1.0).epsilon(1e-4));
}

}  // namespace

TEST_CASE("phase functions: the registry reads each by its Mitsuba name", "[media][phase]") {
  CHECK(plugin_names<Phase>() == "isotropic, hg, rayleigh, tabphase, blendphase");
  const Scene hg = scene_with({{"type", "hg"}});
  CHECK(std::holds_alternative<HgPhase>(fog_phase(hg)));
  CHECK(hg.params.get(hg.params.find("media.fog.phase.g")->slot) == 0.8f);  // Mitsuba's default
  CHECK(std::holds_alternative<IsotropicPhase>(scene_with({{"type", "isotropic"}}).media[0].phase));
  CHECK_THROWS_WITH(scene_with({{"type", "sggx"}}), Catch::Contains("unknown phase function \"sggx\"") &&
                                                      Catch::Contains("isotropic, hg, rayleigh, tabphase, blendphase"));
  CHECK_THROWS_WITH(scene_with({{"type", "hg"}, {"g", 1.0}}), Catch::Contains("/media/fog/phase/g: must be in (-1, 1)"));
  CHECK_THROWS_WITH(scene_with({{"type", "rayleigh"}, {"g", 0.1}}), Catch::Contains("/media/fog/phase/g: unknown key"));
  CHECK_THROWS_WITH(scene_with({{"type", "tabphase"}, {"values", "1"}}), Catch::Contains("at least 2 values"));
  CHECK_THROWS_WITH(scene_with({{"type", "tabphase"}, {"values", "1, x"}}), Catch::Contains("\"x\" is not a number"));
  CHECK_THROWS_WITH(scene_with({{"type", "tabphase"}, {"values", "1, 1e300"}}), Catch::Contains("\"1e300\" is not a number within float range"));
  CHECK_THROWS_WITH(scene_with({{"type", "tabphase"}, {"values", "1, -1"}}), Catch::Contains("must not be negative"));
  CHECK_THROWS_WITH(scene_with({{"type", "tabphase"}, {"values", 3}}), Catch::Contains("/media/fog/phase/values: must be an array of numbers or a string"));
  CHECK_THROWS_WITH(scene_with({{"type", "blendphase"}, {"phase", {{{"type", "hg"}}}}}), Catch::Contains("an array of two"));
  CHECK_THROWS_WITH(scene_with({{"type", "blendphase"}, {"weight", 2}, {"phase", {{{"type", "hg"}}, {{"type", "isotropic"}}}}}),
                    Catch::Contains("/media/fog/phase/weight: must be in [0, 1]"));
}

TEST_CASE("phase functions sample as they evaluate, and integrate to one", "[media][phase]") {
  ParamTable params;
  HgPhase hg_f{params.add("g1", 0.6f)}, hg_b{params.add("g2", -0.3f)};
  TabPhase tab{params.add_block("tab", {0.5f, 1.f, 3.f, 0.2f, 2.f}, {5}), 5};
  BlendPhase blend{params.add("w", 0.3f), {std::make_shared<const Phase>(IsotropicPhase{})}, {std::make_shared<const Phase>(hg_f)}};
  BlendPhase nested{params.add("w2", 0.6f), {std::make_shared<const Phase>(blend)}, {std::make_shared<const Phase>(tab)}};
  const ParamView<float> P(params);  // after the table's last add (a view holds its values' address)
  check_sampling(IsotropicPhase{}, P, "isotropic");
  check_sampling(hg_f, P, "hg 0.6");
  check_sampling(hg_b, P, "hg -0.3");
  check_sampling(RayleighPhase{}, P, "rayleigh");
  check_sampling(tab, P, "tabphase");
  check_sampling(blend, P, "blendphase");
  check_sampling(nested, P, "blendphase of a blendphase and a tabphase");
  // Henyey–Greenstein's mean cosine is g (its definition), from the density by quadrature.
  double mean_cos = 0.;
  for (int i = 0; i < 100000; ++i) {
    const double c = -1. + 2. * (i + 0.5) / 100000.;
    mean_cos += c * hg_f.eval(P, float(c)) * 2. * M_PI * (2. / 100000.);
  }
  CHECK(mean_cos == Approx(0.6).margin(1e-4));
}

TEST_CASE("tabphase and blendphase against closed forms", "[media][phase]") {
  // Constant values: isotropic. Two values [1, 3]: linear in the cosine, v = 2 + c, ∫v = 4.
  const Scene flat = scene_with({{"type", "tabphase"}, {"values", "2, 2, 2"}});
  const Scene line = scene_with({{"type", "tabphase"}, {"values", {1, 3}}});
  const ParamView<float> PF(flat.params), PL(line.params);
  for (float c : {-1.f, -0.37f, 0.f, 0.5f, 1.f}) {
    CHECK(phase_eval(fog_phase(flat), PF, c) == Approx(1. / (4. * M_PI)).epsilon(1e-6));
    CHECK(phase_eval(fog_phase(line), PL, c) == Approx((2. + c) / (8. * M_PI)).epsilon(1e-6));
  }
  // The values are a parameter block under Mitsuba's key.
  CHECK(line.params.find("media.fog.phase.values")->shape == std::vector<uint32_t>{2});
  // A blend: (1 − w) isotropic + w rayleigh, its two named phase_0 and phase_1 (Mitsuba's names).
  const Scene mix = scene_with({{"type", "blendphase"}, {"weight", 0.25},
                                {"phase", {{{"type", "isotropic"}}, {{"type", "hg"}, {"g", 0.1}}}}});
  CHECK(mix.params.find("media.fog.phase.weight"));
  CHECK(mix.params.get(mix.params.find("media.fog.phase.phase_1.g")->slot) == 0.1f);
  const Scene iso_ray = scene_with({{"type", "blendphase"}, {"weight", 0.25}, {"phase", {{{"type", "isotropic"}}, {{"type", "rayleigh"}}}}});
  const ParamView<float> PM(iso_ray.params);
  for (float c : {-1.f, -0.2f, 0.7f})
    CHECK(phase_eval(fog_phase(iso_ray), PM, c) ==
          Approx(0.75 / (4. * M_PI) + 0.25 * 3. / (16. * M_PI) * (1. + double(c) * c)).epsilon(1e-6));
}

TEST_CASE("tabphase: its derivative by each value (through the normalization) matches central differences", "[media][phase]") {
  ParamTable params;
  const Slot values = params.add_block("tab", {0.5f, 1.f, 3.f, 0.2f, 2.f}, {5});
  const TabPhase tab{values, 5};
  for (int k = 0; k < 5; ++k) {
    std::vector<int> seeds(params.values().size(), -1);
    seeds[size_t(values + k)] = 0;
    const ParamView<ad::Dual<1>> PD(params, seeds.data());
    for (float c : {-0.9f, 0.1f, 0.6f}) {
      const ad::Dual<1> f = tab.eval(PD, ad::Dual<1>(c));
      const float x = params.get(values + k), h = 1e-3f;
      auto at = [&](float v) {
        params.set(values + k, v);
        const float y = tab.eval(ParamView<float>(params), c);
        params.set(values + k, x);
        return double(y);
      };
      INFO("value " << k << " at cos " << c);
      CHECK(f.d[0] == Approx((at(x + h) - at(x - h)) / (2. * h)).margin(1e-4));
    }
  }
}

TEST_CASE("phase functions in Mitsuba XML: read by their plugins, written back, under Mitsuba's keys", "[media][phase][mitsuba]") {
  testing::TempDir t("dray-phase-xml-");
  // blendphase's two in the order of their names (phase_1 given first); tabphase's values a string.
  const std::string xml = t.write("scene.xml", R"(<scene version="3.0.0">
  <integrator type="volpath"/>
  <sensor type="perspective"><film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="8"/></film></sensor>
  <medium id="fog" type="homogeneous">
    <phase type="blendphase">
      <float name="weight" value="0.3"/>
      <phase name="phase_1" type="hg"><float name="g" value="0.2"/></phase>
      <phase name="phase_0" type="tabphase"><string name="values" value="1, 2 3"/></phase>
    </phase>
  </medium>
  <shape type="sphere"><bsdf type="null"/><ref name="interior" id="fog"/></shape>
  <emitter type="constant"/>
</scene>)");
  const Scene s = load_scene(xml);
  const auto* blend = std::get_if<BlendPhase>(&s.media.at(0).phase);
  REQUIRE(blend);
  CHECK(std::holds_alternative<TabPhase>(*blend->a.p));
  CHECK(std::holds_alternative<HgPhase>(*blend->b.p));
  CHECK(s.params.get(s.params.find("media.fog.phase.weight")->slot) == 0.3f);
  CHECK(s.params.get(s.params.find("media.fog.phase.phase_1.g")->slot) == 0.2f);
  CHECK(s.params.get(s.params.find("media.fog.phase.phase_0.values")->slot + 2) == 3.f);
  // Mitsuba's parameter names (its traverse: phase_function.weight, .phase_0.values, .phase_1.g).
  CHECK(s.params.find("fog.phase_function.weight"));
  CHECK(s.params.find("fog.phase_function.phase_0.values"));
  CHECK(s.params.find("fog.phase_function.phase_1.g"));
  // Written as XML from dray's document and read back: the same phase function, value for value.
  json doc = {{"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}, {"width", 8}, {"height", 8}}},
              {"media", {{"fog", {{"type", "homogeneous"},
                                  {"phase", {{"type", "blendphase"}, {"weight", 0.3},
                                             {"phase", {{{"type", "tabphase"}, {"values", {1, 2, 3}}}, {{"type", "hg"}, {"g", 0.2}}}}}}}}}},
              {"shapes", {{{"name", "ball"}, {"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "null"},
                           {"interior", "fog"}}}},
              {"materials", {{"null", {{"type", "null"}}}}},
              {"lights", {{{"type", "environment"}, {"radiance", 1}}}}};
  std::vector<std::string> warnings;
  const std::string written = mitsuba::write_xml(doc, warnings);
  CHECK_THAT(written, Catch::Contains(R"(<phase name="phase_0" type="tabphase">)") &&
                          Catch::Contains(R"(<string name="values" value="1, 2, 3" />)"));  // Mitsuba's form: a string
  const Scene back = load_scene(t.write("written.xml", written));
  const Scene direct = load_scene(doc, "s.json");
  const ParamView<float> PB(back.params), PD(direct.params);
  for (float c : {-0.8f, 0.f, 0.4f, 1.f})
    CHECK(phase_eval(back.media.at(0).phase, PB, c) == phase_eval(direct.media.at(0).phase, PD, c));
}
