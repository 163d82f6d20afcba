// Mitsuba's samplers and the direct integrator's sample counts in XML: a scene-level sampler an
// id refers to, each plugin's keys and Mitsuba's rounding of sample_count, what is refused; and
// direct's emitter_samples and bsdf_samples, whose three estimators (light sampling alone, BSDF
// sampling alone, both with MIS) must agree on a small light over a diffuse floor.
#include <catch2/catch.hpp>

#include <cmath>

#include "../temp_dir.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// A 24 x 16 view of a diffuse floor lit by a small emitting rectangle above it, with `sampler`
// (a <sampler> element, or a <ref>) in the sensor, `top` at the scene level and `integrator`.
std::string scene(const std::string& sampler, const std::string& top = "",
                  const std::string& integrator = R"(<integrator type="direct"/>)") {
  return R"(<scene version="3.0.0">)" + top + integrator + R"(
    <sensor type="perspective"><float name="fov" value="50"/>
      <transform name="to_world"><lookat origin="0, 3, 3" target="0, 0, 0" up="0, 1, 0"/></transform>
      <film type="hdrfilm"><integer name="width" value="24"/><integer name="height" value="16"/><rfilter type="box"/></film>)" +
         sampler + R"(</sensor>
    <shape type="rectangle"><transform name="to_world"><scale value="3"/><rotate x="1" angle="-90"/></transform>
      <bsdf type="diffuse"><rgb name="reflectance" value="0.5"/></bsdf></shape>
    <shape type="rectangle"><transform name="to_world"><scale value="0.3"/><rotate x="1" angle="90"/><translate y="1.5"/></transform>
      <emitter type="area"><rgb name="radiance" value="10"/></emitter></shape>
  </scene>)";
}

std::string counted(const std::string& type, int n, const std::string& more = "") {
  return R"(<sampler type=")" + type + R"("><integer name="sample_count" value=")" + std::to_string(n) + R"("/>)" + more + "</sampler>";
}

json render_of(TempDir& t, const std::string& xml, std::vector<std::string>& warnings) {
  return read_scene_document(t.write("s.xml", xml), {}, warnings)["render"];
}

}  // namespace

TEST_CASE("Mitsuba's samplers: each plugin, its keys and Mitsuba's rounding of sample_count", "[mitsuba]") {
  TempDir t("dray-mitsuba-samplers-");
  std::vector<std::string> warnings;
  json r = render_of(t, scene(counted("stratified", 16)), warnings);
  CHECK(r["sampler"] == "stratified");
  CHECK(r["spp"] == 16);
  CHECK(warnings.empty());
  // Rounded up as Mitsuba's set_sample_count rounds, with a warning naming both counts.
  for (const auto& [type, asked, rounded] : std::vector<std::tuple<std::string, int, int>>{
           {"stratified", 10, 16}, {"multijitter", 10, 12}, {"orthogonal", 16, 25}, {"ldsampler", 17, 64}, {"independent", 10, 10}}) {
    warnings.clear();
    r = render_of(t, scene(counted(type, asked)), warnings);
    INFO(type);
    CHECK(r["spp"] == rounded);
    CHECK(warnings.size() == (asked == rounded ? 0u : 1u));
    if (asked != rounded) CHECK(warnings[0].find("rounded up to " + std::to_string(rounded)) != std::string::npos);
  }
  r = render_of(t, scene(counted("multijitter", 16, R"(<boolean name="jitter" value="false"/><integer name="seed" value="7"/>)")), warnings);
  CHECK(r["sampler"] == json({{"type", "multijitter"}, {"jitter", false}}));
  CHECK(r["seed"] == 7);
  CHECK(render_of(t, scene("<sampler type=\"independent\"/>"), warnings)["spp"] == 4);  // Mitsuba's default count
  CHECK_FALSE(render_of(t, scene("<sampler type=\"independent\"/>"), warnings).contains("sampler"));
  // At the scene level with an id, referred to from the sensor (the documentation's sampler scenes).
  r = render_of(t, scene(R"(<ref id="s"/>)", counted("orthogonal", 25).insert(8, R"( id="s")")), warnings);
  CHECK(r["sampler"] == "orthogonal");
  CHECK(r["spp"] == 25);
  const Scene loaded = load_scene(t.write("l.xml", scene(counted("ldsampler", 16))), {}, false);
  CHECK(std::holds_alternative<LowDiscrepancySampler>(loaded.render.sampler));
}

