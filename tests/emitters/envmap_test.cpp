// envmap: Mitsuba's equirectangular mapping (and rotate_y) both ways; importance sampling χ² against
// its pdf; a diffuse sphere under a constant map and a plane under a sky-only map against closed
// forms; the radiance's derivative by a texel and by scale; the loader.
#include <catch2/catch.hpp>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/chi2.h"

using namespace dray;
using nlohmann::json;

namespace {

json sky_scene(const json& envmap, const json& shapes, int spp = 64) {
  return {{"camera", {{"origin", {0, 0.5, 4}}, {"target", {0, 0, 0}}, {"fov_y", 30}, {"width", 24}, {"height", 24}}},
          {"render", {{"spp", spp}, {"max_depth", 4}, {"seed", 1}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", 0.6}}}}},
          {"shapes", shapes},
          {"lights", {envmap}}};
}

// A 16×8 map: a smooth gradient, one bright texel, and a dark row.
Scene test_map(float rotate_deg) {
  json doc = sky_scene({{"name", "sky"}, {"type", "envmap"}, {"width", 16}, {"height", 8}, {"value", 1}, {"rotate_y", rotate_deg}},
                       {{{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "m"}}});
  Scene s = load_scene(doc, "sky.json");
  const Slot data = s.params.find("lights.sky.data")->slot;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j)
      for (int c = 0; c < 3; ++c)
        s.params.set(data + Slot(3 * (i * 16 + j) + c), i == 5 ? 0.f : 0.2f + 0.1f * float(j % 5) + 0.05f * float(c) + (i == 2 && j == 11 ? 30.f : 0.f));
  s.refresh_tables();
  return s;
}

}  // namespace

namespace {

// The image mean of scene p once its 64 x 64 map "sky" is dark below the map's horizon (rows 32 on).
double mean_dark_below(Scene p) {
  const Slot data = p.params.find("lights.sky.data")->slot;
  for (int i = 32; i < 64; ++i)
    for (int k = 0; k < 64 * 3; ++k) p.params.set(data + Slot(i * 64 * 3 + k), 0.f);
  p.refresh_tables();
  const Image im = render_local(p, 2);
  double m = 0.;
  for (float v : im.data) m += v / double(im.data.size());
  return m;
}

}  // namespace

TEST_CASE("envmap: Mitsuba's mapping, y up, u = atan2(x, -z) / 2pi, and rotate_y", "[envmap]") {
  EnvMap e;
  CHECK(envmap_uv(e, {0, 1, 0}).y == Approx(0.f).margin(1e-6));   // +y: the top row
  CHECK(envmap_uv(e, {0, -1, 0}).y == Approx(1.f));               // -y: the bottom
  CHECK(envmap_uv(e, {0, 0, -1}).x == Approx(0.f).margin(1e-6));  // -z: u = 0
  CHECK(envmap_uv(e, {1, 0, 0}).x == Approx(0.25f));
  for (float rot : {0.f, 0.7f})
    for (glm::vec2 uv : {glm::vec2(0.1f, 0.3f), glm::vec2(0.6f, 0.8f), glm::vec2(0.95f, 0.5f)}) {
      e.rotate_y = rot;
      const glm::vec2 back = envmap_uv(e, envmap_direction(e, uv));
      CHECK(back.x == Approx(uv.x).epsilon(1e-4));
      CHECK(back.y == Approx(uv.y).epsilon(1e-4));
    }
  e.rotate_y = kPi / 2;  // turned a quarter about +y: what was seen toward -z is now seen toward... +x or -x
  CHECK(std::fabs(envmap_direction(e, {0.f, 0.5f}).x) == Approx(1.f));
}

TEST_CASE("envmap: samples follow the pdf (chi2), rotated or not, turned Z-up", "[envmap]") {
  for (float rot : {0.f, 40.f, -1.f}) {  // -1: a Z-up matrix instead (the pdf's sin θ about the map's up)
    Scene s = test_map(rot < 0.f ? 0.f : rot);
    if (rot < 0.f) {
      std::get<EnvMapEmitter>(s.lights[0].model).env.to_world = glm::mat3(glm::vec3(1, 0, 0), glm::vec3(0, 0, 1), glm::vec3(0, -1, 0));
      std::get<EnvMapEmitter>(s.lights[0].model).env.rotated = true;
    }
    const EnvMap& e = std::get<EnvMapEmitter>(s.lights[0].model).env;
    auto draw = [&](Sampler& sampler) {
      float pdf;
      const float u1 = sampler.next(), u2 = sampler.next();
      const glm::vec3 d = sample_envmap(e, u1, u2, pdf);
      return pdf > 0.f ? test::Chi2Draw{test::Chi2Draw::direction, d} : test::Chi2Draw{};
    };
    auto pdf = [&](const glm::vec3& d) { return double(envmap_pdf(e, d)); };
    const test::Chi2Result r = test::chi2_sphere(draw, pdf, false, 3);
    INFO("rotate_y " << rot << ": chi2 " << r.statistic << " dof " << r.dof << " p " << r.p_value);
    CHECK(r.dof > 50);
    CHECK(r.p_value > 0.005);
    // The dark row is never drawn, the bright texel often.
    Sampler sampler(1, 2, 3);
    int dark = 0;
    for (int i = 0; i < 100000; ++i) {
      float p;
      const float u1 = sampler.next(), u2 = sampler.next();
      const glm::vec2 uv = envmap_uv(e, sample_envmap(e, u1, u2, p));
      dark += int(uv.y * 8.f) == 5;
    }
    CHECK(dark == 0);
  }
}

TEST_CASE("envmap: furnace of a constant map, and a plane under a sky that is bright above only", "[envmap]") {
  // A diffuse sphere under a constant map of 2 x scale 0.5: albedo x 1, as the constant environment.
  json doc = sky_scene({{"name", "sky"}, {"type", "envmap"}, {"width", 32}, {"height", 16}, {"value", 2}, {"scale", 0.5}},
                       {{{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "m"}}}, 256);
  const Scene s = load_scene(doc, "sky.json");
  const Image img = render_local(s, 2);
  CHECK(img.pixel(12, 12)[0] == Approx(0.6f).epsilon(0.05));  // the sphere's centre
  double mean = 0.;
  int n = 0;
  for (int y = 9; y < 15; ++y)
    for (int x = 9; x < 15; ++x) mean += img.pixel(x, y)[1], ++n;
  CHECK(mean / n == Approx(0.6).epsilon(0.01));
  CHECK(img.pixel(0, 0)[2] == 1.f);  // the sky itself

  // Radiance 1 above the horizon, 0 below: an upward plane receives π, reflects 0.6 (up to the
  // half-texel blend at the horizon, < 0.1%).
  json plane = sky_scene({{"name", "sky"}, {"type", "envmap"}, {"width", 64}, {"height", 64}, {"value", 1}},
                         {{{"type", "quad"}, {"corner", {-50, 0, 50}}, {"edge_u", {100, 0, 0}}, {"edge_v", {0, 0, -100}}, {"material", "m"}}}, 512);
  plane["camera"] = {{"origin", {0, 3, 0.01}}, {"target", {0, 0, 0}}, {"fov_y", 10}, {"width", 8}, {"height", 8}};
  plane["render"]["max_depth"] = 1;
  Scene p = load_scene(plane, "plane.json");
  CHECK(mean_dark_below(p) == Approx(0.6).epsilon(0.01));
}

TEST_CASE("envmap: a Z-up to_world (its matrix) turns the map's +y to the world's +z", "[envmap]") {
  // The map bright above its horizon only, turned a quarter about x: a floor facing +z receives
  // pi (reflects albedo 0.6), as the upward plane does unturned; unturned it would receive half.
  const json zup = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
  json floor = sky_scene({{"name", "sky"}, {"type", "envmap"}, {"width", 64}, {"height", 64}, {"value", 1}, {"matrix", zup}},
                         {{{"type", "quad"}, {"corner", {-50, -50, 0}}, {"edge_u", {100, 0, 0}}, {"edge_v", {0, 100, 0}}, {"material", "m"}}}, 512);
  floor["camera"] = {{"origin", {0, 0.01, 3}}, {"target", {0, 0, 0}}, {"fov_y", 10}, {"width", 8}, {"height", 8}};
  floor["render"]["max_depth"] = 1;
  Scene p = load_scene(floor, "floor.json");
  CHECK(envmap_uv(std::get<EnvMapEmitter>(p.lights[size_t(p.environment)].model).env, {0, 0, 1}).y == Approx(0).margin(1e-6));  // world up: the top row
  CHECK(mean_dark_below(p) == Approx(0.6).epsilon(0.01));
  // Not a rotation: refused.
  json scaled = floor;
  scaled["lights"][0]["matrix"] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1};
  CHECK_THROWS_WITH(load_scene(scaled, "s.json"), Catch::Contains("an envmap's matrix must be a rotation"));
}

