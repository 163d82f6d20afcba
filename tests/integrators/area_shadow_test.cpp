// Shadow edges of area lights (squares facing either way, tilted, balls) over a square and a ball
// blocker, against central differences per image half at h and h/2 over 3 seeds.
#include <catch2/catch.hpp>

#include "tests/integrators/shadow_check.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

TEST_CASE("an area light's soft shadow moves with its blocker: boundary term against differences", "[boundary]") {
  // The point light replaced by a lamp at its height: a 0.6 x 0.6 square facing down, facing up
  // but two-sided (it lights the floor from its back), facing down over a ball, tilted 45 degrees
  // over a ball, and a ball of radius 0.3. A two-sided lamp's back points were once always
  // rejected (the ray toward the edge started off its front: the term was 0), and so were most
  // points seeing a ball's silhouette (the tangent ray, in float, enters the ball just before the
  // edge point: 0.2x of differences); a lamp point whose normal is oblique to the line toward the
  // edge was offset sideways off the line, which then missed the edge on both sides of the step
  // (0.85x for the ball lamp, 0.89x for the tilted one).
  struct Case {
    const char* what;
    bool two_sided, ball;
    json lamp;
  };
  const json down = {{"type", "quad"}, {"corner", {0, 8, -0.1}}, {"edge_u", {0.6, 0, 0}}, {"edge_v", {0, 0, 0.6}}};
  const json up = {{"type", "quad"}, {"corner", {0, 8, -0.1}}, {"edge_u", {0, 0, 0.6}}, {"edge_v", {0.6, 0, 0}}};
  const json tilted = {{"type", "quad"}, {"corner", {0, 8, -0.1}}, {"edge_u", {0.6, 0, 0}}, {"edge_v", {0, -0.42, 0.42}}};
  const json ball_lamp = {{"type", "sphere"}, {"center", {0.3, 8, 0.2}}, {"radius", 0.3}};
  for (const Case& c : {Case{"square lamp facing down, a square", false, false, down},
                        Case{"two-sided square lamp facing up, a square", true, false, up},
                        Case{"square lamp facing down, a ball", false, true, down},
                        Case{"tilted square lamp, a ball", false, true, tilted},
                        Case{"ball lamp, a square", false, false, ball_lamp},
                        Case{"ball lamp, a ball", false, true, ball_lamp}}) {
    json doc = shadow_scene(100000);
    doc.erase("lights");
    if (c.ball) doc["shapes"][1] = {{"name", "blocker"}, {"type", "sphere"}, {"center", {0, 5, 0}}, {"radius", 0.5}, {"material", "black"}};
    doc["materials"]["lamp"] = {{"type", "diffuse"}, {"albedo", {0, 0, 0}}, {"emission", {80, 80, 80}}, {"two_sided", c.two_sided}};
    json lamp = c.lamp;
    lamp["name"] = "lamp";
    lamp["material"] = "lamp";
    doc["shapes"].push_back(lamp);
    INFO(c.what);
    const Scene scene = load_scene(doc, "test.json");
    if (!c.ball) {
      check_shadow_halves(scene, "shapes.blocker.corner[0]", 0.03f, 0.05);
      continue;
    }
    for (const char* name : {"shapes.blocker.center[0]", "shapes.blocker.radius"}) check_shadow_halves(scene, name, 0.03f, 0.05);
  }
}
