#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <filesystem>
#include <fstream>

#include "tests/temp_dir.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kScenes = std::string(DRAY_SOURCE_DIR) + "/scenes";

json minimal() {
  return json::parse(R"({
    "camera": { "origin": [0, 1, 4], "target": [0, 1, 0] },
    "materials": { "white": { "type": "diffuse", "albedo": [0.8, 0.8, 0.8] } },
    "shapes": [ { "name": "ball", "type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white" } ]
  })");
}

std::string error_of(const json& doc) {
  try {
    load_scene(doc, "scene.json");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

struct TempDir : dray::testing::TempDir {
  TempDir() : dray::testing::TempDir("dray_loader_test_") {}
};

}  // namespace

TEST_CASE("every example scene loads", "[loader]") {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(kScenes)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || name.ends_with(".job.json")) continue;  // jobs are not scenes
    INFO(entry.path());
    Scene s = load_scene(entry.path().string());
    CHECK(s.bvh.prim_count() > 0);
    CHECK(s.lights.size() > 0);
    ++n;
  }
  CHECK(n >= 7);
}

TEST_CASE("the Cornell box takes its materials and area light from the OBJ", "[loader]") {
  Scene s = load_scene(kScenes + "/cornell-box.json");
  REQUIRE(s.lights.size() == 1);
  const Light& l = s.lights[0];
  REQUIRE(area_emitter(l));
  CHECK(area_emitter(l)->prims.size() == 2);  // one quad, triangulated
  CHECK(area_emitter(l)->area == Approx(130.f * 105.f).epsilon(1e-4));
  auto e = s.params.find("materials.cbox.light.emission");
  REQUIRE(e);
  CHECK(s.params.get_vec3(e->slot) == glm::vec3(20.f));  // Ka 20 -> emission
  auto red = s.params.find("materials.cbox.red.albedo");
  REQUIRE(red);
  CHECK(s.params.get_vec3(red->slot) == glm::vec3(1.f, 0.f, 0.f));
}

TEST_CASE("a mesh can map its OBJ materials to scene materials", "[loader]") {
  json doc = json::parse(R"({
    "camera": { "origin": [278, 273, -800], "target": [278, 273, 0] },
    "materials": { "wall": { "type": "diffuse", "albedo": 0.5 },
                   "lamp": { "type": "diffuse", "albedo": 0, "emission": [17, 12, 4] } },
    "shapes": [ { "name": "box", "type": "mesh", "file": "models/cornell_box.obj",
                  "materials": { "white": "wall", "light": "lamp" } } ] })");
  Scene s = load_scene(doc, kScenes + "/mapped.json");
  REQUIRE(s.lights.size() == 1);
  CHECK(s.params.get_vec3(s.params.find("materials.lamp.emission")->slot) == glm::vec3(17, 12, 4));
  CHECK_FALSE(s.params.find("materials.box.light.emission"));  // mapped: not created from the OBJ
  CHECK(s.params.find("materials.box.red.albedo"));           // unmapped: from the OBJ
  doc["shapes"][0]["materials"]["whyte"] = "wall";
  CHECK_THROWS_WITH(load_scene(doc, kScenes + "/mapped.json"),
                    Catch::Contains("/shapes/0 (box)/materials/whyte") && Catch::Contains("has no material named \"whyte\""));
  doc["shapes"][0]["materials"] = {{"white", "nosuch"}};
  CHECK_THROWS_WITH(load_scene(doc, kScenes + "/mapped.json"), Catch::Contains("/shapes/0 (box)/materials/white: no material named"));
}

