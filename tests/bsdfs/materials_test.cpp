// Materials in scenes: a glass sphere in a uniform environment leaves it unchanged (furnace);
// masks let (1 - opacity) of the light through, shadows included, with opacity's derivative;
// twosided shades each side with its own BSDF; the loader's names and errors.
#include <catch2/catch.hpp>

#include <cmath>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;

namespace {

json plane_doc(const json& materials, const json& extra_shapes, const json& lights) {
  json shapes = {{{"name", "plane"}, {"type", "quad"}, {"corner", {-10, 0, -10}}, {"edge_u", {0, 0, 20}},
                  {"edge_v", {20, 0, 0}}, {"material", "m"}}};
  for (const auto& s : extra_shapes) shapes.push_back(s);
  return {{"camera", {{"origin", {0, 5, 5}}, {"target", {0, 0, 0}}}},
          {"render", {{"max_depth", 1}}},
          {"materials", materials},
          {"shapes", shapes},
          {"lights", lights}};
}

template <class T>
Vec3<T> trace(const Scene& s, const ParamView<T>& P, glm::vec3 o, glm::vec3 d) {
  Sampler sampler(0, 0, 0);
  return radiance(s, P, RayT<T>{Vec3<T>(o), Vec3<T>(glm::normalize(d))}, sampler);
}

}  // namespace

TEST_CASE("furnace: a smooth glass sphere in a uniform environment leaves the environment unchanged", "[materials]") {
  for (const char* ior : {"bk7", "diamond"}) {
    json doc = {
        {"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}, {"fov_y", 35}, {"width", 32}, {"height", 32}}},
        {"render", {{"spp", 64}, {"max_depth", 64}, {"seed", 2}}},
        {"materials", {{"glass", {{"type", "dielectric"}, {"int_ior", ior}}}}},
        {"shapes", {{{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "glass"}}}},
        {"lights", {{{"type", "environment"}, {"radiance", {1.0, 0.5, 2.0}}}}}};
    const Scene s = load_scene(doc, "glass.json");
    const Image img = render_local(s, 2);
    glm::dvec3 mean(0.);
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x)
        for (int c = 0; c < 3; ++c) mean[c] += img.pixel(x, y)[c] / (32. * 32.);
    INFO(ior << ": mean " << mean.x << " " << mean.y << " " << mean.z);
    // Every path ends in the environment with weight 1 in expectation: (n_i/n_t)² in and out cancel;
    // Russian roulette and depth 64 lose < 0.5% (the sphere is 60% of the image).
    CHECK(mean.x == Approx(1.0).epsilon(0.01));
    CHECK(mean.y == Approx(0.5).epsilon(0.01));
    CHECK(mean.z == Approx(2.0).epsilon(0.01));
  }
}

TEST_CASE("a mask passes 1 - opacity of the light, in shadows too, and opacity's derivative", "[materials]") {
  const float rho = 0.5f, op = 0.3f;
  const glm::vec3 E(2.f);
  json mats = {{"m", {{"type", "diffuse"}, {"reflectance", rho}}},
               {"lace", {{"type", "mask"}, {"opacity", op}, {"bsdf", {{"type", "diffuse"}, {"reflectance", 0.0}}}}}};
  // A horizontal mask at y = 1 over x in [-1, 1]: it shadows the plane below it from the sun overhead.
  json blocker = {{{"name", "lace"}, {"type", "quad"}, {"corner", {-1, 1, -1}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 0, 2}},
                   {"material", "lace"}}};
  json sun = {{{"name", "sun"}, {"type", "directional"}, {"direction", {0, -1, 0}}, {"irradiance", {E.x, E.y, E.z}}}};
  const Scene s = load_scene(plane_doc(mats, blocker, sun), "mask.json");
  REQUIRE(s.has_masks);
  const glm::vec3 lit = rho / kPi * E;
  // Seen from the side (the camera ray does not cross the mask): the shadow passes 1 - opacity.
  const glm::vec3 in_shadow = value(trace(s, ParamView<float>(s.params), {4, 0.5f, 0}, {-4, -0.5f, 0}));
  const glm::vec3 outside = value(trace(s, ParamView<float>(s.params), {6, 0.5f, 0}, {-3, -0.5f, 0}));
  for (int c = 0; c < 3; ++c) {
    CHECK(in_shadow[c] == Approx((1.f - op) * lit[c]).epsilon(1e-5));
    CHECK(outside[c] == Approx(lit[c]).epsilon(1e-5));
  }
  // d/d opacity of the shadowed point: -lit.
  std::vector<int> seeds(s.params.values().size(), -1);
  seeds[s.params.find("materials.lace.opacity")->slot] = 0;
  const Vec3<ad::Dual<1>> d = trace(s, ParamView<ad::Dual<1>>(s.params, seeds.data()), {4, 0.5f, 0}, {-4, -0.5f, 0});
  CHECK(d.x.d[0] == Approx(-lit.x).epsilon(1e-5));
  // Looking through the mask (a black surface): the plane behind, scaled by 1 - opacity on average.
  json doc = plane_doc(mats, blocker, sun);
  doc["camera"] = {{"origin", {0, 4, 0.01}}, {"target", {0, 0, 0}}, {"fov_y", 10}, {"width", 8}, {"height", 8}};
  doc["render"] = {{"spp", 4096}, {"max_depth", 2}};
  const Image img = render_local(load_scene(doc, "mask.json"), 2);
  double mean = 0.;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) mean += img.pixel(x, y)[0] / 64.;
  // Through the mask (1 - op) and in its shadow (1 - op): (1 - op)² of the lit plane.
  CHECK(mean == Approx((1.f - op) * (1.f - op) * lit.x).epsilon(0.01));
}