TEST_CASE("envmap: derivatives of the radiance by a texel and by scale", "[envmap]") {
  Scene s = test_map(0.f);
  const glm::vec3 d = glm::normalize(glm::vec3(0.3f, 0.4f, -0.8f));
  const glm::vec2 uv = envmap_uv(std::get<EnvMapEmitter>(s.lights[0].model).env, d);
  // The texel below and left of uv's sample point: weight (1 - wx)(1 - wy); u texel-centred, v
  // corner-aligned (Mitsuba's).
  const float x = uv.x * 16.f - 0.5f, y = uv.y * 7.f;
  const int j = int(std::floor(x)), i = int(std::floor(y));
  const float w = (1.f - (x - float(j))) * (1.f - (y - float(i)));
  const Slot texel = resolve_scalars(s.params, {"lights.sky.data[" + std::to_string(i) + "," + std::to_string(j) + ",1]"})[0].slot;
  std::vector<int> seeds(s.params.values().size(), -1);
  seeds[texel] = 0;
  seeds[s.params.find("lights.sky.scale")->slot] = 1;
  using D = ad::Dual<4>;  // two of its tangents seeded (the kernel is compiled for Dual<1>, <4> and <8>)
  const ParamView<D> P(s.params, seeds.data());
  Sampler sampler(0, 0, 0);
  // A ray that misses the sphere: the sky's radiance along it.
  const Vec3<D> L = radiance(s, P, RayT<D>{Vec3<D>(glm::vec3(0, 3, 0)), Vec3<D>(d)}, sampler);
  CHECK(L.y.d[0] == Approx(w).epsilon(1e-5));
  CHECK(L.x.d[0] == 0.f);
  CHECK(L.y.d[1] == Approx(L.y.v).epsilon(1e-5));  // scale 1: dL/dscale = L
}

TEST_CASE("envmap: loader errors", "[envmap]") {
  auto doc = [](const json& l) { return sky_scene(l, {{{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "m"}}}); };
  CHECK_THROWS_WITH(load_scene(doc({{"type", "envmap"}}), "s.json"), Catch::Contains("/lights/0/filename: required"));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "envmap"}, {"filename", "nope.exr"}}), "s.json"), Catch::Contains("/lights/0/filename:") && Catch::Contains("no such file"));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "envmap"}, {"width", 4}, {"height", 2}, {"scale", -1}}), "s.json"), Catch::Contains("/lights/0/scale: must be > 0"));
  const Scene s = load_scene(doc({{"name", "sky"}, {"type", "envmap"}, {"width", 4}, {"height", 2}}), "s.json");
  CHECK(s.params.find("lights.sky.data")->shape == std::vector<uint32_t>{2, 4, 3});
}