TEST_CASE("parameters have stable dotted names", "[loader]") {
  Scene s = load_scene(kScenes + "/spheres.json");
  for (const char* name : {"camera.origin", "camera.fov_y", "materials.red.albedo", "materials.steel.tint",
                           "materials.lamp.emission", "shapes.left.center", "shapes.left.radius",
                           "shapes.floor.edge_u", "lights.key.position", "lights.key.intensity",
                           "lights.sky.radiance"}) {
    INFO(name);
    CHECK(s.params.find(name));
  }
  CHECK(s.params.get(s.params.find("shapes.mid.radius")->slot) == 1.f);
  // Which parameters need the geometry rebuilt.
  for (const char* name : {"shapes.left.center[1]", "shapes.left.radius", "shapes.floor.edge_v[2]"})
    CHECK(s.moves_geometry(resolve_scalars(s.params, {name})[0].slot));
  for (const char* name : {"materials.red.albedo[0]", "lights.key.position[1]", "camera.fov_y", "lights.sky.radiance[2]"})
    CHECK_FALSE(s.moves_geometry(resolve_scalars(s.params, {name})[0].slot));
  Scene b = load_scene(kScenes + "/bunny.json");
  CHECK(b.moves_geometry(resolve_scalars(b.params, {"shapes.bunny.rotate_y"})[0].slot));
  CHECK(b.moves_geometry(resolve_scalars(b.params, {"shapes.bunny.translate[2]"})[0].slot));
  CHECK(b.params.get(b.params.find("shapes.bunny.rotate_y")->slot) == 20.f);
  CHECK(b.params.find("shapes.bunny.translate"));
}

TEST_CASE("--set overrides any value before validation", "[loader]") {
  json doc = minimal();
  apply_override(doc, "render.spp=4");
  apply_override(doc, "shapes.ball.radius=2.5");
  apply_override(doc, "shapes.0.center[1]=3");
  apply_override(doc, "materials.white.albedo=[0.1, 0.2, 0.3]");
  apply_override(doc, "camera.width=64");
  Scene s = load_scene(doc, "scene.json");
  CHECK(s.render.spp == 4);
  CHECK(s.own_camera().width == 64);
  CHECK(s.params.get(s.params.find("shapes.ball.radius")->slot) == 2.5f);
  CHECK(s.params.get_vec3(s.params.find("shapes.ball.center")->slot) == glm::vec3(0, 3, 0));
  CHECK(s.params.get_vec3(s.params.find("materials.white.albedo")->slot) == glm::vec3(0.1f, 0.2f, 0.3f));
  CHECK_THROWS_WITH(apply_override(doc, "render.spp"), Catch::Contains("expected KEY=VALUE"));
  // Only a bare word is a string: malformed JSON is named as such.
  CHECK_THROWS_WITH(apply_override(doc, "materials.white.albedo=[0.2,0.3"),
                    Catch::StartsWith("--set materials.white.albedo=[0.2,0.3: the value is not valid JSON ("));
  CHECK_THROWS_WITH(apply_override(doc, "shapes.ball.radius=1e400"), Catch::Contains("the value is not valid JSON"));
  apply_override(doc, "shapes.ball.material=white");  // a bare word
  CHECK(doc["shapes"][0]["material"] == "white");
  // Parameter names work as keys: shapes.NAME.translate is the transform's.
  json mesh_doc = minimal();
  apply_override(mesh_doc, "shapes=[{\"type\": \"mesh\", \"file\": \"" + kScenes + "/models/cornell_box.obj\"}]");
  apply_override(mesh_doc, "shapes.shape0.translate=[0, 0, 1]");
  CHECK(mesh_doc["shapes"][0]["transform"]["translate"] == json({0, 0, 1}));
  CHECK(scene_key("shapes.bunny.rotate_y") == "shapes.bunny.transform.rotate_y");
  Scene meshes = load_scene(mesh_doc, "scene.json");
  CHECK(resolve_scalars(meshes.params, {"shapes.shape0.transform.translate[2]"})[0].slot ==
        resolve_scalars(meshes.params, {"shapes.shape0.translate[2]"})[0].slot);
  CHECK_THROWS_WITH(apply_override(doc, "shapes.nosuch.radius=1"), Catch::Contains("no element \"nosuch\""));
  // An override that breaks the scene is reported like a broken file.
  apply_override(doc, "render.spp=-3");
  CHECK_THAT(error_of(doc), Catch::Equals("scene.json: /render/spp: must be in [1, 1048576], got -3"));
}

