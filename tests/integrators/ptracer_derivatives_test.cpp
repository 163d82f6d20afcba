// The particle tracer's derivatives (renderer/integrators/ptracer_derivatives.cpp) on
// scenes/lens.json: collimated light through a glass plate whose exit face is a vertex grid,
// landing on a diffuse floor. Forward and reverse mode against each other, against closed forms
// (the Fresnel transmission of the plate, the floor's albedo) and against central differences
// with the same random numbers, region-integrated (a ramp-weighted sum of the whole image, which
// holds the whole moving edge of the caustic), at h and h/2, over three seeds; bitwise across
// thread counts; refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "renderer/integrators/ptracer.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "renderer/scene_params.h"
#include "tests/integrators/lens_scenes.h"

using namespace dray;

namespace {

Scene lens(int spp, uint64_t seed = 1, std::vector<std::string> more = {}) { return lens_scene("lens.json", spp, seed, std::move(more)); }

}  // namespace

TEST_CASE("ptracer: forward and reverse mode agree, chunk by chunk and thread by thread", "[ptracer][derivatives]") {
  const Scene s = lens(16);
  const std::vector<std::string> names = {"materials.glass.int_ior", "shapes.lens.rotate_x", "shapes.lens.rotate_z",
                                          "shapes.lens.vertices[6,1]", "shapes.lens.vertices[7,1]",
                                          "materials.white.reflectance[0]"};
  RenderOutputs outputs;
  outputs.wrt = slots_of(s, names);
  const Image forward = render_local(s, 2, outputs);
  const Image image = render_local(s, 2);
  const Image g = ramp();
  const std::vector<double> rev = reverse(s, g, outputs.wrt, 2);
  for (size_t k = 0; k < names.size(); ++k) {
    INFO(names[k]);
    const double fwd = weighted(forward, g, outputs.derivative_channel(k));
    CHECK(std::abs(rev[k] - fwd) <= 1e-5 * std::abs(fwd) + 1e-9);
    CHECK(std::abs(fwd) > 1e-6);  // each parameter moves the image
    // One parameter alone (Dual<1>) gives the derivative image the batch of six (Dual<8>) gave.
    RenderOutputs one;
    one.wrt = {outputs.wrt[k]};
    const Image alone = render_local(s, 1, one);
    bool same = true;
    for (int y = 0; y < kSize; ++y)
      for (int x = 0; x < kSize; ++x)
        for (int c = 0; c < 3; ++c) same = same && alone.pixel(x, y)[3 + c] == forward.pixel(x, y)[outputs.derivative_channel(k) + c];
    CHECK(same);
  }
  // The value channels are the image's, bitwise.
  bool values = true;
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x)
      for (int c = 0; c < 3; ++c) values = values && forward.pixel(x, y)[c] == image.pixel(x, y)[c];
  CHECK(values);
  // Exact sums: the gradient is bitwise the same on 1 thread and on 2.
  CHECK(reverse(s, g, outputs.wrt, 1) == rev);
}

TEST_CASE("ptracer: the plate's Fresnel transmission and the floor's albedo in closed form", "[ptracer][derivatives]") {
  // Every light path meets both faces at normal incidence and carries (1 - R)² of the light,
  // R = ((n - 1) / (n + 1))²: d image / dn = image · -2 R'(n) / (1 - R), R' = 4 (n - 1) / (n + 1)³.
  const Scene s = lens(8);
  RenderOutputs outputs;
  outputs.wrt = slots_of(s, {"materials.glass.int_ior", "materials.white.reflectance[0]"});
  const Image out = render_local(s, 2, outputs);
  const double n = 1.5, r = std::pow((n - 1) / (n + 1), 2), dr = 4 * (n - 1) / std::pow(n + 1, 3);
  double image = 0, red = 0, d_ior = 0, d_red = 0;
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) {
      const float* p = out.pixel(x, y);
      image += p[0] + p[1] + p[2];
      red += p[0];
      d_ior += p[outputs.derivative_channel(0)] + p[outputs.derivative_channel(0) + 1] + p[outputs.derivative_channel(0) + 2];
      d_red += p[outputs.derivative_channel(1)];
    }
  REQUIRE(image > 0);
  CHECK(d_ior / image == Approx(-2 * dr / (1 - r)).epsilon(1e-4));
  CHECK(d_red / red == Approx(1 / 0.8).epsilon(1e-5));  // the image is linear in the floor's albedo
}

