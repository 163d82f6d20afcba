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
