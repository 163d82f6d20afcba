// dray's scenes written as Mitsuba 3 XML (renderer/io/mitsuba/xml_writer.h) and read back: a
// Mitsuba scene through JSON and back to XML renders bitwise as the original (sensors, filters,
// crops, textures, BSDFs, every shape kind, groups and instances, area and directionalarea
// emitters, every light); a native JSON scene with its clip planes given renders bitwise as its
// XML; what Mitsuba cannot hold is refused with its place, what it holds only nearly is warned.
#include <catch2/catch.hpp>

#include "../temp_dir.h"
#include "tests/image_difference.h"
#include "renderer/core/atomic_file.h"
#include "renderer/io/mitsuba/xml_writer.h"
#include "renderer/io/vol_file.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// The document's XML, written beside it and loaded.
Scene through_xml(const TempDir& t, const json& doc, std::vector<std::string>& warnings) {
  return load_scene(t.write("written.xml", mitsuba::write_xml(doc, warnings)));
}

std::string write_error(const json& doc) {
  std::vector<std::string> warnings;
  try {
    mitsuba::write_xml(doc, warnings);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

// The first parameter whose values differ between two scenes (by name), or "".
std::string first_difference(const Scene& a, const Scene& b) {
  for (const ParamEntry& e : a.params.entries()) {
    const auto f = b.params.find(e.name);
    if (!f) return e.name + " (absent from the second)";
    for (uint32_t k = 0; k < e.size; ++k)
      if (a.params.get(e.slot + k) != b.params.get(f->slot + k)) return e.name + "[" + std::to_string(k) + "]";
  }
  return "";
}

// The XML scene converted to JSON and written back to XML: no warnings, the same parameter values,
// bitwise the same image (returned).
Image check_round_trip(const TempDir& t, const std::string& xml) {
  std::vector<std::string> warnings;
  const json doc = read_scene_document(xml, {}, warnings);
  const Scene original = load_scene(xml);
  const Scene written = through_xml(t, doc, warnings);
  INFO("warnings: " << json(warnings).dump());
  CHECK(warnings.empty());  // Mitsuba's clip planes, given: nothing only nearly written
  CHECK(first_difference(original, written) == "");
  CHECK(written.params.values().size() == original.params.values().size());
  const Image a = render(original);
  CHECK(a.data == render(written).data);
  return a;
}

}  // namespace

TEST_CASE("a Mitsuba scene through JSON and back to XML renders bitwise as itself", "[mitsuba]") {
  TempDir t("dray-mitsuba-writer-");
  Image tex(4, 4, 3);
  for (size_t i = 0; i < tex.data.size(); ++i) tex.data[i] = float(i % 5) / 5.f;
  write_image(tex, (t.dir / "t.exr").string());
  t.write("tet.obj", kTetrahedron);
  t.write("tri.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                     "property float r\nproperty float g\nproperty float b\nelement face 1\nproperty list uchar int vertex_indices\n"
                     "end_header\n-1 0 -1 1 0 0\n1 0 -1 0 1 0\n0 0.5 1 0 0 1\n3 0 1 2\n");
  const std::string xml = t.write("scene.xml", R"(<scene version="3.0.0">
  <integrator type="path"><integer name="max_depth" value="5"/></integrator>
  <sensor type="perspective">
    <float name="fov" value="35"/>
    <transform name="to_world"><lookat origin="0.3, 1.7, 6.1" target="0.1, 0.9, 0.2" up="0.1, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="24"/><integer name="height" value="16"/>
      <integer name="crop_offset_x" value="2"/><integer name="crop_width" value="20"/>
      <boolean name="sample_border" value="true"/><rfilter type="tent"/></film>
    <sampler type="independent"><integer name="sample_count" value="2"/><integer name="seed" value="3"/></sampler>
  </sensor>
  <texture type="bitmap" id="wood"><string name="filename" value="t.exr"/>
    <transform name="to_uv"><scale x="2" y="3"/><translate x="0.1" y="0.2"/></transform></texture>
  <bsdf type="diffuse" id="checks"><texture type="checkerboard" name="reflectance"><rgb name="color0" value="0.1, 0.2, 0.3"/></texture></bsdf>
  <bsdf type="plastic" id="shiny"><ref name="diffuse_reflectance" id="wood"/><float name="int_ior" value="1.7"/></bsdf>
  <bsdf type="twosided" id="paper"><bsdf type="roughconductor"><string name="material" value="Au"/><float name="alpha" value="0.2"/></bsdf></bsdf>
  <bsdf type="diffuse" id="tinted"><texture type="mesh_attribute" name="reflectance"><string name="name" value="vertex_color"/></texture></bsdf>
  <shape type="rectangle" id="floor"><transform name="to_world"><scale value="3.7"/><rotate x="1" angle="-90"/></transform><ref id="checks"/></shape>
  <shape type="sphere" id="ball"><point name="center" x="-1.1" y="0.6" z="0.3"/><float name="radius" value="0.55"/><ref id="shiny"/></shape>
  <shape type="cube" id="box"><transform name="to_world"><scale value="0.3"/><rotate y="1" angle="30"/><translate x="1.2" y="0.3"/></transform><ref id="paper"/></shape>
  <shape type="disk" id="disk"><transform name="to_world"><rotate x="1" angle="-80"/><translate y="0.01" z="1.5"/></transform><ref id="paper"/></shape>
  <shape type="cylinder" id="can"><point name="p0" x="1.5" y="0" z="-1"/><point name="p1" x="1.5" y="1.1" z="-1"/><float name="radius" value="0.2"/><ref id="checks"/></shape>
  <shape type="obj" id="tet"><string name="filename" value="tet.obj"/><transform name="to_world"><translate x="-2" z="-1"/></transform><ref id="paper"/></shape>
  <shape type="ply" id="tri"><string name="filename" value="tri.ply"/><transform name="to_world"><translate z="-2"/></transform><ref id="tinted"/></shape>
  <shape type="shapegroup" id="pair"><shape type="obj"><string name="filename" value="tet.obj"/><ref id="checks"/></shape></shape>
  <shape type="instance"><ref id="pair"/><transform name="to_world"><scale value="0.4"/><translate x="0.5" y="1.5"/></transform></shape>
  <shape type="instance"><ref id="pair"/><transform name="to_world"><scale value="0.3"/><translate x="-0.5" y="1.7"/></transform></shape>
  <shape type="rectangle" id="lamp"><transform name="to_world"><rotate x="1" angle="90"/><translate y="3"/></transform>
    <emitter type="area"><rgb name="radiance" value="3, 2.5, 2"/></emitter></shape>
  <shape type="rectangle" id="beam"><transform name="to_world"><rotate x="1" angle="90"/><translate y="3.5"/></transform>
    <emitter type="directionalarea"><rgb name="radiance" value="1"/></emitter></shape>
  <emitter type="point"><point name="position" x="2" y="3" z="2"/><rgb name="intensity" value="8"/></emitter>
  <emitter type="spot"><transform name="to_world"><lookat origin="-2, 3, 1" target="-1, 0, 0"/></transform><float name="cutoff_angle" value="25"/><rgb name="intensity" value="20"/></emitter>
  <emitter type="directional"><vector name="direction" x="0.3" y="-1" z="-0.2"/><rgb name="irradiance" value="0.4"/></emitter>
  <emitter type="envmap"><string name="filename" value="t.exr"/><float name="scale" value="0.3"/><transform name="to_world"><rotate y="1" angle="40"/></transform></emitter>
</scene>
)");
  const Image a = check_round_trip(t, xml);
  double sum = 0;
  for (float v : a.data) sum += v;
  CHECK(sum > 0.0);
}

TEST_CASE("media through JSON and back to XML: the sensor's, a shape's interior, grids and constants", "[mitsuba]") {
  TempDir t("dray-mitsuba-writer-media-");
  std::vector<float> density(4 * 4 * 4);
  for (size_t i = 0; i < density.size(); ++i) density[i] = float(i % 7) / 3.f;
  write_vol_file((t.dir / "d.vol").string(), {4, 4, 4}, 1, density.data());
  const std::string xml = t.write("scene.xml", R"(<scene version="3.0.0">
  <integrator type="volpath"><integer name="max_depth" value="4"/></integrator>
  <medium type="homogeneous" id="fog"><rgb name="sigma_t" value="0.05, 0.06, 0.07"/><rgb name="albedo" value="0.8"/>
    <float name="scale" value="0.9"/><phase type="hg"><float name="g" value="0.3"/></phase></medium>
  <medium type="heterogeneous" id="smoke"><volume name="sigma_t" type="gridvolume"><string name="filename" value="d.vol"/>
    <transform name="to_world"><scale value="2"/><translate x="-1" y="-1" z="-1"/></transform></volume>
    <volume name="albedo" type="constvolume"><rgb name="value" value="0.7, 0.8, 0.9"/></volume><phase type="rayleigh"/></medium>
  <sensor type="perspective"><float name="fov" value="40"/><ref id="fog"/>
    <transform name="to_world"><lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="16"/><integer name="height" value="12"/><rfilter type="box"/></film>
    <sampler type="independent"><integer name="sample_count" value="4"/></sampler></sensor>
  <shape type="sphere" id="cloud"><bsdf type="null"/><ref name="interior" id="smoke"/><ref name="exterior" id="fog"/></shape>
  <emitter type="constant"><rgb name="radiance" value="1"/></emitter>
</scene>
)");
  check_round_trip(t, xml);
  CHECK(load_scene(xml).media.size() == 2);
}

TEST_CASE("a native JSON scene written as XML renders bitwise as itself; clip planes warned", "[mitsuba]") {
  // Its film splats, as Mitsuba's hdrfilm (which the XML's reader gives) does.
  TempDir t("dray-mitsuba-writer-json-");
  json doc = json::parse(R"({
    "camera": {"origin": [0, 1.6, 6], "target": [0, 0.8, 0], "fov_y": 40, "width": 32, "height": 24, "near_clip": 0.01, "far_clip": 10000},
    "render": {"spp": 4, "max_depth": 3, "filter": {"type": "gaussian", "stddev": 0.4}, "splat": true},
    "materials": {"floor": {"type": "diffuse", "albedo": [0.7, 0.7, 0.7]}, "steel": {"type": "mirror", "tint": [0.9, 0.8, 0.7]},
                  "lamp": {"type": "diffuse", "albedo": [0, 0, 0], "emission": [8, 7, 6]}},
    "shapes": [{"name": "floor", "type": "quad", "corner": [-6.3, 0.1, -6.7], "edge_u": [0, 0, 12.9], "edge_v": [12.1, 0.2, 0], "material": "floor"},
               {"name": "mid", "type": "sphere", "center": [0.1, 1, -0.5], "radius": 0.9, "material": "steel"},
               {"name": "glow", "type": "sphere", "center": [0.7, 0.25, 1.4], "radius": 0.25, "material": "lamp"},
               {"name": "d", "type": "disk", "material": "floor", "transform": {"matrix": [0.5, 0, 0, 1.5, 0, 0, 0.5, 0.3, 0, -0.5, 0, 0, 0, 0, 0, 1]}}],
    "lights": [{"name": "key", "type": "point", "position": [3, 5, 4], "intensity": [40, 40, 40]},
               {"name": "sky", "type": "environment", "radiance": [0.25, 0.3, 0.4]}]})");
  std::vector<std::string> warnings;
  const Scene native = load_scene(doc, (t.dir / "s.json").string());
  const Scene written = through_xml(t, doc, warnings);
  CHECK(render(native).data == render(written).data);
  // Mitsuba's ids are one namespace: the shape named as a material is renamed, and said so.
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "/shapes/0: id \"floor\" is taken (Mitsuba's ids are one namespace): written as \"floor_shape\"");
  CHECK(written.params.find("shapes.floor_shape.corner"));
  // dray's default clip planes (0 and infinity) have no Mitsuba form: said so.
  warnings.clear();
  doc["camera"].erase("near_clip");
  through_xml(t, doc, warnings);
  REQUIRE(warnings.size() == 2);
  CHECK_THAT(warnings[0], Catch::Contains("/camera: dray's clip planes 0 and infinity have no Mitsuba form"));
}

