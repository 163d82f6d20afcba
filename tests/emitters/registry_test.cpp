// The emitters' registry (renderer/emitters/light.h): every plugin is read by its name from the
// scene document and from Mitsuba's XML, where its to_world places it as its kWorld says; its
// placement and parameters are its own; unknown names, an area light in /lights and a second sky
// are refused with the registry's names; each written as Mitsuba XML reads back as itself. (Each plugin's light against a closed form: its own test,
// delta_lights_test for point, directional and spot.)
#include <catch2/catch.hpp>

#include "renderer/core/registry.h"
#include "renderer/io/mitsuba/xml_writer.h"
#include "tests/io/mitsuba_scenes.h"
#include "tests/temp_dir.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

json one_light(const json& light) {
  return {{"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"width", 8}, {"height", 8}}},
          {"render", {{"spp", 1}, {"max_depth", 1}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", 0.5}}}}},
          {"shapes", {{{"name", "plane"}, {"type", "quad"}, {"corner", {-3, -3, 0}}, {"edge_u", {6, 0, 0}}, {"edge_v", {0, 6, 0}},
                       {"material", "m"}}}},
          {"lights", {light}}};
}

std::string load_message(const json& doc) {
  try {
    load_scene(doc, "s.json");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("every emitter of the registry is read by its name, with its placement and parameters") {
  struct Case {
    json light;
    EmitterPlacement placement;
    const char* param;  // one of its parameters
  };
  const std::vector<Case> cases = {
      {{{"name", "l"}, {"type", "point"}, {"position", {0, 0, 2}}}, EmitterPlacement::point, "lights.l.position"},
      {{{"name", "l"}, {"type", "spot"}, {"position", {0, 0, 2}}, {"target", {0, 0, 0}}}, EmitterPlacement::point, "lights.l.cutoff_angle"},
      {{{"name", "l"}, {"type", "projector"}, {"position", {0, 0, 2}}, {"target", {0, 0, 0}}}, EmitterPlacement::point, "lights.l.scale"},
      {{{"name", "l"}, {"type", "directional"}, {"direction", {0, 0, -1}}}, EmitterPlacement::direction, "lights.l.irradiance"},
      {{{"name", "l"}, {"type", "constant"}, {"radiance", 0.5}}, EmitterPlacement::sky, "lights.l.radiance"},
      {{{"name", "l"}, {"type", "environment"}, {"radiance", 0.5}}, EmitterPlacement::sky, "lights.l.radiance"},
      {{{"name", "l"}, {"type", "envmap"}, {"width", 4}, {"height", 2}, {"value", 0.5}}, EmitterPlacement::sky, "lights.l.data"},
      {{{"name", "l"}, {"type", "sunsky"}, {"sun_direction", {0, 1, 1}}}, EmitterPlacement::sky, nullptr},
  };
  for (const Case& c : cases) {
    INFO(c.light.dump());
    const Scene s = load_scene(one_light(c.light), "s.json");
    REQUIRE(s.lights.size() == 1);
    CHECK(placement(s.lights[0]) == c.placement);
    CHECK(s.environment == (c.placement == EmitterPlacement::sky ? 0 : -1));
    if (c.param) CHECK(s.params.find(c.param).has_value());
  }
  // `constant` and `environment` are one plugin, Mitsuba's name first.
  const Scene a = load_scene(one_light({{"type", "constant"}, {"radiance", 0.5}}), "s.json");
  CHECK(emitter_type(a.lights[0]) == "constant");
  CHECK(std::holds_alternative<ConstantEmitter>(load_scene(one_light({{"type", "environment"}}), "s.json").lights[0].model));
}

TEST_CASE("unknown emitters, an area light in /lights and a second sky are refused by the registry's names") {
  const std::string names = plugin_names<EmitterModel>();
  CHECK(names == "point, spot, projector, directional, constant, environment, envmap, sunsky, area");
  CHECK_THAT(load_message(one_light({{"type", "laser"}})),
             Catch::Contains("/lights/0/type: unknown light type \"laser\" (expected one of: " + names + ")"));
  CHECK_THAT(load_message(one_light({{"type", "area"}})), Catch::Contains("an area light is a shape's emission"));
  json two = one_light({{"type", "constant"}});
  two["lights"].push_back({{"type", "envmap"}, {"width", 2}, {"height", 1}, {"value", 1}});
  CHECK_THAT(load_message(two), Catch::Contains("/lights/1: only one environment light is allowed"));
  CHECK_THAT(load_message(one_light({{"type", "point"}, {"radiance", 1}})), Catch::Contains("radiance"));
  CHECK_THAT(load_message(one_light({{"type", "projector"}, {"fov_axis", "y"}})),
             Catch::Contains("/lights/0/fov_axis: must be x"));
}

TEST_CASE("Mitsuba's to_world places each emitter as its plugin says; other properties go to its reader") {
  TempDir t("dray-emitter-registry-");
  auto light = [&](const std::string& body) {
    const Scene s = load_scene(t.write("scene.xml", scene_xml(body)), {}, false);
    REQUIRE(s.lights.size() == 1);
    return s;
  };
  // position: a point's translation.
  Scene s = light(R"(<emitter type="point"><transform name="to_world"><translate x="1" y="2" z="3"/></transform></emitter>)");
  CHECK(s.params.get_vec3(light_place(s.lights[0])) == glm::vec3(1, 2, 3));
  // direction: a directional's +z.
  s = light(R"(<emitter type="directional"><transform name="to_world"><rotate x="1" angle="90"/></transform></emitter>)");
  const glm::vec3 d = s.params.get_vec3(light_place(s.lights[0]));
  CHECK(d.x == Approx(0).margin(1e-6));
  CHECK(d.y == Approx(-1).margin(1e-6));
  CHECK(d.z == Approx(0).margin(1e-6));
  // lookat: a projector's position and target, its fov_axis x and its other numbers passed on.
  s = light(R"(<emitter type="projector"><transform name="to_world"><lookat origin="0, 4, 0" target="0, 0, 0" up="0, 0, 1"/></transform>
    <string name="fov_axis" value="x"/><float name="fov" value="30"/></emitter>)");
  CHECK(s.params.get_vec3(light_place(s.lights[0])) == glm::vec3(0, 4, 0));
  CHECK(std::get<ProjectorEmitter>(s.lights[0].model).fov == 30.f);
  // rotation: a sunsky's to_world is its matrix; a property it lacks is named by its reader.
  s = light(R"(<emitter type="sunsky"><transform name="to_world"><rotate x="1" angle="-90"/></transform>
    <vector name="sun_direction" x="0" y="0" z="1"/></emitter>)");
  CHECK(std::get<SunSkyEmitter>(s.lights[0].model).model->settings().to_world[2].y == Approx(1).margin(1e-6));
  const std::string bad = t.write("bad.xml", scene_xml(R"(<emitter type="spot"><transform name="to_world"><lookat origin="0, 4, 0" target="0, 0, 0" up="0, 0, 1"/></transform><float name="power" value="2"/></emitter>)"));
  CHECK_THAT(load_error(bad), Catch::Contains("power"));
  CHECK_THAT(load_error(t.write("laser.xml", scene_xml(R"(<emitter type="laser"/>)"))),
             Catch::Contains("unsupported emitter type (supported: point, spot"));
}

TEST_CASE("every emitter written as Mitsuba XML reads back with its parameters and renders bitwise as itself") {
  TempDir t("dray-emitter-writer-");
  const std::vector<json> lights = {
      {{"name", "l"}, {"type", "point"}, {"position", {0.5, 0.2, 2}}, {"intensity", {3, 2, 1}}},
      {{"name", "l"}, {"type", "spot"}, {"position", {0, 1, 2}}, {"target", {0, 0, 0}}, {"up", {1, 0, 0}}, {"cutoff_angle", 30},
       {"beam_width", 10}, {"intensity", 4}},
      {{"name", "l"}, {"type", "projector"}, {"position", {0, 0, 2}}, {"target", {0.1, 0, 0}}, {"fov_axis", "x"}, {"fov", 50},
       {"irradiance", {1, 0.5, 0.25}}, {"scale", 2}},
      {{"name", "l"}, {"type", "directional"}, {"direction", {0.2, -0.1, -1}}, {"irradiance", 2}},
      {{"name", "l"}, {"type", "constant"}, {"radiance", {0.3, 0.2, 0.1}}},
      {{"name", "l"}, {"type", "sunsky"}, {"year", 2024}, {"month", 3}, {"day", 21}, {"hour", 9.5}, {"latitude", 47}, {"turbidity", 4}},
  };
  for (const json& light : lights) {
    INFO(light.dump());
    json doc = one_light(light);
    doc["camera"]["near_clip"] = 0.01;
    doc["camera"]["far_clip"] = 10000;
    std::vector<std::string> warnings;
    const Scene native = load_scene(doc, (t.dir / "s.json").string());
    const Scene written = load_scene(t.write("written.xml", mitsuba::write_xml(doc, warnings)));
    REQUIRE(written.lights.size() == 1);
    CHECK(emitter_type(written.lights[0]) == emitter_type(native.lights[0]));
    for (const ParamEntry& e : native.params.entries()) {
      if (e.name.rfind("lights.", 0) != 0) continue;
      INFO(e.name);
      const auto f = written.params.find(e.name);
      REQUIRE(f.has_value());
      for (uint32_t k = 0; k < e.size; ++k) CHECK(written.params.get(f->slot + k) == native.params.get(e.slot + k));
    }
    CHECK(render(native).data == render(written).data);
  }
}
