// Mitsuba shapes that are containers: a merge's shapes render bitwise as the same shapes listed
// alone, and a merge holds shapes only.
#include <catch2/catch.hpp>

#include <cmath>

#include "../temp_dir.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;

TEST_CASE("Mitsuba's merge: its shapes, each its own, render bitwise as the shapes alone", "[mitsuba]") {
  TempDir t("dray-mitsuba-merge-");
  const std::string shapes = R"(
    <shape type="sphere"><transform name="to_world"><translate x="-1" y="1"/></transform><bsdf type="diffuse"/></shape>
    <shape type="rectangle"><transform name="to_world"><rotate x="1" angle="-90"/><scale x="4" y="4"/></transform>
      <bsdf type="diffuse"><rgb name="reflectance" value="0.3, 0.6, 0.2"/></bsdf></shape>
    <shape type="cylinder"><float name="radius" value="0.3"/><transform name="to_world"><translate x="1"/></transform></shape>)";
  const std::string light = R"(<emitter type="point"><point name="position" x="0" y="4" z="2"/><rgb name="intensity" value="20"/></emitter>)";
  const Scene merged = load_scene(t.write("m.xml", scene_xml("<shape type=\"merge\">" + shapes + "</shape>" + light)));
  const Scene alone = load_scene(t.write("a.xml", scene_xml(shapes + light)));
  REQUIRE(merged.shapes.size() == 3);
  const Image a = render(merged), b = render(alone);
  double sum = 0;
  for (float v : a.data) sum += v;
  CHECK(sum > 0.0);
  CHECK(a.data == b.data);
  CHECK_THAT(load_error(t.write("e.xml", scene_xml(R"(<shape type="merge"><bsdf type="diffuse"/></shape>)"))),
             Catch::Contains("a merge holds shapes only"));
}

TEST_CASE("Mitsuba's obj flip_tex_coords: v flipped by default (1 - v), as written with false", "[mitsuba]") {
  TempDir t("dray-mitsuba-flip-uv-");
  const std::string obj = t.write("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0.25\nvt 1 0.25\nvt 0 1\nf 1/1 2/2 3/3\n");
  auto uvs = [&](const std::string& extra) {
    const Scene s = load_scene(t.write("f.xml", scene_xml(R"(<shape type="obj"><string name="filename" value=")" + obj + "\"/>" + extra + "</shape>")));
    return s.meshes.at(0).corner_uvs;
  };
  const auto flipped = uvs(""), kept = uvs(R"(<boolean name="flip_tex_coords" value="false"/>)");
  REQUIRE(flipped.size() == 3);
  REQUIRE(kept.size() == 3);
  CHECK(flipped[0].y == 0.75f);
  CHECK(flipped[2].y == 0.f);
  CHECK(kept[0].y == 0.25f);
  CHECK(kept[2].y == 1.f);
  CHECK(kept[1].x == 1.f);
}

TEST_CASE("Mitsuba's cube bounds a medium: a closed mesh whose absorption is exp(-sigma_t 2)", "[mitsuba]") {
  // An orthographic view along z through a pure absorber filling [-1, 1]^3 (sigma_t 0.7, albedo
  // 0) under a unit sky: every ray through the cube crosses 2 of it, exp(-1.4) of the sky left.
  TempDir t("dray-mitsuba-cube-medium-");
  const std::string xml = R"(<scene version="3.0.0">
    <integrator type="volpath"/>
    <sensor type="orthographic"><transform name="to_world"><scale x="2" y="2"/><lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform>
      <film type="hdrfilm"><integer name="width" value="16"/><integer name="height" value="16"/><rfilter type="box"/></film>
      <sampler type="independent"><integer name="sample_count" value="64"/></sampler></sensor>
    <emitter type="constant"/>
    <shape type="cube" id="box"><bsdf type="null"/><transform name="to_world"><rotate z="1" angle="0"/></transform>
      <medium type="homogeneous" name="interior"><float name="sigma_t" value="0.7"/><float name="albedo" value="0"/></medium></shape>
  </scene>)";
  const Scene scene = load_scene(t.write("c.xml", xml));
  REQUIRE(scene.shapes.size() == 1);
  CHECK(scene.shapes[0].is<MeshShape>());
  CHECK(scene.meshes[0].object_positions.size() == 8);  // Mitsuba's 8 corners: `box.positions`
  CHECK(scene.params.find("box.positions"));
  const Image im = render(scene);
  // The film spans [-2, 2]^2: its middle 8 x 8 pixels see through the cube, the rim the sky. A
  // camera ray's free flights make each sample pass (1) or not (0): the block's mean of 64 x 64
  // samples has a standard error of 0.0067.
  double through = 0, sky = 0;
  int n_sky = 0;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) {
      if (x >= 4 && x < 12 && y >= 4 && y < 12) through += im.pixel(x, y)[0];
      else if (x < 3 || x > 12 || y < 3 || y > 12) sky += im.pixel(x, y)[0], ++n_sky;
    }
  CHECK(through / 64 == Approx(std::exp(-1.4)).margin(0.03));
  CHECK(sky / n_sky == Approx(1.0).epsilon(1e-5));
}