TEST_CASE("broken scenes are rejected with the file and JSON path", "[loader]") {
  struct Case {
    const char* assignment;  // applied to a valid scene
    const char* message;
  };
  const Case cases[] = {
      {"shapes.ball.radius=-1", "scene.json: /shapes/0 (ball)/radius: must be > 0, got -1"},
      {"shapes.ball.radious=1", "scene.json: /shapes/0 (ball)/radious: unknown key"},
      {"shapes.ball.material=\"chalk\"", "scene.json: /shapes/0 (ball)/material: no material named \"chalk\""},
      {"shapes.ball.type=\"torus\"", "scene.json: /shapes/0 (ball)/type: unknown shape type \"torus\""},
      {"shapes.ball.center=[0, 1]", "scene.json: /shapes/0 (ball)/center: must be an array of 3 numbers"},
      {"shapes.ball.center=[0, \"a\", 1]", "scene.json: /shapes/0 (ball)/center/1: must be a number, got string"},
      {"materials.white.albedo=[0.5, 1.5, 0.5]", "scene.json: /materials/white/albedo: must be <= 1, got 1.5"},
      {"materials.white.type=\"glass\"", "scene.json: /materials/white/type: unknown material type \"glass\""},
      {"camera.fov_y=0", "scene.json: /camera/fov_y: must be > 0, got 0"},
      {"camera.width=0", "scene.json: /camera/width: must be in [1, 1048576], got 0"},
      {"camera.target=[0, 1, 4]", "scene.json: /camera/target: must differ from /camera/origin"},
      {"camera.up=[0, 0, 1]", "scene.json: /camera/up: must not be parallel"},
      {"render.max_depth=1.5", "scene.json: /render/max_depth: must be an integer, got number"},
      {"render.samples=4", "scene.json: /render/samples: unknown key"},
      {"colour=1", "scene.json: /colour: unknown key"},
      {"lights=[{\"type\": \"laser\"}]", "scene.json: /lights/0/type: unknown light type \"laser\""},
      {"lights=[{\"type\": \"point\", \"position\": [0, 1]}]", "scene.json: /lights/0/position: must be an array of 3 numbers"},
      {"lights=[{\"type\": \"point\", \"position\": [0, 1, 0], \"intensity\": -2}]",
       "scene.json: /lights/0/intensity: must be >= 0, got -2"},
      {"shapes=[{\"type\": \"quad\", \"corner\": [0,0,0], \"edge_u\": [1,0,0], \"edge_v\": [2,0,0], \"material\": \"white\"}]",
       "scene.json: /shapes/0/edge_v: must not be parallel to edge_u"},
      {"shapes=[{\"type\": \"mesh\", \"file\": \"nope.obj\", \"material\": \"white\"}]",
       "scene.json: /shapes/0/file: cannot open \"nope.obj\": no such file"},
      {"shapes=4", "scene.json: /shapes: must be an array, got number"},
      {"shapes=[{\"type\": \"sphere\", \"name\": \"a\", \"center\": [0,0,0], \"radius\": 1, \"material\": \"white\"},"
       "{\"type\": \"sphere\", \"name\": \"a\", \"center\": [0,0,0], \"radius\": 1, \"material\": \"white\"}]",
       "scene.json: /shapes/1/name: duplicate shape name \"a\""},
      {"lights=[{\"type\": \"environment\", \"radiance\": 1}, {\"type\": \"environment\", \"radiance\": 1}]",
       "scene.json: /lights/1: only one environment light is allowed"},
      // A seed beyond long's range is shown as given, not wrapped to -1.
      {"render.seed=18446744073709551615", "scene.json: /render/seed: must be in [0, 9223372036854775807], got 18446744073709551615"},
      // An origin whose distance to the target overflows float: the origin is named, not /camera/up.
      {"camera.origin=[0, 2, 3e38]", "scene.json: /camera/origin: is too far from /camera/target"},
      {"camera.origin=[0, 5, 0]", "scene.json: /camera/origin: the viewing direction is vertical: give /camera/up"},
      {"materials.white.two_sided=true", "scene.json: /materials/white/two_sided: applies to emission"},
      {"render.crop=[0, 0, 8]", "scene.json: /render/crop: must be [x0, y0, x1, y1], got [0,0,8]"},
      {"render.crop=[4, 0, 4, 8]", "scene.json: /render/crop: needs x0 < x1 and y0 < y1"},
      {"render.crop=[0, 0, 9999, 8]", "scene.json: /render/crop/2: must be in [1, "},
      {"shapes=[{\"type\": \"disk\", \"material\": \"white\", \"flip_normals\": 1}]",
       "scene.json: /shapes/0/flip_normals: must be true or false, got number"},
      {"shapes=[{\"type\": \"disk\", \"material\": \"white\", \"file\": \"a.obj\"}]", "scene.json: /shapes/0/file: unknown key"},

  };
  for (const Case& c : cases) {
    json doc = minimal();
    apply_override(doc, c.assignment);
    INFO(c.assignment);
    CHECK_THAT(error_of(doc), Catch::StartsWith(c.message));
  }
  json doc = minimal();
  doc.erase("camera");
  CHECK_THAT(error_of(doc), Catch::Equals("scene.json: /camera: required key is missing"));
}

