// Shadow edges of lights at a point (point, spot, projector): a blocker out of view and the light's
// position, against central differences per image half at h and h/2 over 3 seeds.
#include <catch2/catch.hpp>

#include "tests/integrators/shadow_check.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

TEST_CASE("a hard shadow moves with its blocker and its light: boundary term against differences", "[boundary]") {
  // The blocker is outside the camera's view: its shadow is the only thing that moves.
  Scene scene = load_scene(shadow_scene(100000), "test.json");
  for (const char* name : {"shapes.blocker.corner[0]", "shapes.blocker.corner[1]", "lights.pt.position[0]", "lights.pt.position[1]"})
    check_shadow_halves(scene, name, 0.03f, 0.03);
  // A spot and a projector in the point light's place, their beams covering the view (Mitsuba's
  // projective integrators have no shadow edges for such lights).
  const json spot = {{"name", "pt"}, {"type", "spot"}, {"position", {0.3, 8, 0.2}}, {"target", {0.3, 0, 0.2}},
                     {"intensity", {30, 30, 30}}, {"cutoff_angle", 70}, {"beam_width", 40}};
  const json projector = {{"name", "pt"}, {"type", "projector"}, {"position", {0.3, 8, 0.2}}, {"target", {0.3, 0, 0.2}},
                          {"up", {0, 0, 1}}, {"irradiance", {2, 2, 2}}, {"fov", 140}};
  for (const json& light : {spot, projector}) {
    INFO(light["type"]);
    const Scene lit = load_scene(shadow_scene(100000, light), "test.json");
    for (const char* name : {"shapes.blocker.corner[0]", "lights.pt.position[0]"}) check_shadow_halves(lit, name, 0.03f, 0.03);
  }
}