TEST_CASE("a mesh of its OBJ file's materials: one PLY file per material, rendering as the JSON scene", "[mitsuba]") {
  TempDir t("dray-mitsuba-writer-obj-");
  t.write("box.mtl", "newmtl white\nKd 0.7 0.7 0.7\nnewmtl lamp\nKd 0 0 0\nKe 5 4 3\nnewmtl red\nKd 0.6 0.1 0.1\n");
  t.write("box.obj",
          "mtllib box.mtl\nv -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nv -0.3 1.5 -0.3\nv 0.3 1.5 -0.3\nv 0.3 1.5 0.3\nv -0.3 1.5 0.3\n"
          "v 0 0.3 0\nusemtl white\nf 1 4 3\nf 1 3 2\nusemtl lamp\nf 5 6 7\nf 5 7 8\nusemtl red\nf 1 2 9\nf 2 3 9\nf 3 4 9\nf 4 1 9\n");
  const json doc = json::parse(R"({"camera": {"origin": [0, 1, 4], "target": [0, 0.5, 0], "fov_y": 45, "width": 24, "height": 16,
      "near_clip": 0.01, "far_clip": 10000}, "render": {"spp": 8, "max_depth": 3},
      "shapes": [{"name": "box", "type": "mesh", "file": "box.obj", "transform": {"translate": [0.1, 0, 0]}}]})");
  std::vector<std::string> warnings;
  const Scene native = load_scene(doc, (t.dir / "s.json").string(), false);
  const std::string xml = (t.dir / "out.xml").string();
  write_text_file(xml, mitsuba::write_xml(doc, warnings, native, xml));
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("/shapes/0: its faces take its OBJ file's materials") && Catch::Contains("3 PLY files"));
  CHECK(std::filesystem::exists(t.dir / "out_box_2.ply"));
  const Scene written = load_scene(xml);
  CHECK(written.shapes.size() == 3);
  CHECK(written.params.get_vec3(written.params.find("materials.box_1.emission")->slot) == glm::vec3(5, 4, 3));
  const Image a = render(load_scene(doc, (t.dir / "s.json").string())), b = render(written);
  const double d = relative_difference(a, b);  // infinite where nothing is lit
  INFO("mean |difference| / mean " << d);
  CHECK(d < 1e-3);
}