TEST_CASE("Mitsuba's samplers: what is refused names the element and the reason", "[mitsuba]") {
  TempDir t("dray-mitsuba-samplers-refused-");
  auto error = [&](const std::string& xml) { return load_error(t.write("e.xml", xml)); };
  CHECK_THAT(error(scene(counted("sobol", 4))), Catch::Contains("<sampler type=\"sobol\">") && Catch::Contains("supported: independent, stratified, multijitter, orthogonal, ldsampler"));
  CHECK_THAT(error(scene(counted("ldsampler", 4, R"(<boolean name="jitter" value="false"/>)"))), Catch::Contains("unsupported ldsampler property"));
  CHECK_THAT(error(scene(counted("orthogonal", 4, R"(<integer name="strength" value="3"/>)"))), Catch::Contains("strength 2"));
  CHECK_THAT(error(scene("", counted("stratified", 4))), Catch::Contains("give it an id"));
  CHECK_THAT(error(scene(counted("stratified", 0))), Catch::Contains("sample_count must be in [1, 2^20]"));
}

TEST_CASE("Mitsuba's direct: emitter_samples and bsdf_samples, three estimators of one image", "[mitsuba]") {
  TempDir t("dray-mitsuba-direct-");
  auto direct = [&](const std::string& keys, int spp) {
    return load_scene(t.write("d.xml", scene(counted("independent", spp), "", R"(<integrator type="direct">)" + keys + "</integrator>")));
  };
  auto mean = [](const Image& im) {
    double sum = 0;
    for (int j = 0; j < im.height; ++j)
      for (int i = 0; i < im.width; ++i) sum += im.pixel(i, j)[0];
    return sum / (im.width * im.height);
  };
  const Scene both = direct("", 1024);
  CHECK(both.render.emitter_samples == 1);
  CHECK(both.render.bsdf_samples == 1);
  const Scene lum = direct(R"(<integer name="emitter_samples" value="1"/><integer name="bsdf_samples" value="0"/>)", 1024);
  const Scene bsdf = direct(R"(<integer name="emitter_samples" value="0"/><integer name="bsdf_samples" value="1"/>)", 1024);
  REQUIRE(lum.render.bsdf_samples == 0);
  REQUIRE(bsdf.render.emitter_samples == 0);
  // The floor's mean: the light seen from it is found by BSDF sampling in about 5% of the samples,
  // so that estimator's image mean has a standard error near 0.7% at 1024 spp; 3% is 4 of them.
  const double m = mean(render(both));
  CHECK(m > 0.05);
  CHECK(mean(render(lum)) == Approx(m).epsilon(0.03));
  CHECK(mean(render(bsdf)) == Approx(m).epsilon(0.03));
  // Each estimator alone differs from the MIS one sample by sample: the images are not the same.
  CHECK(mean(render(lum)) != mean(render(both)));
  auto error = [&](const std::string& keys) { return load_error(t.write("e.xml", scene(counted("independent", 4), "", R"(<integrator type="direct">)" + keys + "</integrator>"))); };
  CHECK_THAT(error(R"(<integer name="shading_samples" value="0"/>)"), Catch::Contains("both 0"));
  CHECK_THAT(error(R"(<integer name="emitter_samples" value="1"/><integer name="shading_samples" value="1"/>)"), Catch::Contains("together"));
  CHECK_THAT(error(R"(<integer name="emitter_samples" value="2"/>)"), Catch::Contains("raise the spp"));
  CHECK_THAT(load_error(t.write("p.xml", scene(counted("independent", 4), "", R"(<integrator type="path"><integer name="emitter_samples" value="1"/></integrator>)"))),
             Catch::Contains("unsupported integrator property"));
}
