// Visibility seen indirectly: a panel's edges seen in a glossy floor and through frosted glass, against central differences of region sums (same random numbers, h and h/2, 3 seeds),
// and reverse mode against forward mode with the same samples.
#include <catch2/catch.hpp>

#include <cmath>
#include <initializer_list>
#include <vector>

#include "ad/fixed_sum.h"
#include "renderer/integrators/boundary.h"
#include "tests/integrators/shadow_check.h"

namespace dray {
namespace {

using testing::region_sum;
using testing::slot_of;

struct Region {
  int x0, x1, y0, y1;
};

// A white panel facing the camera above a glossy metal floor, lit by a directional light from
// the camera's side: its radiance is uniform (no interior term), so that the derivative of its
// blurred reflection in the floor (rows 26-48) is all visibility seen from the floor. The panel
// is in rows 6-17, its shadow behind it; the floor is black but for what it reflects.
json glossy_floor_scene(long boundary_samples) {
  return {{"camera", {{"origin", {0, 1, 4}}, {"target", {0, 0.3, 0}}, {"up", {0, 1, 0}}, {"fov_y", 40},
                      {"width", 64}, {"height", 48}}},
          {"render", {{"spp", 16}, {"max_depth", 2}, {"boundary_samples", boundary_samples}}},
          {"materials", {{"metal", {{"type", "roughconductor"}, {"distribution", "ggx"}, {"alpha", 0.08}, {"material", "Al"}}},
                         {"white", {{"type", "diffuse"}, {"albedo", {0.8, 0.8, 0.8}}}}}},
          {"shapes", json::array({{{"name", "floor"}, {"type", "quad"}, {"corner", {-3, 0, -4}}, {"edge_u", {0, 0, 6}},
                                   {"edge_v", {6, 0, 0}}, {"material", "metal"}},
                                  {{"name", "panel"}, {"type", "quad"}, {"corner", {-0.5, 0.6, -1}}, {"edge_u", {1, 0, 0}},
                                   {"edge_v", {0, 0.8, 0}}, {"material", "white"}}})},
          {"lights", json::array({{{"name", "sun"}, {"type", "directional"}, {"direction", {0, -0.3, -1}}, {"irradiance", {3, 3, 3}}}})}};
}

// The panel behind a frosted glass pane (rough dielectric, 0.1 thick) that covers the view, lit
// by a point light between them: the whole image is seen through the glass.
json frosted_pane_scene(long boundary_samples) {
  json s = glossy_floor_scene(boundary_samples);
  s["render"]["max_depth"] = 4;
  s["materials"]["frost"] = {{"type", "roughdielectric"}, {"distribution", "ggx"}, {"alpha", 0.05}, {"int_ior", 1.5}};
  s["shapes"] = json::array({{{"name", "panel"}, {"type", "quad"}, {"corner", {-0.5, 0.2, -1}}, {"edge_u", {1, 0, 0}},
                              {"edge_v", {0, 0.8, 0}}, {"material", "white"}},
                             // the slab's faces, each facing out of it
                             {{"name", "pane_front"}, {"type", "quad"}, {"corner", {-3, -3, 1}}, {"edge_u", {6, 0, 0}},
                              {"edge_v", {0, 6, 0}}, {"material", "frost"}},
                             {{"name", "pane_back"}, {"type", "quad"}, {"corner", {3, -3, 0.9}}, {"edge_u", {-6, 0, 0}},
                              {"edge_v", {0, 6, 0}}, {"material", "frost"}}});
  s["lights"] = json::array({{{"name", "key"}, {"type", "point"}, {"position", {0, 0.6, 0.5}}, {"intensity", {4, 4, 4}}}});
  return s;
}

double sum_over(const Image& im, int c, const Region& r) { return region_sum(im, c, r.x0, r.x1, r.y0, r.y1); }

// Central difference of the region sum for one scalar, with the same random numbers.
double region_difference(const Scene& scene, Slot slot, float h, const Region& r, uint64_t seed, int spp) {
  return testing::region_difference(scene, slot, h, r.x0, r.x1, r.y0, r.y1, seed, spp);
}

// Forward mode (interior and boundary) against differences at h and h/2, each over 3 seeds, per
// region.
void check_regions(const Scene& scene, const char* name, float h, std::initializer_list<Region> regions, double tol) {
  const Slot slot = slot_of(scene, name);
  RenderOutputs out;
  out.wrt = {slot};
  std::vector<Image> fwd;
  for (uint64_t seed : {1, 2, 3}) {
    Scene s = scene;
    s.render.seed = seed;
    fwd.push_back(render_local(s, 2, out));
  }
  for (const Region& r : regions) {
    double f = 0, fd = 0, fd_half = 0;
    for (uint64_t seed : {1, 2, 3}) {
      f += sum_over(fwd[seed - 1], out.derivative_channel(0), r) / 3;
      fd += region_difference(scene, slot, h, r, seed, 256) / 3;
      fd_half += region_difference(scene, slot, h / 2, r, seed, 256) / 3;
    }
    INFO(name << ", columns " << r.x0 << "-" << r.x1 << ", rows " << r.y0 << "-" << r.y1 << ": boundary+interior " << f
              << ", differences " << fd << " (h), " << fd_half << " (h/2)");
    CHECK(f == Approx(fd).epsilon(tol));
    CHECK(fd_half == Approx(fd).epsilon(tol));
  }
}

TEST_CASE("a panel's edges seen in a glossy floor move with it", "[boundary][indirect]") {
  const Scene scene = load_scene(glossy_floor_scene(400000), "");
  // Sideways: the reflection's left and right edges, one per image half (without the indirect
  // term both derivatives were 0: the panel's radiance is uniform).
  check_regions(scene, "shapes.panel.corner[0]", 0.04f, {{0, 32, 26, 48}, {32, 64, 26, 48}}, 0.05);
  // Up: the reflection moves down.
  check_regions(scene, "shapes.panel.corner[1]", 0.02f, {{0, 64, 26, 48}}, 0.05);
  // The camera sideways: the floor's points move as well as the view (the vertex's motion).
  check_regions(scene, "camera.origin[0]", 0.04f, {{0, 32, 26, 48}, {32, 64, 26, 48}}, 0.05);
}

// A black blocker above the view that casts the sun's hard shadow across the panel (a band at
// height 1.0-1.16, x from -0.3 to 0.1).
json with_blocker(json doc) {
  doc["materials"]["black"] = {{"type", "diffuse"}, {"albedo", {0, 0, 0}}};
  doc["shapes"].push_back({{"name", "blocker"}, {"type", "quad"}, {"corner", {-0.3, 2.0, 1.8}}, {"edge_u", {0.4, 0, 0}},
                           {"edge_v", {0, 0, 0.4}}, {"material", "black"}});
  return doc;
}

// The shadow's reflection: its two edges, one per region, move with the blocker.
TEST_CASE("a shadow seen in a glossy floor moves with its blocker", "[boundary][indirect]") {
  json doc = with_blocker(glossy_floor_scene(400000));
  doc["render"]["indirect_samples"] = 4000000;  // shadow samples seen from x are drawn blind to x
  const Scene scene = load_scene(doc, "");
  // (Without the shadow edges seen from the floor: 0 in both.)
  check_regions(scene, "shapes.blocker.corner[0]", 0.04f, {{0, 31, 26, 48}, {31, 64, 26, 48}}, 0.1);
}

TEST_CASE("a panel's edges seen through frosted glass move with it", "[boundary][indirect]") {
  const Scene scene = load_scene(frosted_pane_scene(400000), "");
  check_regions(scene, "shapes.panel.corner[0]", 0.04f, {{0, 32, 0, 48}, {32, 64, 0, 48}}, 0.05);
}

TEST_CASE("the indirect samples' reverse gradient equals forward mode with the same samples", "[boundary][indirect][reverse]") {
  const Scene scene = load_scene(with_blocker(glossy_floor_scene(20000)), "");
  // The panel's position and width, the camera's height (which moves the floor's vertices: their
  // motion is replayed in T) and the blocker's x (shadow edges seen from the floor).
  const std::vector<Slot> slots = {slot_of(scene, "shapes.panel.corner[0]"), slot_of(scene, "shapes.panel.corner[1]"),
                                   slot_of(scene, "shapes.panel.edge_u[0]"), slot_of(scene, "camera.origin[1]"),
                                   slot_of(scene, "shapes.blocker.corner[0]")};
  const int w = scene.own_camera().width, h = scene.own_camera().height;
  // A fixed adjoint image: a ramp per channel.
  Image adjoint(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) adjoint.pixel(x, y)[c] = 0.5f + 0.01f * float(x) - 0.007f * float(y) + 0.1f * float(c);
  const long n = 20000;
  const BoundarySplat splat = boundary_splat(scene, scene.shot(), slots, Tile{0, 0, w, h}, n, 0, 1, 2);
  std::vector<ad::FixedSum> grad(slots.size());
  REQUIRE(boundary_gradient(scene, scene.shot(), adjoint, slots, n, 0, 1, 2, grad) == 0);
  for (size_t t = 0; t < slots.size(); ++t) {
    double fwd = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c)
          fwd += double(adjoint.pixel(x, y)[c]) * splat.sums[((size_t(y) * size_t(w) + size_t(x)) * slots.size() + t) * 3 + size_t(c)].value();
    INFO("parameter " << t << ": forward " << fwd << ", reverse " << grad[t].value());
    CHECK(fwd != 0.0);
    CHECK(grad[t].value() == Approx(fwd).epsilon(1e-5));
  }
}

}  // namespace
}  // namespace dray
