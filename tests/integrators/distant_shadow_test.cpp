// Shadow edges of lights from infinitely far: a directional light (its blocker and its direction)
// and a uniform sky (a ball's radius and x), against central differences at h and h/2.
#include <catch2/catch.hpp>

#include "tests/integrators/shadow_check.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

TEST_CASE("a directional light's shadow moves with its blocker and its direction: boundary term against differences", "[boundary]") {
  // As for the point light: the blocker is out of view, the shadow's side edges in different
  // image halves.
  const json sun = {{"name", "sun"}, {"type", "directional"}, {"direction", {-0.02, -1, 0.05}}, {"irradiance", {3, 3, 3}}};
  Scene scene = load_scene(shadow_scene(100000, sun), "test.json");
  // Steps that move the shadow's edges about one pixel (10 pixels per unit on the floor; the
  // blocker 5 units above it). Measured: within 0.1-4.5%.
  check_shadow_halves(scene, "shapes.blocker.corner[0]", 0.1f, 0.05);
  check_shadow_halves(scene, "lights.sun.direction[0]", 0.02f, 0.05);
  check_shadow_halves(scene, "lights.sun.direction[2]", 0.02f, 0.05);
}


namespace {

// A ball outside the camera's view under a uniform sky: its shadow on the floor (the environment
// seen from the floor, cut off by the ball) is the only thing in the image that moves with it.
json sky_shadow_scene(long boundary_samples) {
  return {{"camera", {{"origin", {0, 4, 0}}, {"target", {0, 0, 0.001}}, {"up", {0, 0, -1}}, {"fov_y", 40},
                      {"width", 64}, {"height", 48}}},
          {"render", {{"spp", 16}, {"max_depth", 1}, {"boundary_samples", boundary_samples}}},
          {"materials", {{"floor", {{"type", "diffuse"}, {"albedo", {0.7, 0.7, 0.7}}}},
                         {"red", {{"type", "diffuse"}, {"albedo", {0.8, 0.2, 0.1}}}}}},
          {"shapes", json::array({{{"name", "floor"}, {"type", "quad"}, {"corner", {-4, 0, -4}}, {"edge_u", {0, 0, 8}},
                                   {"edge_v", {8, 0, 0}}, {"material", "floor"}},
                                  {{"name", "ball"}, {"type", "sphere"}, {"center", {2.4, 0.8, 0}}, {"radius", 0.6},
                                   {"material", "red"}}})},
          {"lights", json::array({{{"name", "sky"}, {"type", "environment"}, {"radiance", {1, 1, 1}}}})}};
}

}  // namespace

TEST_CASE("an environment's shadow moves with its blocker: boundary term against differences", "[boundary]") {
  // The interior term is zero here (the ball is out of view, the sky does not move): the image's
  // derivative is the shadow edges' alone, from directions uniform on the sphere. Whole-image
  // sums, steps moving the soft shadow's edges about a pixel and half of one, over 4 seeds.
  Scene scene = load_scene(sky_shadow_scene(400000), "test.json");
  for (const char* name : {"shapes.ball.radius", "shapes.ball.center[0]"}) {
    const Slot slot = slot_of(scene, name);
    RenderOutputs out;
    out.wrt = {slot};
    double fwd = 0, fd = 0, fd_half = 0;
    for (uint64_t seed : {1, 2, 3, 4}) {
      Scene s = scene;
      s.render.seed = seed;
      fwd += region_sum(render_local(s, 2, out), out.derivative_channel(0), 0, 64, 0, 48) / 4;
      fd += region_difference(scene, slot, 0.01f, 0, 64, seed) / 4;
      fd_half += region_difference(scene, slot, 0.005f, 0, 64, seed) / 4;
    }
    INFO(name << ": boundary+interior " << fwd << ", differences " << fd << " (h), " << fd_half << " (h/2)");
    CHECK(fwd == Approx(fd).epsilon(0.04));
    CHECK(fd_half == Approx(fd).epsilon(0.04));
  }
}