// Mitsuba's Blender add-on writes a shape's bsdf as <ref name="bsdf" id=…/>, and Mitsuba's docs
// scenes declare an area emitter apart (after the shapes, at times) and refer to it from the
// shapes that emit (issue 77).
TEST_CASE("Mitsuba's references from a shape: a named bsdf ref, an area emitter declared apart", "[mitsuba]") {
  TempDir t("dray-mitsuba-shape-refs-");
  const std::string objects = R"(
    <bsdf type="diffuse" id="red"><rgb name="reflectance" value="0.7, 0.1, 0.1"/></bsdf>
    <emitter type="area" id="glow"><rgb name="radiance" value="5, 4, 3"/></emitter>
    <shape type="sphere" id="ball"><ref name="bsdf" id="red"/></shape>
    <shape type="rectangle" id="lamp_a"><transform name="to_world"><translate y="3"/></transform><ref id="glow"/></shape>
    <shape type="rectangle" id="lamp_b"><transform name="to_world"><translate y="-3"/></transform><ref name="emitter" id="glow"/></shape>
    <shape type="rectangle" id="panel"><bsdf type="twosided"><ref name="bsdf" id="red"/></bsdf></shape>)";
  const Scene s = load_scene(t.write("r.xml", scene_xml(objects)));
  const Shape& ball = s.shapes.at(0);
  CHECK(s.materials.at(ball.material).name == "red");
  CHECK(s.params.values()[s.params.find("materials.red.reflectance")->slot + 1] == Approx(0.1f));
  int emitting = 0;
  for (const Shape& shape : s.shapes) emitting += s.materials.at(shape.material).emissive ? 1 : 0;
  CHECK(emitting == 2);  // both lamps, each its own copy of the one emitter
  CHECK(s.lights.size() == 2);
  // hdrfilm's file_format (dray writes the format the output names) and compensate are read.
  const std::string film = R"(<string name="file_format" value="openexr"/><boolean name="compensate" value="true"/>)";
  std::string xml = scene_xml(objects);
  xml.replace(xml.find("<film type=\"hdrfilm\">") + 21, 0, film);
  CHECK(load_scene(t.write("f.xml", xml)).shapes.size() == 4);
  xml.replace(xml.find("openexr"), 7, "png");
  CHECK_THAT(load_error(t.write("g.xml", xml)), Catch::Contains("file_format must be openexr, exr, rgbe or pfm"));
  CHECK_THAT(load_error(t.write("e.xml", scene_xml(R"(<emitter type="area"/>)"))), Catch::Contains("or has an id the shape refers to"));
  // Mitsuba resolves references after reading the file: an emitter and a bsdf declared after the shape.
  const Scene late = load_scene(t.write("l.xml", scene_xml(R"(<shape type="rectangle"><ref id="late_glow"/><ref id="late_bsdf"/></shape>
    <emitter type="area" id="late_glow"><rgb name="radiance" value="3"/></emitter><bsdf type="diffuse" id="late_bsdf"/>)")));
  CHECK(late.lights.size() == 1);
  // A light whose bsdf is null (the shader ball's): it emits, and paths pass through it.
  const Scene n = load_scene(t.write("n.xml", scene_xml(R"(<shape type="rectangle"><bsdf type="null"/>
    <emitter type="area"><rgb name="radiance" value="2"/></emitter></shape>)")));
  REQUIRE(n.shapes.size() == 1);
  const Material& lamp = n.materials.at(n.shapes[0].material);
  CHECK(lamp.emissive);
  CHECK(lamp.opacity != kNoSlot);
  CHECK(n.params.values()[lamp.opacity] == 0.f);
  CHECK(n.lights.size() == 1);
}
