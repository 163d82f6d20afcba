// Mitsuba 3 XML scenes (renderer/io/mitsuba/xml.h) against the equivalent dray JSON scenes:
// bitwise the same images; $name, <default> and -D; includes, refs and aliases; version-1 files;
// spectra in RGB; every refusal names the file, line and element (the sensors, film and filters:
// mitsuba_sensors_test).
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include <glm/geometric.hpp>

#include "../temp_dir.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

TEST_CASE("a Mitsuba scene renders bitwise as its JSON equivalent", "[mitsuba]") {
  TempDir t("dray-mitsuba-");
  t.write("tet.obj", kTetrahedron);
  const std::string xml = t.write("scene.xml", scene_xml(R"(
  <default name="red" value="0.7"/>
  <integrator type="path"><integer name="max_depth" value="5"/></integrator>
  <bsdf type="diffuse" id="white"><rgb name="reflectance" value="0.8"/></bsdf>
  <bsdf type="twosided" id="paper"><bsdf type="diffuse"><rgb name="reflectance" value="$red, 0.2, 0.1"/></bsdf></bsdf>
  <shape type="rectangle" id="floor">
    <transform name="to_world"><rotate x="1" angle="-90"/><scale value="4"/></transform>
    <ref id="white"/>
  </shape>
  <shape type="sphere" id="ball">
    <transform name="to_world"><scale value="0.5"/><translate x="-1" y="0.5"/></transform>
    <bsdf type="roughconductor"><string name="material" value="Au"/><float name="alpha" value="0.2"/></bsdf>
  </shape>
  <shape type="obj" id="tet">
    <string name="filename" value="tet.obj"/>
    <transform name="to_world"><rotate y="1" angle="90"/><translate x="1"/></transform>
    <ref id="paper"/>
  </shape>
  <shape type="rectangle" id="lamp">
    <transform name="to_world"><rotate x="1" angle="90"/><translate y="3"/></transform>
    <emitter type="area"><rgb name="radiance" value="6"/></emitter>
  </shape>
  <emitter type="point"><point name="position" x="2" y="3" z="2"/><rgb name="intensity" value="8"/></emitter>
  <emitter type="constant"><rgb name="radiance" value="0.1"/></emitter>
)"));
  const json doc = json::parse(R"({
    "camera": {"origin": [0, 1, 6], "target": [0, 1, 0], "up": [0, 1, 0], "fov_y": 40, "width": 24, "height": 16,
               "near_clip": 0.01, "far_clip": 10000},
    "render": {"spp": 2, "max_depth": 4, "rr_depth": 4},
    "materials": {
      "white": {"type": "diffuse", "reflectance": [0.8, 0.8, 0.8]},
      "paper": {"type": "twosided", "bsdf": {"type": "diffuse", "reflectance": [0.7, 0.2, 0.1]}},
      "ball": {"type": "roughconductor", "material": "Au", "alpha": 0.2},
      "lamp": {"type": "diffuse", "reflectance": [0.5, 0.5, 0.5], "emission": [6, 6, 6]}
    },
    "shapes": [
      {"name": "floor", "type": "quad", "corner": [-4, 0, 4], "edge_u": [8, 0, 0], "edge_v": [0, 0, -8], "material": "white"},
      {"name": "ball", "type": "sphere", "center": [-1, 0.5, 0], "radius": 0.5, "material": "ball"},
      {"name": "tet", "type": "mesh", "file": "tet.obj", "material": "paper",
       "transform": {"matrix": [0, 0, 1, 1, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 1]}},
      {"name": "lamp", "type": "quad", "corner": [-1, 3, -1], "edge_u": [2, 0, 0], "edge_v": [0, 0, 2], "material": "lamp"}
    ],
    "lights": [
      {"name": "light0", "type": "point", "position": [2, 3, 2], "intensity": [8, 8, 8]},
      {"name": "light1", "type": "environment", "radiance": [0.1, 0.1, 0.1]}
    ]})");
  const Scene from_xml = load_scene(xml);
  const Scene from_json = load_scene(doc, t.dir / "scene.json");
  const Image a = render(from_xml), b = render(from_json);
  double sum = 0;
  for (float v : a.data) sum += v;
  CHECK(sum > 0.0);  // something is lit
  CHECK(a.data == b.data);
  // The same parameters, under the same names.
  REQUIRE(from_xml.params.entries().size() == from_json.params.entries().size());
  for (size_t i = 0; i < from_xml.params.entries().size(); ++i)
    CHECK(from_xml.params.entries()[i].name == from_json.params.entries()[i].name);
  CHECK(from_xml.params.values() == from_json.params.values());

  SECTION("the converted document (dray convert) renders bitwise the same") {
    std::vector<std::string> warnings;
    const json converted = read_scene_document(xml, {}, warnings);
    CHECK(warnings.empty());  // a box filter was given
    CHECK(render(load_scene(converted, xml)).data == a.data);
  }
  SECTION("-D overrides a <default>") {
    const Scene d = load_scene(xml, {}, true, {{"red", "0.2"}});
    const auto red = d.params.find("materials.paper.reflectance");
    REQUIRE(red);
    CHECK(d.params.get(red->slot) == 0.2f);
    CHECK(render(d).data != a.data);
  }
}