TEST_CASE("ptracer: derivatives against central differences with the same light paths", "[ptracer][derivatives]") {
  // Turning the exit face about z deflects the beam across x; tilting one vertex bends a corner of
  // the caustic. The ramp-weighted sum holds every moving edge of the caustic.
  const Image g = ramp();
  for (const std::pair<std::string, double>& param : {std::pair<std::string, double>{"shapes.lens.rotate_z", 0.0}, {"shapes.lens.vertices[6,1]", 0.0}}) {
    const std::string& name = param.first;  // (named, not bound: clang 14 captures no structured binding)
    const double value = param.second;
    for (double h : {0.5, 0.25}) {
      double ad_sum = 0, fd_sum = 0, fd_sq = 0;
      const int seeds = 3;
      for (int seed = 1; seed <= seeds; ++seed) {
        const Scene s = lens(32, uint64_t(seed));
        RenderOutputs outputs;
        outputs.wrt = slots_of(s, {name});
        ad_sum += weighted(render_local(s, 2, outputs), g, outputs.derivative_channel(0));
        auto at = [&](double v) {
          Scene moved = lens(32, uint64_t(seed));
          update_params(moved, {{name, {float(v)}}});
          return render_local(moved, 2);
        };
        const Image plus = at(value + h * 1e-2), minus = at(value - h * 1e-2);
        const double fd = (weighted(plus, g) - weighted(minus, g)) / (2 * h * 1e-2);
        fd_sum += fd;
        fd_sq += fd * fd;
      }
      const double fd_mean = fd_sum / seeds, ad_mean = ad_sum / seeds;
      const double stderr_fd = std::sqrt(std::max(0.0, fd_sq / seeds - fd_mean * fd_mean) / (seeds - 1));
      INFO(name << " h " << h * 1e-2 << ": AD " << ad_mean << ", FD " << fd_mean << " +- " << stderr_fd);
      WARN(name << " h " << h * 1e-2 << ": AD " << ad_mean << ", FD " << fd_mean << " +- " << stderr_fd);
      CHECK(std::abs(ad_mean - fd_mean) <= 0.02 * std::abs(fd_mean) + 3 * stderr_fd);
      CHECK(std::abs(fd_mean) > 1e-3);
    }
  }
}

TEST_CASE("ptracer: what light paths cannot differentiate is refused", "[ptracer][derivatives]") {
  const Scene s = lens(1);
  for (const std::string name : {"materials.lamp.emission[0]", "shapes.lamp.corner[0]", "camera.origin[0]"}) {
    INFO(name);
    RenderOutputs outputs;
    outputs.wrt = slots_of(s, {name});
    CHECK_THROWS_WITH(render_local(s, 1, outputs), Catch::Contains("integrator ptracer: no derivatives by"));
  }
  const Scene thin = lens(1, 1, {"camera.type=thinlens", "camera.aperture_radius=0.1", "camera.focus_distance=2"});
  RenderOutputs outputs;
  outputs.wrt = slots_of(thin, {"materials.glass.int_ior"});
  CHECK_THROWS_WITH(render_local(thin, 1, outputs), Catch::Contains("no derivatives through a thin lens"));
  outputs.wrt = slots_of(s, {"materials.glass.int_ior"});
  outputs.variance = true;
  CHECK_THROWS_WITH(render_local(s, 1, outputs), Catch::Contains("no variance"));
}