TEST_CASE("null: no surface to light, seen through or from the side", "[materials]") {
  const float rho = 0.5f;
  const glm::vec3 E(2.f);
  json mats = {{"m", {{"type", "diffuse"}, {"reflectance", rho}}}, {"ghost", {{"type", "null"}}}};
  json blocker = {{{"name", "ghost"}, {"type", "quad"}, {"corner", {-1, 1, -1}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 0, 2}},
                   {"material", "ghost"}}};
  json sun = {{{"name", "sun"}, {"type", "directional"}, {"direction", {0, -1, 0}}, {"irradiance", {E.x, E.y, E.z}}}};
  json doc = plane_doc(mats, blocker, sun);
  doc["render"]["max_depth"] = 2;  // crossing it takes a vertex, as in Mitsuba's path
  const Scene s = load_scene(doc, "null.json");
  const glm::vec3 lit = rho / kPi * E;
  // Under it (its shadow would be here) and looking down through it: the plane, fully lit.
  const glm::vec3 under = value(trace(s, ParamView<float>(s.params), {4, 0.5f, 0}, {-4, -0.5f, 0}));
  const glm::vec3 through = value(trace(s, ParamView<float>(s.params), {0.2f, 3, 0.1f}, {0, -1, 0}));
  for (int c = 0; c < 3; ++c) {
    CHECK(under[c] == Approx(lit[c]).epsilon(1e-5));
    CHECK(through[c] == Approx(lit[c]).epsilon(1e-5));
  }
  doc["materials"]["ghost"]["reflectance"] = 1;
  CHECK_THROWS_WITH(load_scene(doc, "null.json"), Catch::Contains("/materials/ghost/reflectance: unknown key"));
}

TEST_CASE("a textured mask's opacity is its texture's luminance, with the texels' derivative", "[materials]") {
  // Mitsuba's mask over a bitmap: opacity = 0.212671 r + 0.715160 g + 0.072169 b (its eval_1).
  const glm::vec3 t(0.2f, 0.4f, 0.9f);
  const float op = 0.212671f * t.x + 0.715160f * t.y + 0.072169f * t.z, rho = 0.5f;
  json mats = {{"m", {{"type", "diffuse"}, {"reflectance", rho}}},
               {"lace", {{"type", "mask"},
                         {"opacity", {{"type", "bitmap"}, {"width", 2}, {"height", 2}, {"value", {t.x, t.y, t.z}}, {"raw", true}}},
                         // a mask over a twosided (Mitsuba's leaves): both sides black
                         {"bsdf", {{"type", "twosided"}, {"bsdf", {{"type", "diffuse"}, {"reflectance", 0.0}}}}}}}};
  json blocker = {{{"name", "lace"}, {"type", "quad"}, {"corner", {-1, 1, -1}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 0, 2}},
                   {"material", "lace"}}};
  json sun = {{{"name", "sun"}, {"type", "directional"}, {"direction", {0, -1, 0}}, {"irradiance", 2}}};
  const Scene s = load_scene(plane_doc(mats, blocker, sun), "mask.json");
  REQUIRE(s.has_masks);
  const float lit = rho / kPi * 2.f;
  const glm::vec3 in_shadow = value(trace(s, ParamView<float>(s.params), {4, 0.5f, 0}, {-4, -0.5f, 0}));
  CHECK(in_shadow.x == Approx((1.f - op) * lit).epsilon(1e-5));
  // Raising every texel's green by dθ raises the opacity by 0.715160 dθ (bilinear weights sum to 1).
  std::vector<int> seeds(s.params.values().size(), -1);
  const auto block = s.params.find("textures.lace.opacity.data");
  REQUIRE(block);
  for (size_t k = 0; k < 4; ++k) seeds[block->slot + k * 3 + 1] = 0;
  const Vec3<ad::Dual<1>> d = trace(s, ParamView<ad::Dual<1>>(s.params, seeds.data()), {4, 0.5f, 0}, {-4, -0.5f, 0});
  CHECK(d.x.d[0] == Approx(-0.715160f * lit).epsilon(1e-4));
}