TEST_CASE("a Mitsuba disk renders bitwise as dray's disk shape", "[mitsuba]") {
  TempDir t("dray-mitsuba-d-");
  const std::string xml = t.write("scene.xml", scene_xml(R"(
  <shape type="rectangle"><transform name="to_world"><rotate x="1" angle="-90"/><scale value="4"/></transform></shape>
  <shape type="disk" id="lamp">
    <transform name="to_world"><scale value="0.5"/><rotate x="1" angle="90"/><translate y="2"/></transform>
    <emitter type="area"><rgb name="radiance" value="4"/></emitter>
  </shape>
  <shape type="disk" id="coaster"><boolean name="flip_normals" value="true"/>
    <transform name="to_world"><rotate x="1" angle="90"/><translate x="1" y="0.01"/></transform></shape>
)"));
  const json doc = json::parse(R"({
    "camera": {"origin": [0, 1, 6], "target": [0, 1, 0], "up": [0, 1, 0], "fov_y": 40, "width": 24, "height": 16,
               "near_clip": 0.01, "far_clip": 10000},
    "render": {"spp": 2, "max_depth": 1024, "rr_depth": 4, "filter": "box"},
    "materials": {
      "default": {"type": "diffuse", "reflectance": [0.5, 0.5, 0.5]},
      "lamp": {"type": "diffuse", "reflectance": [0.5, 0.5, 0.5], "emission": [4, 4, 4]}
    },
    "shapes": [
      {"name": "shape0", "type": "quad", "corner": [-4, 0, 4], "edge_u": [8, 0, 0], "edge_v": [0, 0, -8], "material": "default"},
      {"name": "lamp", "type": "disk", "material": "lamp", "transform": {"matrix": [0.5, 0, 0, 0, 0, 0, -0.5, 2, 0, 0.5, 0, 0, 0, 0, 0, 1]}},
      {"name": "coaster", "type": "disk", "material": "default", "flip_normals": true,
       "transform": {"matrix": [1, 0, 0, 1, 0, 0, -1, 0.01, 0, 1, 0, 0, 0, 0, 0, 1]}}
    ]})");
  const Scene from_xml = load_scene(xml), from_json = load_scene(doc, t.dir / "scene.json");
  const Image a = render(from_xml);
  double sum = 0;
  for (float v : a.data) sum += v;
  CHECK(sum > 0.0);  // the disk lights the floor
  CHECK(a.data == render(from_json).data);
}