TEST_CASE("file-level errors name the file", "[loader]") {
  TempDir tmp;
  CHECK_THROWS_WITH(load_scene((tmp.dir / "missing.json").string()), Catch::EndsWith("missing.json: cannot open: no such file"));
  CHECK_THROWS_WITH(load_scene(tmp.dir.string()), Catch::Contains("is a directory"));
  std::string bad = tmp.write("bad.json", "{\n  \"camera\": {\n    \"origin\": [0, 1,, 4]\n");
  CHECK_THROWS_WITH(load_scene(bad), Catch::Contains("bad.json: parse error at line 3"));
}

TEST_CASE("OBJ problems name the OBJ file", "[loader]") {
  TempDir tmp;
  auto scene_with = [&](const std::string& obj_text) {
    tmp.write("m.obj", obj_text);
    json doc = minimal();
    doc["shapes"] = json::array({{{"type", "mesh"}, {"file", "m.obj"}, {"material", "white"}}});
    std::ofstream(tmp.dir / "s.json") << doc.dump();
    try {
      load_scene((tmp.dir / "s.json").string());
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(scene_with("v 0 0 0\nv 1 0 0\nv 0 1 0\n# c\nf 1 2 3\nf 1 2 9\n"),
             Catch::EndsWith("m.obj: line 6: vertex index 9 is out of range (3 vertices defined before it)"));
  CHECK_THAT(scene_with("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/2 -4/3\n"),
             Catch::EndsWith("m.obj: line 4: vertex index -4 is out of range (3 vertices defined before it)"));
  CHECK_THAT(scene_with("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"), Catch::Contains("m.obj") && Catch::Contains("line 4"));
  CHECK_THAT(scene_with("v 0 0 0\nv 1 0 0\n"), Catch::Contains("m.obj: has no faces"));
  CHECK_THAT(scene_with("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), Catch::Equals("(no error)"));
  // Without a material in the scene, the OBJ must bring its own.
  tmp.write("m.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  json doc = minimal();
  doc["shapes"] = json::array({{{"type", "mesh"}, {"file", "m.obj"}}});
  std::ofstream(tmp.dir / "s.json") << doc.dump();
  CHECK_THROWS_WITH(load_scene((tmp.dir / "s.json").string()),
                    Catch::Contains("/shapes/0/material: required") && Catch::Contains("defines no materials"));
}

TEST_CASE("mesh files: other formats are named, a missing .mtl is reported with its OBJ line", "[loader]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("dray-loader-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "m.stl") << "solid m\nendsolid m\n";
  std::ofstream(dir / "m.obj") << "# a triangle\nmtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n";
  json doc = minimal();
  apply_override(doc, "shapes=[{\"name\": \"m\", \"type\": \"mesh\", \"file\": \"m.stl\", \"material\": \"white\"}]");
  const std::string scene = (dir / "scene.json").string();
  CHECK_THROWS_WITH(load_scene(doc, scene), Catch::Contains("/shapes/0 (m)/file: ") &&
                                                Catch::Contains("\".stl\" meshes are not supported; supported mesh "
                                                                "formats: Wavefront OBJ (.obj), PLY (.ply), Mitsuba serialized (.serialized), glTF 2.0 (.gltf, .glb)"));
  // With the scene's material the .mtl is not needed: a warning.
  apply_override(doc, "shapes.m.file=m.obj");
  Scene s = load_scene(doc, scene);
  REQUIRE(s.warnings.size() == 2);  // and: no light
  CHECK_THAT(s.warnings[0], Catch::Contains("m.obj: line 2: material library \"gone.mtl\" not found"));
  // Without it the OBJ's materials are needed: an error naming the scene shape and the OBJ line.
  apply_override(doc, "shapes.m.material=null");
  CHECK_THROWS_WITH(load_scene(doc, scene), Catch::StartsWith(scene + ": /shapes/0 (m)/file: ") &&
                                                Catch::Contains("m.obj: line 2: material library \"gone.mtl\" not found"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a scene without any light warns; one with a light does not", "[loader]") {
  json doc = minimal();  // no lights
  Scene dark = load_scene(doc, "scene.json");
  REQUIRE(dark.warnings.size() == 1);
  CHECK_THAT(dark.warnings[0], Catch::Contains("no light and no emissive material"));
  apply_override(doc, "materials.white.emission=[1, 1, 1]");
  CHECK(load_scene(doc, "scene.json").warnings.empty());
}

TEST_CASE("dray params needs no BVH: loading can skip it", "[loader]") {
  Scene s = load_scene(kScenes + "/bunny.json", {}, false);
  CHECK(s.bvh.prim_count() == 0);
  CHECK(s.params.find("shapes.bunny.translate").has_value());
}

TEST_CASE("materials take Mitsuba's names; dray's first names stay aliases", "[loader]") {
  // The parameter is listed under Mitsuba's name and found under both.
  Scene s = load_scene(kScenes + "/spheres.json");
  std::vector<std::string> listed;
  for (const auto& e : s.params.entries()) listed.push_back(e.name);
  CHECK(std::count(listed.begin(), listed.end(), "materials.red.reflectance") == 1);
  CHECK(std::count(listed.begin(), listed.end(), "materials.steel.specular_reflectance") == 1);
  CHECK(std::count(listed.begin(), listed.end(), "materials.red.albedo") == 0);
  CHECK(s.params.find("materials.red.albedo")->slot == s.params.find("materials.red.reflectance")->slot);
  CHECK(s.params.find("materials.steel.tint")->slot == s.params.find("materials.steel.specular_reflectance")->slot);
  // A name resolves to the spelling asked for (derivative files and job columns keep it).
  CHECK(resolve_scalars(s.params, {"materials.red.albedo[2]"})[0].name == "materials.red.albedo[2]");
  CHECK(resolve_scalars(s.params, {"materials.red.albedo[2]"})[0].slot ==
        resolve_scalars(s.params, {"materials.red.reflectance[2]"})[0].slot);
  // Either key in the document; both is an error naming the pair; Mitsuba's default 0.5.
  json doc = minimal();
  doc["materials"]["white"] = {{"type", "diffuse"}, {"reflectance", {0.2, 0.3, 0.4}}};
  doc["materials"]["chrome"] = {{"type", "mirror"}, {"specular_reflectance", {0.9, 0.8, 0.7}}};
  doc["materials"]["grey"] = {{"type", "diffuse"}};
  Scene m = load_scene(doc, "scene.json");
  CHECK(m.params.get_vec3(m.params.find("materials.white.albedo")->slot) == glm::vec3(0.2f, 0.3f, 0.4f));
  CHECK(m.params.get_vec3(m.params.find("materials.chrome.tint")->slot) == glm::vec3(0.9f, 0.8f, 0.7f));
  CHECK(m.params.get_vec3(m.params.find("materials.grey.reflectance")->slot) == glm::vec3(0.5f));
  doc["materials"]["white"]["albedo"] = {0.1, 0.1, 0.1};
  CHECK_THAT(error_of(doc), Catch::Contains("/materials/white/albedo: is another name for \"reflectance\": give one of them"));
  // --set under either name writes the key the document has.
  json old = minimal();
  apply_override(old, "materials.white.reflectance=[0.3, 0.3, 0.3]");
  CHECK(!old["materials"]["white"].contains("reflectance"));
  Scene o = load_scene(old, "scene.json");
  CHECK(o.params.get_vec3(o.params.find("materials.white.reflectance")->slot) == glm::vec3(0.3f));
}

TEST_CASE("keys Mitsuba defaults may be left out, with Mitsuba's defaults", "[loader]") {
  // A camera at the origin looking along +z, a unit sphere there, unit lights: as Mitsuba's sensor,
  // sphere, point, spot, directional and constant emitters without their properties.
  const json doc = json::parse(R"({
    "camera": {},
    "materials": { "m": { "type": "diffuse" } },
    "shapes": [ { "name": "ball", "type": "sphere", "material": "m" }, { "name": "card", "type": "quad", "material": "m" } ],
    "lights": [ { "name": "p", "type": "point" }, { "name": "s", "type": "spot" }, { "name": "d", "type": "directional" },
                { "name": "sky", "type": "environment" } ]
  })");
  const Scene s = load_scene(doc, "scene.json", false);
  auto v = [&](const char* name) { return s.params.get_vec3(s.params.find(name)->slot); };
  CHECK(v("camera.origin") == glm::vec3(0.f));
  CHECK(v("camera.target") == glm::vec3(0, 0, 1));
  CHECK(v("shapes.ball.center") == glm::vec3(0.f));
  CHECK(s.params.get(s.params.find("shapes.ball.radius")->slot) == 1.f);
  CHECK(v("shapes.card.corner") == glm::vec3(-1, -1, 0));
  CHECK(v("shapes.card.edge_u") == glm::vec3(2, 0, 0));
  CHECK(v("lights.p.position") == glm::vec3(0.f));
  CHECK(v("lights.p.intensity") == glm::vec3(1.f));
  CHECK(v("lights.s.target") == glm::vec3(0, 0, 1));
  CHECK(v("lights.d.direction") == glm::vec3(0, 0, 1));
  CHECK(v("lights.sky.radiance") == glm::vec3(1.f));
  // An empty scene: a camera alone.
  CHECK(load_scene(json::parse(R"({ "camera": {} })"), "empty.json", false).shapes.empty());
}

TEST_CASE("JSON and Mitsuba XML films have the same size limits", "[loader]") {
  json doc = minimal();
  doc["camera"]["width"] = 2000000;
  CHECK(error_of(doc) == "scene.json: /camera/width: must be in [1, 1048576], got 2000000");
  TempDir t;
  const std::string xml = t.write("big.xml", R"(<scene version="3.0.0"><sensor type="perspective"><film type="hdrfilm">
    <integer name="width" value="2000000"/></film></sensor></scene>)");
  std::string e;
  try {
    load_scene(xml, {}, false);
  } catch (const LoadError& err) {
    e = err.what();
  }
  CHECK_THAT(e, Catch::Contains("big.xml:2:5: <integer name=\"width\">: must be in [1, 1048576], got 2000000"));
  t.write("big.xml", R"(<scene version="3.0.0"><sensor type="perspective"><film type="hdrfilm">
    <integer name="width" value="100000"/><integer name="height" value="1"/></film></sensor></scene>)");
  CHECK(load_scene(xml, {}, false).own_camera().width == 100000);  // beyond XML's old 65536
}