TEST_CASE("twosided: each side shaded by its own BSDF; one BSDF is both sides", "[materials]") {
  json mats = {{"m", {{"type", "twosided"},
                      {"bsdf", {{{"type", "diffuse"}, {"reflectance", {0.8, 0.1, 0.1}}},
                                {{"type", "diffuse"}, {"reflectance", {0.1, 0.8, 0.1}}}}}}}};
  // The plane's front (edge_u x edge_v) faces +y; a sun above lights it, one below its back.
  json suns = {{{"name", "above"}, {"type", "directional"}, {"direction", {0, -1, 0}}, {"irradiance", 1}},
               {{"name", "below"}, {"type", "directional"}, {"direction", {0, 1, 0}}, {"irradiance", 1}}};
  const Scene s = load_scene(plane_doc(mats, json::array(), suns), "two.json");
  const ParamView<float> P(s.params);
  // Each sun is picked with probability 1/2 and weighted by 2: one path sees exactly one of them.
  for (int k = 0; k < 16; ++k) {
    Sampler sampler(1, 0, uint64_t(k));
    const glm::vec3 top = value(radiance(s, P, RayT<float>{Vec3<float>(glm::vec3(0, 3, 0)), Vec3<float>(glm::vec3(0, -1, 0))}, sampler));
    const glm::vec3 bottom = value(radiance(s, P, RayT<float>{Vec3<float>(glm::vec3(0, -3, 0)), Vec3<float>(glm::vec3(0, 1, 0))}, sampler));
    CHECK((top == glm::vec3(0.f) || top.x == Approx(2 * 0.8f / kPi).epsilon(1e-5)));
    CHECK((bottom == glm::vec3(0.f) || bottom.y == Approx(2 * 0.8f / kPi).epsilon(1e-5)));
    if (top != glm::vec3(0.f)) CHECK(top.y == Approx(2 * 0.1f / kPi).epsilon(1e-5));
  }
  CHECK(s.params.find("materials.m.brdf_0.reflectance"));
  CHECK(s.params.find("materials.m.brdf_1.reflectance"));
}

TEST_CASE("material loader: Mitsuba names and defaults, and errors that say where", "[materials]") {
  auto doc = [](const json& m) {
    return json{{"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}}},
                {"materials", {{"x", m}}},
                {"shapes", {{{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "x"}}}}};
  };
  const Scene g = load_scene(doc({{"type", "dielectric"}, {"int_ior", "water"}}), "s.json");
  CHECK(g.params.get(g.params.find("materials.x.int_ior")->slot) == Approx(1.333f));
  CHECK(g.params.get(g.params.find("materials.x.ext_ior")->slot) == Approx(1.000277f));
  const Scene au = load_scene(doc({{"type", "roughconductor"}, {"material", "Au"}, {"distribution", "ggx"}}), "s.json");
  CHECK(au.params.get(au.params.find("materials.x.alpha")->slot) == Approx(0.1f));  // Mitsuba's default
  CHECK(au.params.get_vec3(au.params.find("materials.x.k")->slot).x == Approx(3.983f).epsilon(1e-3));
  const Scene pl = load_scene(doc({{"type", "plastic"}}), "s.json");
  CHECK(pl.params.get(pl.params.find("materials.x.int_ior")->slot) == Approx(1.49f));
  CHECK(pl.params.get_vec3(pl.params.find("materials.x.diffuse_reflectance")->slot).x == Approx(0.5f));

  CHECK_THROWS_WITH(load_scene(doc({{"type", "dielectric"}, {"int_ior", "glas"}}), "s.json"),
                    Catch::Contains("s.json: /materials/x/int_ior: unknown index of refraction \"glas\""));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "conductor"}, {"material", "Gold"}}), "s.json"),
                    Catch::Contains("/materials/x/material: unknown conductor \"Gold\" (one of: none, a-C, Ag, Al, AlAs"));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "roughconductor"}, {"alpha", 0.1}, {"alpha_u", 0.2}, {"alpha_v", 0.1}}), "s.json"),
                    Catch::Contains("/materials/x/alpha: give either alpha or alpha_u and alpha_v"));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "roughconductor"}, {"alpha_u", 0.2}}), "s.json"),
                    Catch::Contains("/materials/x/alpha_v: required with alpha_u"));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "roughconductor"}, {"distribution", "phong"}}), "s.json"),
                    Catch::Contains("/materials/x/distribution: must be \"beckmann\" or \"ggx\""));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "twosided"}, {"bsdf", {{"type", "dielectric"}}}}), "s.json"),
                    Catch::Contains("/materials/x/bsdf/type: twosided wraps reflecting materials only"));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "mask"}, {"opacity", 0}, {"bsdf", {{"type", "diffuse"}}}}), "s.json"),
                    Catch::Contains("/materials/x/opacity: must be in (0, 1], got 0"));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "plastic"}, {"roughness", 0.1}}), "s.json"),
                    Catch::Contains("/materials/x/roughness: unknown key"));
  CHECK_THROWS_WITH(load_scene(doc({{"type", "velvet"}}), "s.json"), Catch::Contains("unknown material type \"velvet\""));
}