TEST_CASE("Mitsuba structure: includes, aliases, refs, version-1 names", "[mitsuba]") {
  TempDir t("dray-mitsuba-s-");
  t.write("materials.xml", R"(<scene version="3.0.0">
    <bsdf type="diffuse" id="grey"><rgb name="reflectance" value="0.4"/></bsdf>
    <alias id="grey" as="stone"/>
  </scene>)");
  const std::string xml = t.write("scene.xml", scene_xml(R"(
  <include filename="materials.xml"/>
  <shape type="sphere" id="a"><float name="radius" value="0.5"/><ref id="stone"/></shape>
  <shape type="cube" id="box"><transform name="to_world"><translate x="2"/></transform><ref id="grey"/></shape>
  <emitter type="constant"/>
)"));
  const Scene s = load_scene(xml, {}, false);
  REQUIRE(s.shapes.size() == 2);  // the sphere and the cube (Mitsuba's cube mesh)
  CHECK(s.materials.size() == 1);
  CHECK(s.params.get(s.params.find("materials.grey.reflectance")->slot) == 0.4f);
  // The cube's faces face outward: each triangle's normal points away from the cube's centre.
  const Mesh& cube = s.meshes.at(0);
  for (size_t f = 0; f < cube.indices.size() / 3; ++f) {
    const glm::vec3 a = cube.object_positions[cube.indices[3 * f]], b = cube.object_positions[cube.indices[3 * f + 1]],
                    c = cube.object_positions[cube.indices[3 * f + 2]];  // its to_world baked in
    CHECK(glm::dot(glm::cross(b - a, c - a), (a + b + c) / 3.f - glm::vec3(2, 0, 0)) > 0.f);
  }

  // Materials named by ids never collide with the ones dray names (a shape's inline BSDF, the
  // default diffuse 0.5 of a shape without one).
  const std::string names = t.write("names.xml", scene_xml(R"(
  <bsdf type="diffuse" id="default"><rgb name="reflectance" value="0.9"/></bsdf>
  <bsdf type="diffuse" id="shape0"><rgb name="reflectance" value="0.1"/></bsdf>
  <shape type="sphere"><bsdf type="diffuse"><rgb name="reflectance" value="0.3"/></bsdf></shape>
  <shape type="sphere" id="plain"><point name="center" x="3"/></shape>
  <emitter type="constant"/>
)"));
  std::vector<std::string> w;
  const json nd = read_scene_document(names, {}, w);
  CHECK(nd["materials"]["default"]["reflectance"][0] == 0.9);
  CHECK(nd["materials"]["shape0"]["reflectance"][0] == 0.1);
  CHECK(nd["shapes"][0]["material"] == "shape0_");
  CHECK(nd["materials"]["shape0_"]["reflectance"][0] == 0.3);
  CHECK(nd["shapes"][1]["material"] == "default_");
  CHECK(nd["materials"]["default_"]["reflectance"][0] == 0.5);

  // A version-0.6 file: camelCase names and lookAt.
  const std::string old = t.write("old.xml", R"(<scene version="0.6.0">
    <integrator type="path"><integer name="maxDepth" value="3"/></integrator>
    <sensor type="perspective"><float name="fov" value="30"/><string name="fovAxis" value="y"/>
      <transform name="toWorld"><lookAt origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform>
      <film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="8"/></film></sensor>
    <shape type="sphere"><bsdf type="dielectric"><float name="intIOR" value="1.33"/></bsdf></shape>
    <emitter type="constant"/>
  </scene>)");
  std::vector<std::string> warnings;
  const json doc = read_scene_document(old, {}, warnings);
  CHECK(doc["render"]["max_depth"] == 2);
  CHECK(doc["materials"]["shape0"]["int_ior"] == 1.33);
  CHECK(doc["camera"]["fov_y"].get<double>() == Approx(30));
  CHECK(warnings.empty());
  CHECK(doc["render"]["filter"] == "gaussian");  // no rfilter: Mitsuba's default
}

TEST_CASE("Mitsuba spectra in RGB: constants, wavelength:value pairs and .spd files, emitted or reflected", "[mitsuba]") {
  TempDir t("dray-mitsuba-sp-");
  // The colour a property becomes: in a diffuse BSDF or as a constant emitter's radiance.
  auto colour = [&](const std::string& spectrum, bool emitted) {
    const std::string body = emitted ? "<emitter type=\"constant\">" + spectrum + "</emitter><shape type=\"sphere\"/>"
                                     : "<shape type=\"sphere\"><bsdf type=\"diffuse\">" + spectrum + "</bsdf></shape>";
    std::vector<std::string> warnings;
    const json doc = read_scene_document(t.write("s.xml", scene_xml(body)), {}, warnings);
    const json c = emitted ? doc["lights"][0]["radiance"] : doc["materials"]["shape0"]["reflectance"];
    return glm::dvec3(c[0].get<double>(), c[1].get<double>(), c[2].get<double>());
  };
  // A constant: as it is when reflected; emitted, Mitsuba's sRGB of XYZ (1, 1, 1) times it.
  CHECK(colour("<spectrum name=\"reflectance\" value=\"0.3\"/>", false) == glm::dvec3(0.3));
  const glm::dvec3 e = colour("<spectrum name=\"radiance\" value=\"2\"/>", true);
  CHECK(e.x == Approx(2 * (3.240479 - 1.537150 - 0.498535)));
  CHECK(e.y == Approx(2 * (-0.969256 + 1.875991 + 0.041556)));
  CHECK(e.z == Approx(2 * (0.055648 - 0.204043 + 1.057311)));
  // A flat reflectance under D65 stays grey (to Mitsuba's D65 normalisation, 0.2%).
  const glm::dvec3 r = colour("<spectrum name=\"reflectance\" value=\"360:0.5, 830:0.5\"/>", false);
  for (int c = 0; c < 3; ++c) CHECK(r[c] == Approx(0.5).epsilon(3e-3));
  // A flat emitted spectrum is XYZ (1, 1, 1): the constant's colour, to the table's ∫x̄, ∫z̄ (0.1%).
  const glm::dvec3 f = colour("<spectrum name=\"radiance\" value=\"360:1, 600:1, 830:1\"/>", true);
  for (int c = 0; c < 3; ++c) CHECK(f[c] == Approx(e[c] / 2).epsilon(2e-3));
  // Red light: more red than green or blue; a reflectance is clamped to [0, 1].
  const glm::dvec3 red = colour("<spectrum name=\"radiance\" value=\"600:0, 610:5, 650:5, 660:0\"/>", true);
  CHECK(red.x > 4 * red.y);
  CHECK(red.z == 0.0);  // negative blue clamped to 0
  CHECK(colour("<spectrum name=\"reflectance\" value=\"400:3, 700:3\"/>", false) == glm::dvec3(1.0));
  // A .spd file (wavelength value per line, # comments) reads as the inline pairs.
  t.write("grey.spd", "# a flat spectrum\n360 0.5\n\n830 0.5  # end\n");
  CHECK(colour("<spectrum name=\"reflectance\" filename=\"grey.spd\"/>", false) == r);

  auto error = [&](const std::string& spectrum) {
    return load_error(t.write("e.xml", scene_xml("<shape type=\"sphere\"><bsdf type=\"diffuse\">" + spectrum + "</bsdf></shape>")));
  };
  CHECK(error("<spectrum name=\"reflectance\" value=\"500:1\"/>").find("needs at least two wavelength:value pairs") != std::string::npos);
  CHECK(error("<spectrum name=\"reflectance\" value=\"600:1, 500:1\"/>").find("wavelengths must increase") != std::string::npos);
  CHECK(error("<spectrum name=\"reflectance\" value=\"500:1:2, 600:1\"/>").find("\"500:1:2\" is not a wavelength:value pair") != std::string::npos);
  CHECK(error("<spectrum name=\"reflectance\" value=\"1, 2\"/>").find("one number or wavelength:value pairs") != std::string::npos);
  CHECK(error("<spectrum name=\"reflectance\" filename=\"none.spd\"/>").find("cannot open the spectrum file") != std::string::npos);
  t.write("bad.spd", "400 0.5\n500\n");
  CHECK(error("<spectrum name=\"reflectance\" filename=\"bad.spd\"/>").find("bad.spd: line 2: expected \"wavelength value\"") !=
        std::string::npos);
}

TEST_CASE("Mitsuba scenes that dray cannot render are refused with file, line and element", "[mitsuba]") {
  TempDir t("dray-mitsuba-e-");
  struct Case {
    std::string body, message;
  };
  const Case cases[] = {
      {"<shape type=\"ellipsoids\"/>", "scene.xml:9:1: <shape type=\"ellipsoids\">: unsupported shape type"},
      {"<shape type=\"bsplinecurve\"/>", "scene.xml:9:1: <shape type=\"bsplinecurve\">: needs a filename"},
      {"<shape type=\"sdfgrid\"/>", "scene.xml:9:1: <shape type=\"sdfgrid\">: needs a filename"},
      {"<shape type=\"ply\"><string name=\"filename\" value=\"a.ply\"/></shape>", "scene.xml:9:1: <shape type=\"ply\">: file \"a.ply\" not found (looked in "},
      {"<shape type=\"sphere\"><ref id=\"nothing\"/></shape>", "scene.xml:9:22: <ref id=\"nothing\">: no object with id \"nothing\""},
      {"<shape type=\"sphere\"><float name=\"radius\" value=\"big\"/></shape>", "<float name=\"radius\">: \"big\" is not a number"},
      {"<shape type=\"sphere\"><float name=\"radius\" value=\"$r\"/></shape>", "$r is not defined"},
      {"<emitter type=\"area\"/>", "an area emitter belongs inside the <shape>"},
      {"<integrator type=\"path\"><integer name=\"max_depth\" value=\"0\"/></integrator>", "max_depth must be -1"},
      {"<integrator type=\"aov\"/>", "an aov integrator needs its aovs"},
      {"<integrator type=\"adjoint_tracer\"/>", "unsupported integrator"},
      {"<emitter type=\"envmap\"><string name=\"filename\" value=\"sky.exr\"/><transform name=\"to_world\"><scale x=\"2\"/></transform></emitter>",
       "an envmap's to_world must be a rotation"},
      {"<shape type=\"sphere\"><transform name=\"to_world\"><scale x=\"2\"/></transform></shape>", "must keep it a sphere"},
      {"<medium type=\"sggx\"/>", "unsupported medium (supported: homogeneous, heterogeneous)"},
      {"<phase type=\"hg\"/>", "unsupported element at scene level"},
      {"<shape type=\"sphere\"><float name=\"sharpness\" value=\"1\"/></shape>", "unsupported property \"sharpness\" for a sphere"},
      {"<bsdf type=\"diffuse\" id=\"a\"/><bsdf type=\"diffuse\" id=\"a\"/>", "id \"a\" is used twice"},
      // Mitsuba's own refusals: attributes an element does not take, a property given twice.
      {"<shape type=\"sphere\"><float name=\"radius\" vaule=\"2\"/></shape>",
       "scene.xml:9:22: <float name=\"radius\">: unexpected attribute \"vaule\" (<float> takes name, value)"},
      {"<shape type=\"sphere\"><bsdf type=\"diffuse\"><rgb name=\"reflectance\" value=\"0.5\"/><rgb name=\"reflectance\" value=\"0.2\"/></bsdf></shape>",
       "<rgb name=\"reflectance\">: property \"reflectance\" is given twice"},
      // Errors of the converted document, placed at the element the object came from.
      {"<shape type=\"sphere\"><bsdf type=\"roughplastic\"><texture name=\"alpha\" type=\"checkerboard\"/></bsdf></shape>",
       "scene.xml:9:22: <bsdf type=\"roughplastic\"> alpha: must be a number"},
      {"<shape type=\"sphere\"><bsdf type=\"hair\"/></shape>", "scene.xml:9:22: <bsdf type=\"hair\"> type: unknown material type \"hair\""},
      {"<shape type=\"sphere\"><bsdf type=\"conductor\"><float name=\"alhpa\" value=\"1\"/></bsdf></shape>",
       "scene.xml:9:22: <bsdf type=\"conductor\"> alhpa: unknown key"},
      {"<emitter type=\"spot\"><transform name=\"to_world\"><lookat origin=\"0,0,0\" target=\"0,0,1\"/></transform><float name=\"cutoff_angle\" value=\"95\"/></emitter>",
       "scene.xml:9:1: <emitter type=\"spot\"> cutoff_angle: must be in (0, 90) degrees"},
      {"<shape type=\"sphere\"><bsdf type=\"roughconductor\"><float name=\"alpha\" value=\"-0.1\"/></bsdf></shape>",
       "scene.xml:9:22: <bsdf type=\"roughconductor\"> alpha: must be > 0, got -0.1"},
      {"<shape type=\"sphere\"><bsdf type=\"diffuse\"><rgb name=\"reflectance\" value=\"0.5, 1.5, 0.5\"/></bsdf></shape>",
       "scene.xml:9:22: <bsdf type=\"diffuse\"> reflectance: must be <= 1, got 1.5"},
      // Mitsuba keeps one integrator: a second is an error that names the first.
      {"<integrator type=\"path\"/><integrator type=\"direct\"/>",
       "scene.xml:9:26: <integrator type=\"direct\">: a second <integrator> (the first: " },
  };
  for (const Case& c : cases) {
    const std::string xml = t.write("scene.xml", scene_xml(c.body));
    const std::string e = load_error(xml);
    INFO(c.body << "\n  -> " << e);
    CHECK(e.find(c.message) != std::string::npos);
    CHECK(e.rfind(xml + ":", 0) == 0);  // starts with the file
  }
  CHECK(load_error(t.write("bad.xml", "<scene version=\"3.0.0\">\n<shape type=\"sphere\">\n</scene>\n"))
            .find("bad.xml:3: not well-formed XML") != std::string::npos);
  // A -D that the scene never uses is a typo to report, as Mitsuba's unreferenced parameters.
  const std::string uses_r = t.write("uses.xml", scene_xml("<default name=\"r\" value=\"1\"/><shape type=\"sphere\"><float name=\"radius\" value=\"$r\"/></shape>"));
  CHECK(load_error(uses_r, {{"r", "2"}}) == "(no error)");
  CHECK(load_error(uses_r, {{"spp", "4"}}) == uses_r + ": -D spp: the scene never uses $spp (its parameters: $r)");
  // A <default> declared and never substituted is no parameter of the scene: the message says so
  // (it listed $integrator among the parameters of a scene it said never used $integrator).
  const std::string declared = t.write("declared.xml", scene_xml("<default name=\"integrator\" value=\"path\"/><default name=\"r\" value=\"1\"/>"
                                                                 "<shape type=\"sphere\"><float name=\"radius\" value=\"$r\"/></shape>"));
  CHECK(load_error(declared, {{"integrator", "direct"}}) ==
        declared + ": -D integrator: the scene never uses $integrator (its parameters: $r; declared by a <default> but never used: $integrator)");
  CHECK(load_error(t.write("root.xml", "<shapes/>")).find("the root element must be <scene>") != std::string::npos);
  CHECK(load_error(t.write("nosensor.xml", "<scene version=\"3.0.0\"><shape type=\"sphere\"/></scene>"))
            .find("the scene has no <sensor>") != std::string::npos);
  CHECK(load_error(t.write("mirror.xml", R"(<scene version="3.0.0"><sensor type="perspective"><float name="fov" value="40"/>
    <transform name="to_world"><scale x="-1"/></transform></sensor><shape type="sphere"/></scene>)"))
            .find("a mirrored sensor") != std::string::npos);
}