TEST_CASE("what Mitsuba XML cannot hold is refused with its place in the document", "[mitsuba]") {
  const json base = json::parse(R"({"camera": {"origin": [0, 0, 5], "target": [0, 0, 0]},
    "materials": {"m": {"type": "diffuse"}}, "shapes": [{"type": "sphere", "material": "m"}]})");
  json media = base;
  media["shapes"][0]["interior"] = "fog";
  CHECK(write_error(media) == "/shapes/0/interior: names no medium of /media");
  json obj = base;
  obj["shapes"] = {{{"type", "mesh"}, {"file", "a.obj"}}};
  CHECK(write_error(obj) == "/shapes/0/material: a mesh's OBJ materials have no Mitsuba form: give it one material");
  json gltf = base;
  gltf["shapes"] = {{{"type", "mesh"}, {"file", "a.glb"}, {"material", "m"}}};
  CHECK(write_error(gltf) == "/shapes/0/file: Mitsuba reads obj, ply and serialized meshes, not .glb");
  json constant = base;
  constant["textures"] = {{"t", {{"type", "bitmap"}, {"width", 2}, {"height", 2}, {"value", 0.5}}}};
  CHECK_THAT(write_error(constant), Catch::Contains(": a constant bitmap (width, height, value) has no Mitsuba form"));
  json both = base;
  both["materials"]["m"] = {{"type", "diffuse"}, {"emission", {1, 1, 1}}, {"two_sided", true}};
  CHECK(write_error(both) == "/materials/m/two_sided: Mitsuba's area emitters emit from the front only");
  json grid = base;
  grid["shapes"] = {{{"type", "grid"}, {"material", "m"}}};
  CHECK(write_error(grid) == "/shapes/0/type: \"grid\" has no Mitsuba XML form");
  json displaced = base;
  displaced["shapes"] = {{{"type", "mesh"}, {"file", "a.obj"}, {"material", "m"}, {"displacement", {{"texture", "t"}}}}};
  CHECK(write_error(displaced) == "/shapes/0/displacement: a mesh's displacement has no Mitsuba XML form");
  json aovs = base;
  aovs["render"] = {{"aovs", "d:depth"}};
  CHECK(write_error(aovs) == "/render/aovs: is not written to XML yet");
}
