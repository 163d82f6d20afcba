// The integrators' registry (renderer/integrators/integrator_model.h): each plugin by its name with
// its traits; Mitsuba's integrators read as the plugin that renders them, with Mitsuba's
// max_depth defaults (src/integrators/*.cpp: -1; python/ad/integrators/common.py: 6) and the keys
// each takes; unknown names list the registry.
#include <catch2/catch.hpp>

#include <string>

#include "../temp_dir.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/pass.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// The JSON render block Mitsuba's <integrator> element becomes (under a constant sky).
json converted(TempDir& t, const std::string& integrator) {
  const std::string xml = scene_xml(R"(<emitter type="constant"/>)");
  const size_t line = xml.find('\n') + 1;
  std::vector<std::string> warnings;
  return read_scene_document(t.write("i.xml", xml.substr(0, line) + integrator + xml.substr(line)), {}, warnings)["render"];
}

// A diffuse ball under a constant sky.
const char* kBall = R"({"camera": {"origin": [0, 0, 4], "target": [0, 0, 0], "width": 8, "height": 8},
  "materials": {"m": {"type": "diffuse"}},
  "shapes": [{"name": "ball", "type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "m"}],
  "lights": [{"type": "constant"}], "render": {"spp": 1}})";

std::string refusal(TempDir& t, const std::string& integrator) {
  try {
    converted(t, integrator);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("each integrator plugin has its name's place and its traits", "[integrators]") {
  REQUIRE(kIntegrators.size() == 4);
  CHECK(integrator_index("path") == 0);
  CHECK(integrator_index("volpath") == 1);
  CHECK(integrator_index("ptracer") == 2);
  CHECK(integrator_index("volpathmis") == -1);  // Mitsuba's name, not dray's
  RenderSettings r;
  CHECK(r.integrator == integrator_index("path"));  // the default
  CHECK_FALSE(integrator_traits(r).media);
  CHECK(integrator_traits(r).camera_tiles);
  CHECK_FALSE(integrator_refusal(r, PassAsk::film(true, true)));  // path gives AOVs and alpha
  CHECK(integrator_refusal(r, PassAsk::gradient(Loss::scale_independent_l2, false)));  // its adjoint runs tile by tile
  CHECK(integrator_refusal(r, PassAsk::gradient(Loss::l2, true)));  // its gradient pass renders the image it differentiates
  CHECK_FALSE(integrator_refusal(r, PassAsk::gradient(Loss::l2, false)));
  r.integrator = integrator_index("volpath");
  CHECK(integrator_traits(r).media);
  CHECK(integrator_traits(r).camera_tiles);
  r.integrator = integrator_index("ptracer");
  CHECK_FALSE(integrator_traits(r).media);
  CHECK_FALSE(integrator_traits(r).camera_tiles);  // its passes trace light paths
  CHECK(integrator_refusal(r, PassAsk::film(true, false)));
  CHECK(integrator_refusal(r, PassAsk::film(false, true)));
  CHECK_FALSE(integrator_refusal(r, PassAsk::gradient(Loss::scale_independent_l2, true)));
  CHECK(plugin_names<IntegratorModel>() == "path, volpath, ptracer, depth");
  CHECK(mitsuba_integrator_names() ==
        "path, prb, prb_basic, prb_projective, direct_projective, direct, volpath, volpathmis, prbvolpath, ptracer, depth");
}

TEST_CASE("a scene's integrator is read by its name from the registry", "[integrators]") {
  TempDir t("dray-integrators-");
  const json base = json::parse(kBall);
  for (const std::string name : {"path", "volpath", "ptracer"}) {
    json doc = base;
    doc["render"]["integrator"] = name;
    const Scene s = load_scene(t.write("s.json", doc.dump()), {}, false);
    CHECK(s.render.integrator == integrator_index(name));
  }
  json doc = base;
  doc["render"]["integrator"] = "bdpt";
  CHECK_THROWS_WITH(load_scene(t.write("s.json", doc.dump()), {}, false),
                    Catch::Contains("unknown integrator \"bdpt\" (known: path, volpath, ptracer, depth)"));
  doc["render"]["integrator"] = "ptracer";
  doc["render"]["aovs"] = "dd.y:depth";
  CHECK_THROWS_WITH(load_scene(t.write("s.json", doc.dump()), {}, false), Catch::Contains("renders images only (no AOVs)"));
}

TEST_CASE("Mitsuba's integrators read as the plugin rendering them, with Mitsuba's defaults", "[integrators][mitsuba]") {
  TempDir t("dray-integrators-xml-");
  struct Case {
    const char* mitsuba;
    const char* plugin;
    int bounces;  // dray's max_depth: Mitsuba's vertices - 1 (-1: 1024)
  };
  for (const Case& c : {Case{"path", "path", 1024}, Case{"prb", "path", 5}, Case{"prb_basic", "path", 5},
                        Case{"prb_projective", "path", 5}, Case{"direct_projective", "path", 1}, Case{"direct", "path", 1},
                        Case{"volpath", "volpath", 1024}, Case{"volpathmis", "volpath", 1024},
                        Case{"prbvolpath", "volpath", 5}, Case{"ptracer", "ptracer", 1024}}) {
    INFO(c.mitsuba);
    const json r = converted(t, std::string("<integrator type=\"") + c.mitsuba + "\"/>");
    CHECK(r.value("integrator", std::string("path")) == c.plugin);
    CHECK(r["max_depth"] == c.bounces);
    CHECK(r["rr_depth"] == 4);  // Mitsuba's 5 vertices
  }
  // max_depth taken, read and ignored (direct_projective renders direct light), or refused.
  CHECK(converted(t, R"(<integrator type="prb"><integer name="max_depth" value="3"/></integrator>)")["max_depth"] == 2);
  CHECK(converted(t, R"(<integrator type="direct_projective"><integer name="max_depth" value="7"/></integrator>)")["max_depth"] == 1);
  CHECK_THAT(refusal(t, R"(<integrator type="direct"><integer name="max_depth" value="3"/></integrator>)"),
             Catch::Contains("unsupported integrator property"));
  // A plugin's own keys: ptracer's samples_per_pass (the same image), the projective sample counts.
  CHECK(converted(t, R"(<integrator type="ptracer"><integer name="samples_per_pass" value="8"/></integrator>)")["integrator"] == "ptracer");
  CHECK_THAT(refusal(t, R"(<integrator type="path"><integer name="samples_per_pass" value="8"/></integrator>)"),
             Catch::Contains("unsupported integrator property"));
  CHECK(converted(t, R"(<integrator type="prb_projective"><integer name="sppp" value="0"/></integrator>)")["primary_visibility"] == false);
  CHECK_THAT(refusal(t, R"(<integrator type="prb"><integer name="sppp" value="0"/></integrator>)"),
             Catch::Contains("unsupported integrator property"));
  // The wrappers render their nested integrator.
  CHECK(converted(t, R"(<integrator type="moment"><integrator type="volpath"/></integrator>)")["integrator"] == "volpath");
  CHECK_THAT(refusal(t, R"(<integrator type="bdpt"/>)"),
             Catch::Contains("unsupported integrator (supported: path, prb, prb_basic, prb_projective, direct_projective, "
                             "direct, volpath, volpathmis, prbvolpath, ptracer, depth, moment, aov)"));
}
