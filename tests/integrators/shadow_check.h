#pragma once
// Helpers of the boundary-term tests: a parameter's slot, region sums of an image, and the shadow
// scene (a blocker out of view, its shadow on a floor seen obliquely) with its check against
// central differences region by region.
#include <catch2/catch.hpp>

#include <string>

#include "renderer/integrators/gradient_tiles.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"

namespace dray::testing {

using nlohmann::json;

inline Slot slot_of(const Scene& s, const std::string& name) { return resolve_scalars(s.params, {name}).at(0).slot; }

// The sum over the pixels of [x0, x1) x [y0, y1) of channel c.
inline double region_sum(const Image& im, int c, int x0, int x1, int y0, int y1) {
  double sum = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) sum += im.pixel(x, y)[c];
  return sum;
}

// A point light above a blocker (a black square at height 5, outside the camera's view) whose
// hard shadow falls on a floor the camera sees obliquely; direct light only, so that a pixel's
// only noise is its film jitter.
inline json shadow_scene(long boundary_samples, const json& light = {{"name", "pt"}, {"type", "point"}, {"position", {0.3, 8, 0.2}},
                                                              {"intensity", {30, 30, 30}}}) {
  return {{"camera", {{"origin", {0, 3, 6}}, {"target", {0, 0, 0}}, {"up", {0, 1, 0}}, {"fov_y", 40},
                      {"width", 64}, {"height", 48}}},
          {"render", {{"spp", 16}, {"max_depth", 1}, {"boundary_samples", boundary_samples}}},
          {"materials", {{"floor", {{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}}},
                         {"black", {{"type", "diffuse"}, {"albedo", {0, 0, 0}}}}}},
          {"shapes", json::array({{{"name", "floor"}, {"type", "quad"}, {"corner", {-10, 0, -10}}, {"edge_u", {0, 0, 20}},
                                   {"edge_v", {20, 0, 0}}, {"material", "floor"}},
                                  {{"name", "blocker"}, {"type", "quad"}, {"corner", {-0.5, 5, -0.5}}, {"edge_u", {0, 0, 1}},
                                   {"edge_v", {1, 0, 0}}, {"material", "black"}}})},
          {"lights", json::array({light})}};
}

// Central difference of the sum over [x0, x1) x [y0, y1) for one scalar, with the same random numbers.
inline double region_difference(const Scene& scene, Slot slot, float h, int x0, int x1, int y0, int y1, uint64_t seed,
                                int spp) {
  Scene plus = scene, minus = scene;
  plus.render.seed = minus.render.seed = seed;
  plus.render.spp = minus.render.spp = spp;
  plus.params.set(slot, scene.params.get(slot) + h);
  minus.params.set(slot, scene.params.get(slot) - h);
  plus.build_geometry();
  minus.build_geometry();
  const double step = double(plus.params.get(slot)) - double(minus.params.get(slot));
  return (region_sum(render_local(plus, 2), 0, x0, x1, y0, y1) - region_sum(render_local(minus, 2), 0, x0, x1, y0, y1)) / step;
}
// The forward derivative of the sum over [x0, x1) x [y0, y1) by one scalar, and its central
// differences at h and h/2 (`spp` samples), each the mean over seeds 1, 2 and 3.
struct ForwardAndDifferences {
  double fwd = 0, fd = 0, fd_half = 0;
};
inline ForwardAndDifferences forward_and_differences(const Scene& scene, Slot slot, float h, int x0, int x1, int y0, int y1,
                                                     int spp) {
  RenderOutputs out;
  out.wrt = {slot};
  ForwardAndDifferences r;
  for (uint64_t seed : {1, 2, 3}) {
    Scene s = scene;
    s.render.seed = seed;
    r.fwd += region_sum(render_local(s, 2, out), out.derivative_channel(0), x0, x1, y0, y1) / 3;
    r.fd += region_difference(scene, slot, h, x0, x1, y0, y1, seed, spp) / 3;
    r.fd_half += region_difference(scene, slot, h / 2, x0, x1, y0, y1, seed, spp) / 3;
  }
  return r;
}

// The same over columns [x0, x1) of the 48 rows of the shadow scene.
inline double region_difference(const Scene& scene, Slot slot, float h, int x0, int x1, uint64_t seed, int spp = 256) {
  return region_difference(scene, slot, h, x0, x1, 0, 48, seed, spp);
}

// The shadow's boundary+interior derivative by `name`, summed over each image half (each holds
// one of the shadow's side edges), against central differences at h and h/2 (steps moving the
// edge about 1 and 0.5 pixels), all over 3 seeds: agreement within `tol`.
inline void check_shadow_halves(const Scene& scene, const char* name, float h, double tol) {
  const Slot slot = slot_of(scene, name);
  RenderOutputs out;
  out.wrt = {slot};
  for (auto [x0, x1] : {std::pair{0, 32}, std::pair{32, 64}}) {
    double fwd = 0, fd = 0, fd_half = 0;
    for (uint64_t seed : {1, 2, 3}) {
      Scene s = scene;
      s.render.seed = seed;
      fwd += region_sum(render_local(s, 2, out), out.derivative_channel(0), x0, x1, 0, 48) / 3;
      fd += region_difference(scene, slot, h, x0, x1, seed) / 3;
      fd_half += region_difference(scene, slot, h / 2, x0, x1, seed) / 3;
    }
    INFO(name << ", columns " << x0 << "-" << x1 << ": boundary+interior " << fwd << ", differences " << fd << " (h), "
              << fd_half << " (h/2)");
    CHECK(fwd == Approx(fd).epsilon(tol));
    CHECK(fd_half == Approx(fd).epsilon(tol));
  }
}

}  // namespace dray::testing
