// Mitsuba's parameter keys (mi.traverse's, src/bsdfs, src/emitters, src/render/mesh.cpp and
// src/media of mitsuba3) as aliases of dray's names, and the properties Mitsuba accepts without
// using them (a perspective sensor's focus_distance, the projective integrators' sample counts).
#include <catch2/catch.hpp>

#include <set>

#include "../temp_dir.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// Every kind of object, with ids where Mitsuba keys them: a shared bsdf, a mesh with an inline
// bsdf, an emitting rectangle sharing the bsdf, a point light, a sphere holding a medium.
std::string keyed_scene() {
  return R"(<scene version="3.0.0">
  <sensor type="perspective" id="cam">
    <float name="fov" value="40"/><float name="near_clip" value="0.5"/><float name="focus_distance" value="1000"/>
    <transform name="to_world"><lookat origin="0, 1, 6" target="0, 1, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="8"/></film>
  </sensor>
  <bsdf type="diffuse" id="red"><rgb name="reflectance" value="0.6, 0.1, 0.1"/></bsdf>
  <bsdf type="roughconductor" id="metal"><float name="alpha" value="0.2"/></bsdf>
  <shape type="obj" id="bunny"><string name="filename" value="t.obj"/>
    <bsdf type="diffuse"><rgb name="reflectance" value="0.2, 0.3, 0.4"/></bsdf></shape>
  <shape type="obj" id="statue"><string name="filename" value="t.obj"/><ref id="metal"/></shape>
  <shape type="rectangle" id="light"><ref id="red"/><emitter type="area"><rgb name="radiance" value="5"/></emitter></shape>
  <emitter type="point" id="lamp"><point name="position" x="0" y="3" z="0"/><rgb name="intensity" value="10"/></emitter>
  <shape type="sphere" id="object"><bsdf type="null"/>
    <medium type="homogeneous" name="interior"><rgb name="sigma_t" value="1, 2, 3"/><rgb name="albedo" value="0.5"/></medium></shape>
</scene>)";
}

// A scene under a constant sky rendered by `integrator` (an <integrator> element).
std::string with_integrator(const std::string& integrator) {
  const std::string xml = scene_xml(R"(<emitter type="constant"/>)");
  const size_t line = xml.find('\n') + 1;
  return xml.substr(0, line) + integrator + xml.substr(line);
}

// The dray parameter a key names, or "" (find answers to names and aliases alike).
std::string target(const Scene& scene, const std::string& key) {
  const auto entry = scene.params.find(key);
  return entry ? entry->name : "";
}

}  // namespace

TEST_CASE("Mitsuba's keys name dray's parameters", "[mitsuba]") {
  TempDir t("dray-mitsuba-keys-");
  t.write("t.obj", kTetrahedron);
  const Scene scene = load_scene(t.write("s.xml", keyed_scene()), {}, false);
  CHECK(target(scene, "red.reflectance.value") == "materials.red.reflectance");
  CHECK(target(scene, "bunny.bsdf.reflectance.value") == "materials.bunny.reflectance");  // an inline bsdf
  CHECK(target(scene, "metal.alpha.value") == "materials.metal.alpha");
  CHECK(target(scene, "bunny.vertex_positions") == "shapes.bunny.vertices");  // Mitsuba 3.9
  CHECK(target(scene, "bunny.positions") == "shapes.bunny.vertices");         // Mitsuba 3.10
  CHECK(target(scene, "statue.vertex_normals") == "shapes.statue.normals");
  CHECK(target(scene, "light.emitter.radiance.value") == "materials.light.emission");
  CHECK(target(scene, "lamp.intensity.value") == "lights.lamp.intensity");
  CHECK(target(scene, "lamp.position") == "lights.lamp.position");
  CHECK(target(scene, "object.interior_medium.sigma_t.value.value").rfind("media.", 0) == 0);
  CHECK(target(scene, "object.interior_medium.sigma_t.value.value").find(".sigma_t") != std::string::npos);
  CHECK(target(scene, "object.interior_medium.albedo.value.value").find(".albedo") != std::string::npos);
  // The emitter's copy of the shared bsdf is not a Mitsuba object: no keys of its own.
  CHECK(target(scene, "light.reflectance.value").empty());
  CHECK(target(scene, "light.bsdf.reflectance.value").empty());
  // The keys name the same values: an alias's slot is its parameter's.
  CHECK(scene.params.find("red.reflectance.value")->slot == scene.params.find("materials.red.reflectance")->slot);
  // Every Mitsuba key is listed once (dray params --mitsuba), with the parameter it names; a
  // mesh's faces and the sensor's clip planes are scene values, listed but not parameters.
  size_t listed = 0;
  std::set<std::string> values;
  for (const auto& [key, name] : scene.params.mitsuba_keys()) {
    if (target(scene, key).empty()) values.insert(key + " " + name);
    else CHECK(target(scene, key) == name);
    listed += key == "red.reflectance.value";
  }
  CHECK(listed == 1);
  CHECK(values == std::set<std::string>{"bunny.faces shapes.bunny.faces", "statue.faces shapes.statue.faces",
                                        "cam.near_clip camera.near_clip", "cam.far_clip camera.far_clip",
                                        "cam.to_world camera.to_world", "cam.x_fov camera.x_fov"});
}

