// Mitsuba shapes that are containers: a merge's shapes render bitwise as the same shapes listed
// alone, and a merge holds shapes only.
#include <catch2/catch.hpp>

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
