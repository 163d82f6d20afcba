// Closed forms of the lights that sit at a point or a direction, on a diffuse plane: a point
// light's I cos / r² (direct and with more bounces), a directional light's irradiance × cos, a spot
// light's linear falloff in angle and its projected texture, with their derivatives.
#include <catch2/catch.hpp>

#include <cmath>

#include <glm/vec2.hpp>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;

TEST_CASE("direct light from a point light on a plane matches the closed form", "[integrator]") {
  const float rho = 0.6f, h = 2.f;
  const glm::vec3 I(10.f, 20.f, 30.f);
  for (int max_depth : {1, 5}) {
    json doc = {
        {"camera", {{"origin", {0, 5, 5}}, {"target", {0, 0, 0}}}},
        {"render", {{"max_depth", max_depth}}},
        {"materials", {{"m", {{"type", "diffuse"}, {"albedo", rho}}}}},
        {"shapes",
         {{{"type", "quad"}, {"corner", {-10, 0, -10}}, {"edge_u", {20, 0, 0}}, {"edge_v", {0, 0, 20}}, {"material", "m"}}}},
        {"lights", {{{"type", "point"}, {"position", {0, h, 0}}, {"intensity", {I.x, I.y, I.z}}}}}};
    Scene s = load_scene(doc, "plane.json");
    ParamView<float> P(s.params);
    for (glm::vec2 xz : {glm::vec2(0, 0), glm::vec2(1, 0), glm::vec2(-2.5f, 1.5f), glm::vec2(4, -7)}) {
      // Straight down, and obliquely: the view direction must not matter for a diffuse surface.
      for (glm::vec3 from : {glm::vec3(0, 5, 0), glm::vec3(3, 4, -1)}) {
        glm::vec3 target(xz.x, 0.f, xz.y);
        RayT<float> ray{Vec3<float>(target + from), normalize(Vec3<float>(-from))};
        Sampler sampler(0, 0, 0);
        glm::vec3 L = value(radiance(s, P, ray, sampler));
        float r2 = xz.x * xz.x + xz.y * xz.y + h * h;
        float cos = h / std::sqrt(r2);
        glm::vec3 expect = rho / kPi * I * cos / r2;
        INFO("max_depth " << max_depth << " at (" << xz.x << ", " << xz.y << ")");
        for (int k = 0; k < 3; ++k) CHECK(L[k] == Approx(expect[k]).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("direct light from a directional light on a plane: irradiance x cos x albedo / pi, and its derivatives", "[integrator]") {
  const float rho = 0.6f;
  const glm::vec3 E(1.f, 2.f, 3.f), dir(0.3f, -1.f, 0.2f);
  json doc = {{"camera", {{"origin", {0, 5, 5}}, {"target", {0, 0, 0}}}},
              {"render", {{"max_depth", 1}}},
              {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", rho}}}}},
              {"shapes", {{{"type", "quad"}, {"corner", {-10, 0, -10}}, {"edge_u", {20, 0, 0}}, {"edge_v", {0, 0, 20}}, {"material", "m"}}}},
              {"lights", {{{"name", "sun"}, {"type", "directional"}, {"direction", {dir.x, dir.y, dir.z}}, {"irradiance", {E.x, E.y, E.z}}}}}};
  Scene s = load_scene(doc, "plane.json");
  // The derivative by the direction's y: cos = -d_y / |d| with d = dir, d cos / d d_y = -(|d|² - d_y²) / |d|³.
  const Slot dy = s.params.find("lights.sun.direction")->slot + 1;
  std::vector<int> seeds(s.params.values().size(), -1);
  seeds[dy] = 0;
  ParamView<ad::Dual<1>> P(s.params, seeds.data());
  for (glm::vec2 xz : {glm::vec2(0, 0), glm::vec2(2, -3)}) {
    RayT<ad::Dual<1>> ray{Vec3<ad::Dual<1>>(glm::vec3(xz.x, 5, xz.y)), Vec3<ad::Dual<1>>(glm::vec3(0, -1, 0))};
    Sampler sampler(0, 0, 0);
    const Vec3<ad::Dual<1>> L = radiance(s, P, ray, sampler);
    const float len = glm::length(dir), cos = -dir.y / len, dcos = -(len * len - dir.y * dir.y) / (len * len * len);
    for (int k = 0; k < 3; ++k) {
      CHECK(L[k].v == Approx(rho / kPi * E[k] * cos).epsilon(1e-5));
      CHECK(L[k].d[0] == Approx(rho / kPi * E[k] * dcos).epsilon(1e-4));
    }
  }
  doc["lights"][0]["direction"] = {0, 0, 0};
  CHECK_THROWS_WITH(load_scene(doc, "plane.json"), Catch::Contains("/lights/0 (sun)/direction: must not be zero"));
}

TEST_CASE("a spot light on a plane: Mitsuba's linear falloff in angle, and its derivative by the cutoff angle", "[integrator]") {
  const float rho = 0.5f, h = 2.f, I = 30.f, cutoff = 30.f, beam = 10.f;
  json doc = {{"camera", {{"origin", {0, 5, 5}}, {"target", {0, 0, 0}}}},
              {"render", {{"max_depth", 1}}},
              {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", rho}}}}},
              {"shapes", {{{"type", "quad"}, {"corner", {-10, 0, -10}}, {"edge_u", {20, 0, 0}}, {"edge_v", {0, 0, 20}}, {"material", "m"}}}},
              {"lights", {{{"name", "s"}, {"type", "spot"}, {"position", {0, h, 0}}, {"target", {0, 0, 0}}, {"intensity", I},
                           {"cutoff_angle", cutoff}, {"beam_width", beam}}}}};
  Scene s = load_scene(doc, "plane.json");
  std::vector<int> seeds(s.params.values().size(), -1);
  seeds[s.params.find("lights.s.cutoff_angle")->slot] = 0;
  ParamView<ad::Dual<1>> P(s.params, seeds.data());
  // Points on the floor at angles 0, 5 (inside the beam), 20 (on the ramp) and 35 degrees (outside).
  for (float angle : {0.f, 5.f, 20.f, 35.f}) {
    const float x = h * std::tan(angle * kPi / 180.f);
    RayT<ad::Dual<1>> ray{Vec3<ad::Dual<1>>(glm::vec3(x, 5, 0)), Vec3<ad::Dual<1>>(glm::vec3(0, -1, 0))};
    Sampler sampler(0, 0, 0);
    const Vec3<ad::Dual<1>> L = radiance(s, P, ray, sampler);
    const float r2 = x * x + h * h, cos = h / std::sqrt(r2);
    const float falloff = angle <= beam ? 1.f : angle >= cutoff ? 0.f : (cutoff - angle) / (cutoff - beam);
    // d falloff / d cutoff on the ramp: (angle - beam) / (cutoff - beam)^2 (angles in degrees cancel).
    const float dfalloff = angle > beam && angle < cutoff ? (angle - beam) / ((cutoff - beam) * (cutoff - beam)) : 0.f;
    INFO("at " << angle << " degrees");
    CHECK(L[0].v == Approx(rho / kPi * I * falloff * cos / r2).epsilon(1e-4).margin(1e-9));
    CHECK(L[0].d[0] == Approx(rho / kPi * I * dfalloff * cos / r2).epsilon(1e-3).margin(1e-9));
  }
  doc["lights"][0]["beam_width"] = 30;
  CHECK_THROWS_WITH(load_scene(doc, "plane.json"), Catch::Contains("/lights/0 (s)/beam_width: must be in [0, cutoff_angle) = [0, 30), got 30"));
  doc["lights"][0]["target"] = {0, h, 0};
  CHECK_THROWS_WITH(load_scene(doc, "plane.json"), Catch::Contains("/lights/0 (s)/target: must differ from position"));
}

TEST_CASE("a spot light's texture: projected in its frame at Mitsuba's uv, differentiable in the texture", "[integrator]") {
  // Straight down from height h, up = +z: the light's x is +x and its y is +z, so the floor point
  // (x, 0, z) has uv = 0.5 + 0.5 (x, z) / (h tan cutoff). A checkerboard gives color0 where both
  // coordinates of uv lie on the same side of 0.5.
  const float rho = 0.5f, h = 2.f, I = 30.f, cutoff = 30.f;
  json doc = {{"camera", {{"origin", {0, 5, 5}}, {"target", {0, 0, 0}}}},
              {"render", {{"max_depth", 1}}},
              {"textures", {{"check", {{"type", "checkerboard"}, {"color0", {1.0, 0.5, 0.25}}, {"color1", 0.1}}}}},
              {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", rho}}}}},
              {"shapes", {{{"type", "quad"}, {"corner", {-10, 0, -10}}, {"edge_u", {20, 0, 0}}, {"edge_v", {0, 0, 20}}, {"material", "m"}}}},
              {"lights", {{{"name", "s"}, {"type", "spot"}, {"position", {0, h, 0}}, {"target", {0, 0, 0}}, {"up", {0, 0, 1}},
                           {"intensity", I}, {"cutoff_angle", cutoff}, {"beam_width", 29}, {"texture", "check"}}}}};
  Scene s = load_scene(doc, "plane.json");
  std::vector<int> seeds(s.params.values().size(), -1);
  for (int k = 0; k < 3; ++k) seeds[s.params.find("textures.check.color0")->slot + k] = 0;  // all three: one direction
  ParamView<ad::Dual<1>> P(s.params, seeds.data());
  const float a = 0.3f * h * std::tan(cutoff * kPi / 180.f);  // |u - 0.5| = 0.15
  for (auto [x, z, first] : {std::tuple{a, a, true}, {-a, -a, true}, {a, -a, false}, {-a, a, false}}) {
    RayT<ad::Dual<1>> ray{Vec3<ad::Dual<1>>(glm::vec3(x, 5, z)), Vec3<ad::Dual<1>>(glm::vec3(0, -1, 0))};
    Sampler sampler(0, 0, 0);
    const Vec3<ad::Dual<1>> L = radiance(s, P, ray, sampler);
    const float r2 = x * x + z * z + h * h, g = rho / kPi * I * h / std::sqrt(r2) / r2;
    INFO("at (" << x << ", " << z << ")");
    CHECK(L[0].v == Approx(g * (first ? 1.f : 0.1f)).epsilon(1e-4));
    CHECK(L[2].v == Approx(g * (first ? 0.25f : 0.1f)).epsilon(1e-4));
    CHECK(L[2].d[0] == Approx(first ? g : 0.f).epsilon(1e-4).margin(1e-9));
  }
  doc["lights"][0]["up"] = {0, 1, 0};
  CHECK_THROWS_WITH(load_scene(doc, "plane.json"), Catch::Contains("/lights/0 (s)/up: must not be parallel to the axis"));
  doc["lights"][0]["up"] = {0, 0, 1};
  doc["lights"][0]["texture"] = "nope";
  CHECK_THROWS_WITH(load_scene(doc, "plane.json"), Catch::Contains("/lights/0 (s)/texture: no texture named \"nope\""));
}