TEST_CASE("A BSDF inside Mitsuba's twosided is its brdf_0, an inline bitmap its slot's data", "[mitsuba]") {
  TempDir t("dray-mitsuba-keys-twosided-");
  t.write("t.obj", kTetrahedron);
  Image texels(2, 2, 3);
  for (float& v : texels.data) v = 0.5f;
  write_image(texels, (t.dir / "t.exr").string());
  const Scene scene = load_scene(t.write("s.xml", scene_xml(R"(
  <bsdf type="twosided" id="paper"><bsdf type="diffuse"><rgb name="reflectance" value="0.6, 0.1, 0.1"/></bsdf></bsdf>
  <shape type="obj" id="a"><string name="filename" value="t.obj"/><ref id="paper"/></shape>
  <shape type="rectangle" id="plane"><bsdf type="twosided"><bsdf type="diffuse">
    <texture type="bitmap" name="reflectance"><string name="filename" value="t.exr"/></texture></bsdf></bsdf></shape>
  <shape type="sphere" id="ball"><bsdf type="diffuse">
    <texture type="bitmap" name="reflectance"><string name="filename" value="t.exr"/></texture></bsdf></shape>)")), {}, false);
  CHECK(target(scene, "paper.brdf_0.reflectance.value") == "materials.paper.reflectance");
  CHECK(target(scene, "paper.reflectance.value").empty());
  CHECK(target(scene, "plane.bsdf.brdf_0.reflectance.data") == "textures.plane.reflectance.data");  // the pytorch tutorial's key
  CHECK(target(scene, "ball.bsdf.reflectance.data") == "textures.ball.reflectance.data");
}

TEST_CASE("A JSON scene answers to Mitsuba's keys by its objects' names", "[mitsuba]") {
  TempDir t("dray-mitsuba-keys-json-");
  const json doc = json::parse(R"({"camera": {"origin": [0, 0, 5], "target": [0, 0, 0], "up": [0, 1, 0], "fov_y": 30,
    "width": 8, "height": 8}, "materials": {"red": {"type": "diffuse", "reflectance": [0.5, 0.1, 0.1]}},
    "shapes": [{"name": "ball", "type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "red"}],
    "lights": [{"name": "sun", "type": "point", "position": [0, 3, 3], "intensity": [5, 5, 5]}]})");
  const Scene scene = load_scene(doc, t.write("s.json", doc.dump()), false);
  CHECK(target(scene, "red.reflectance.value") == "materials.red.reflectance");
  CHECK(target(scene, "sun.intensity.value") == "lights.sun.intensity");
}

TEST_CASE("Properties Mitsuba accepts and dray does not need load as in Mitsuba", "[mitsuba]") {
  TempDir t("dray-mitsuba-unused-");
  std::vector<std::string> warnings;
  // A perspective sensor's focus_distance (read by every projective camera, used by a lens only).
  t.write("t.obj", kTetrahedron);
  const json doc = read_scene_document(t.write("f.xml", keyed_scene()), {}, warnings);
  CHECK(doc["camera"]["type"] == "perspective");
  CHECK(warnings.empty());
  CHECK_FALSE(doc["camera"].contains("focus_distance"));
  // The projective integrators' samples per pixel: 0 turns an estimate off; any other count
  // yields to the render's spp (Mitsuba: overridden by render()'s spp), as dray's defaults do.
  auto render_of = [&](const std::string& integrator) {
    warnings.clear();
    return read_scene_document(t.write("i.xml", with_integrator(integrator)), {}, warnings)["render"];
  };
  json r = render_of(R"(<integrator type="direct_projective"><integer name="sppi" value="0"/><integer name="sppp" value="0"/></integrator>)");
  CHECK(r["indirect_samples"] == 0);  // sppi: edges seen from path vertices and shadow edges
  CHECK(r["shadow_visibility"] == false);
  CHECK(r["primary_visibility"] == false);  // sppp: the camera silhouettes alone
  CHECK_FALSE(r.contains("boundary_samples"));
  r = render_of(R"(<integrator type="prb_projective"><integer name="sppc" value="32"/><integer name="sppp" value="32"/>
                   <integer name="sppi" value="128"/><string name="guiding" value="octree"/></integrator>)");
  CHECK_FALSE(r.contains("indirect_samples"));
  CHECK_FALSE(r.contains("boundary_samples"));
  CHECK(r["boundary_ratio"] == 1.0);  // as many edge samples as pixel samples, Mitsuba's sppp = spp
  CHECK(warnings.empty());
  CHECK_FALSE(render_of(R"(<integrator type="prb"/>)").contains("boundary_ratio"));  // dray's 1/20
  r = render_of(R"(<integrator type="prb_projective"><integer name="sppc" value="0"/></integrator>)");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("sppc 0") != std::string::npos);
  // Mitsuba's depths: its AD integrators' default 6 vertices (dray's 5 bounces), direct_projective
  // always 2 (direct light: 1), its max_depth read and ignored; path's default unlimited.
  CHECK(render_of(R"(<integrator type="prb"/>)")["max_depth"] == 5);
  CHECK(render_of(R"(<integrator type="prb_projective"/>)")["max_depth"] == 5);
  CHECK(render_of(R"(<integrator type="direct_projective"><integer name="max_depth" value="7"/></integrator>)")["max_depth"] == 1);
  CHECK(render_of(R"(<integrator type="path"/>)")["max_depth"] == 1024);
  CHECK(render_of(R"(<integrator type="prb"><integer name="max_depth" value="3"/></integrator>)")["max_depth"] == 2);
  // Only the projective integrators take them.
  const std::string bad = with_integrator(R"(<integrator type="path"><integer name="sppi" value="0"/></integrator>)");
  CHECK(load_error(t.write("b.xml", bad)).find("unsupported integrator property") != std::string::npos);
}
