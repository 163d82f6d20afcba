// Analytic checks of the path-tracing kernel (float instantiation).
#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>

#include <glm/vec2.hpp>

#include "ad/dual.h"
#include "renderer/image/image_compare.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "renderer/shapes/sphere.h"

using namespace dray;
using nlohmann::json;

namespace {

// Whether the camera rays through the corners of the (2m+1)^2-pixel block around (x, y) all hit
// the unit sphere at the origin (+1), all miss (-1), or neither (0).
int coverage(const Scene& s, int x, int y, int m) {
  ParamView<float> P(s.params);
  int hits = 0, n = 0;
  for (int cy = y - m; cy <= y + m + 1; ++cy)
    for (int cx = x - m; cx <= x + m + 1; ++cx) {
      RayT<float> r = camera_ray(s.own_camera(), P, float(cx), float(cy));
      PrimHit<float> h;
      hits += Sphere::intersect(r.o, r.d, Vec3<float>(0.f), 1.f, 0.f, INFINITY, h);
      ++n;
    }
  return hits == n ? 1 : (hits == 0 ? -1 : 0);
}

struct Stats {
  glm::dvec3 object_mean{0.0};
  int object_pixels = 0, background_pixels = 0;
  double worst_object = 0.0;      // largest relative error of one object pixel
  double worst_background = 0.0;  // largest relative error of one background pixel
};

Stats furnace_stats(const Scene& s, glm::vec3 object_expect, glm::vec3 background_expect) {
  Image img = render_local(s, 2);
  Stats st;
  for (int y = 0; y < s.own_camera().height; ++y)
    for (int x = 0; x < s.own_camera().width; ++x) {
      int c = coverage(s, x, y, 1);
      const float* p = img.pixel(x, y);
      for (int k = 0; k < 3; ++k) {
        if (c == 1) st.worst_object = std::max(st.worst_object, std::abs(p[k] / object_expect[k] - 1.0));
        if (c == -1) st.worst_background = std::max(st.worst_background, std::abs(p[k] / background_expect[k] - 1.0));
      }
      if (c == 1) {
        st.object_mean += glm::dvec3(p[0], p[1], p[2]);
        ++st.object_pixels;
      }
      st.background_pixels += c == -1;
    }
  st.object_mean /= double(std::max(1, st.object_pixels));
  return st;
}

}  // namespace

TEST_CASE("furnace: a diffuse sphere under a uniform environment shows albedo x radiance",
          "[integrator]") {
  const glm::vec3 a(0.2f, 0.5f, 0.9f), L(1.f, 2.f, 0.5f);
  json doc = {
      {"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}, {"fov_y", 40}, {"width", 48}, {"height", 48}}},
      {"render", {{"spp", 256}, {"max_depth", 8}, {"seed", 3}}},
      {"materials", {{"m", {{"type", "diffuse"}, {"albedo", {a.x, a.y, a.z}}}}}},
      {"shapes", {{{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "m"}}}},
      {"lights", {{{"type", "environment"}, {"radiance", {L.x, L.y, L.z}}}}}};
  Scene s = load_scene(doc, "furnace.json");
  Stats st = furnace_stats(s, a * L, L);
  REQUIRE(st.object_pixels > 400);
  REQUIRE(st.background_pixels > 400);
  for (int k = 0; k < 3; ++k) CHECK(st.object_mean[k] == Approx(a[k] * L[k]).epsilon(0.01));
  // Per pixel: Monte Carlo noise at 256 spp is about 1.5% (one sigma); 8% is over 5 sigma.
  CHECK(st.worst_object < 0.08);
  CHECK(st.worst_background == 0.0);  // rays that miss see exactly L

  // hide_emitters (Mitsuba's): the sky seen directly is black, the sphere lit as before; with
  // volpath, also through a null sphere around it (crossing it is no bounce).
  for (bool through_null : {false, true}) {
    json hidden = doc;
    hidden["render"]["hide_emitters"] = true;
    if (through_null) {
      hidden["render"]["integrator"] = "volpath";
      hidden["materials"]["none"] = {{"type", "null"}};
      hidden["shapes"].push_back({{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1.6}, {"material", "none"}});
    }
    const Scene h = load_scene(hidden, "furnace.json");
    const Image img = render_local(h, 2);
    glm::dvec3 mean(0.0);
    int object = 0, background = 0;
    for (int y = 0; y < h.own_camera().height; ++y)
      for (int x = 0; x < h.own_camera().width; ++x) {
        const int c = coverage(s, x, y, 1);
        const float* p = img.pixel(x, y);
        if (c == 1) {
          mean += glm::dvec3(p[0], p[1], p[2]);
          ++object;
        }
        if (c == -1) {
          INFO("pixel " << x << ", " << y << (through_null ? " (through a null sphere)" : ""));
          REQUIRE(p[0] + p[1] + p[2] == 0.f);
          ++background;
        }
      }
    REQUIRE(background > 400);
    for (int k = 0; k < 3; ++k) CHECK(mean[k] / object == Approx(a[k] * L[k]).epsilon(0.01));
  }
}

TEST_CASE("furnace: a diffuse sphere inside an emissive box shows albedo x emission (area NEE + MIS)",
          "[integrator]") {
  const float a = 0.6f, Le = 1.5f;
  json walls = json::array();
  // Six faces of the cube [-3, 3]^3, each with edge_u x edge_v pointing inwards (the emitting side).
  const int faces[6][9] = {{-3, -3, -3, 6, 0, 0, 0, 6, 0}, {-3, -3, 3, 0, 6, 0, 6, 0, 0},
                           {-3, -3, -3, 0, 6, 0, 0, 0, 6}, {3, -3, -3, 0, 0, 6, 0, 6, 0},
                           {-3, -3, -3, 0, 0, 6, 6, 0, 0}, {-3, 3, -3, 6, 0, 0, 0, 0, 6}};
  for (const auto& f : faces)
    walls.push_back({{"type", "quad"}, {"corner", {f[0], f[1], f[2]}}, {"edge_u", {f[3], f[4], f[5]}},
                     {"edge_v", {f[6], f[7], f[8]}}, {"material", "glow"}});
  walls.push_back({{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "m"}});
  json doc = {
      {"camera", {{"origin", {0, 0, 2.8}}, {"target", {0, 0, 0}}, {"fov_y", 60}, {"width", 40}, {"height", 40}}},
      {"render", {{"spp", 256}, {"max_depth", 8}, {"seed", 5}}},
      {"materials",
       {{"m", {{"type", "diffuse"}, {"albedo", a}}},
        {"glow", {{"type", "diffuse"}, {"albedo", 0}, {"emission", Le}}}}},
      {"shapes", walls}};
  Scene s = load_scene(doc, "box.json");
  REQUIRE(s.lights.size() == 6);
  Stats st = furnace_stats(s, glm::vec3(a * Le), glm::vec3(Le));
  REQUIRE(st.object_pixels > 200);
  REQUIRE(st.background_pixels > 100);
  for (int k = 0; k < 3; ++k) CHECK(st.object_mean[k] == Approx(a * Le).epsilon(0.01));
  CHECK(st.worst_object < 0.08);  // noise, as above
  CHECK(st.worst_background == 0.0);  // the walls are seen directly: exactly Le
}

TEST_CASE("a mirror reflects the environment tinted, and max_depth 0 shows only emission",
          "[integrator]") {
  json doc = {
      {"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}}},
      {"render", {{"max_depth", 4}}},
      {"materials", {{"steel", {{"type", "mirror"}, {"tint", {0.5, 0.25, 1}}}}}},
      {"shapes", {{{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "steel"}}}},
      {"lights", {{{"type", "environment"}, {"radiance", {2, 2, 2}}}}}};
  Scene s = load_scene(doc, "mirror.json");
  ParamView<float> P(s.params);
  RayT<float> ray{Vec3<float>(0.3f, 0.2f, 4.f), normalize(Vec3<float>(0.f, 0.f, -1.f))};
  Sampler sampler(0, 0, 0);
  glm::vec3 L = value(radiance(s, P, ray, sampler));
  CHECK(L.x == Approx(1.f));
  CHECK(L.y == Approx(0.5f));
  CHECK(L.z == Approx(2.f));
  s.render.max_depth = 0;
  Sampler sampler2(0, 0, 0);
  glm::vec3 L0 = value(radiance(s, P, ray, sampler2));
  CHECK(L0 == glm::vec3(0.f));
}

TEST_CASE("emission leaves the front side only: edge_u x edge_v for quads", "[integrator]") {
  // A panel at y = 1 whose front (edge_u x edge_v = -y) faces down.
  json doc = {
      {"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}}},
      {"render", {{"max_depth", 3}}},
      {"materials", {{"lamp", {{"type", "diffuse"}, {"albedo", 0}, {"emission", {1, 2, 3}}}}}},
      {"shapes",
       {{{"type", "quad"}, {"corner", {-1, 1, -1}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 0, 2}}, {"material", "lamp"}}}}};
  Scene s = load_scene(doc, "panel.json");
  ParamView<float> P(s.params);
  Sampler s1(0, 0, 0), s2(0, 0, 0);
  glm::vec3 below = value(radiance(s, P, RayT<float>{Vec3<float>(0.2f, 0, 0), Vec3<float>(0, 1, 0)}, s1));
  glm::vec3 above = value(radiance(s, P, RayT<float>{Vec3<float>(0.2f, 3, 0), Vec3<float>(0, -1, 0)}, s2));
  CHECK(below == glm::vec3(1, 2, 3));
  CHECK(above == glm::vec3(0.f));
  // "two_sided": both sides emit, seen directly and by next-event estimation from above.
  doc["materials"]["lamp"]["two_sided"] = true;
  doc["materials"]["floor"] = {{"type", "diffuse"}, {"albedo", 0.5}};
  doc["shapes"].push_back({{"type", "quad"}, {"corner", {-10, 3, -10}}, {"edge_u", {0, 0, 20}}, {"edge_v", {20, 0, 0}},
                           {"material", "floor"}});
  doc["render"]["max_depth"] = 1;
  Scene two = load_scene(doc, "panel.json");
  ParamView<float> P2(two.params);
  Sampler s3(0, 0, 0);
  CHECK(value(radiance(two, P2, RayT<float>{Vec3<float>(0.2f, 2, 0), Vec3<float>(0, -1, 0)}, s3)) == glm::vec3(1, 2, 3));
  // The ceiling above the panel (facing down, at height 3) is lit by the panel's back: NEE finds it.
  double lit = 0;
  for (int i = 0; i < 64; ++i) {
    Sampler si(0, 0, uint64_t(i));
    lit += value(radiance(two, P2, RayT<float>{Vec3<float>(0.1f, 2.5f, 0.1f), Vec3<float>(0, 1, 0)}, si)).x;
  }
  CHECK(lit > 0);
  doc["materials"]["lamp"].erase("two_sided");
  Scene one = load_scene(doc, "panel.json");
  ParamView<float> P1(one.params);
  double dark = 0;
  for (int i = 0; i < 64; ++i) {
    Sampler si(0, 0, uint64_t(i));
    dark += value(radiance(one, P1, RayT<float>{Vec3<float>(0.1f, 2.5f, 0.1f), Vec3<float>(0, 1, 0)}, si)).x;
  }
  CHECK(dark == 0);
}

namespace {

// The view factor from a point to the rectangle [0, x] x [0, z] in a parallel plane at height h,
// the point below the corner (0, 0): (1/2pi)[X/sqrt(1+X^2) atan(Z/sqrt(1+X^2)) + (X <-> Z)], with
// X = x/h, Z = z/h (Howell, "A catalog of radiation heat transfer configuration factors", B-3).
// Odd in x and in z, so rectangles anywhere add up by inclusion-exclusion.
double corner_view_factor(double x, double z, double h) {
  const double X = x / h, Z = z / h, sx = std::sqrt(1 + X * X), sz = std::sqrt(1 + Z * Z);
  return (X / sx * std::atan(Z / sx) + Z / sz * std::atan(X / sz)) / (2 * M_PI);
}

// A diffuse floor (albedo rho) at y = o.y lit by a square lamp (side 2a, radiance Le) facing
// down at height h, centred above o; max_depth 1: direct light only.
Scene lamp_over_floor(glm::dvec3 o, double a, double h, double rho, double Le) {
  json doc = {
      {"camera", {{"origin", {o.x, o.y + 5, o.z + 5}}, {"target", {o.x, o.y, o.z}}}},
      {"render", {{"max_depth", 1}}},
      {"materials",
       {{"floor", {{"type", "diffuse"}, {"albedo", rho}}},
        {"lamp", {{"type", "diffuse"}, {"albedo", 0}, {"emission", {Le, Le, Le}}}}}},
      {"shapes",
       {{{"type", "quad"}, {"corner", {o.x - 50, o.y, o.z - 50}}, {"edge_u", {100, 0, 0}}, {"edge_v", {0, 0, 100}},
         {"material", "floor"}},
        // edge_u x edge_v = -y: the lamp's front faces the floor.
        {{"type", "quad"}, {"corner", {o.x - a, o.y + h, o.z - a}}, {"edge_u", {2 * a, 0, 0}}, {"edge_v", {0, 0, 2 * a}},
         {"material", "lamp"}}}}};
  return load_scene(doc, "lamp.json");
}

}  // namespace

TEST_CASE("direct light of a square area light on a plane matches its exact integral, near and far from the origin",
          "[integrator]") {
  const double a = 0.5, h = 1.0, rho = 0.7, Le = 3.0;
  // Far from the origin the ray offsets are ~0.05: shadow rays aimed from the surface point
  // instead of from where they start hit the lamp's own plane (the lamp occluded itself).
  for (glm::dvec3 o : {glm::dvec3(0, 0, 0), glm::dvec3(500, 500, 500)}) {
    Scene s = lamp_over_floor(o, a, h, rho, Le);
    ParamView<float> P(s.params);
    // Below the centre, below an edge, outside the lamp's footprint.
    for (glm::dvec2 xz : {glm::dvec2(0, 0), glm::dvec2(0.5, 0.1), glm::dvec2(1.3, -0.8)}) {
      const double F = corner_view_factor(a - xz.x, a - xz.y, h) - corner_view_factor(-a - xz.x, a - xz.y, h) -
                       corner_view_factor(a - xz.x, -a - xz.y, h) + corner_view_factor(-a - xz.x, -a - xz.y, h);
      const double expect = rho * Le * F;  // rho/pi * irradiance, irradiance = pi Le F
      const glm::vec3 target(o.x + xz.x, o.y, o.z + xz.y);
      // Seen obliquely from below the lamp.
      RayT<float> ray{Vec3<float>(target + glm::vec3(0.15f, 0.5f, 0.2f)), normalize(Vec3<float>(-0.15f, -0.5f, -0.2f))};
      // Samples in batches until the standard error is 0.03% (3.3 sigma below the bound).
      double sum = 0, sum2 = 0, mean = 0, sigma = INFINITY;
      long n = 0;
      while (sigma > 3e-4 * expect && n < 8000000) {
        for (long i = n; i < n + 250000; ++i) {
          Sampler sampler(7, 0, uint64_t(i));
          double L = value(radiance(s, P, ray, sampler)).x;
          sum += L;
          sum2 += L * L;
        }
        n += 250000;
        mean = sum / double(n);
        sigma = std::sqrt((sum2 / double(n) - mean * mean) / double(n));
      }
      INFO("origin " << o.x << ", point (" << xz.x << ", " << xz.y << "): " << mean << " +- " << sigma << " (" << n
                     << " samples), exact " << expect);
      CHECK(sigma <= 3e-4 * expect);  // the estimate is precise enough for the 0.1% bound
      CHECK(std::abs(mean / expect - 1) < 1e-3);
    }
  }
}

TEST_CASE("scale invariance: a Cornell box scaled by 1, 100 and 1000 about the origin renders the same image",
          "[integrator]") {
  // The box (0..556 units in its OBJ) brought to unit size, then scaled with its camera.
  auto box = [](double s, int spp, uint64_t seed) {
    const double k = s / 556.0;
    json doc = {{"camera",
                 {{"origin", {278 * k, 273 * k, -800 * k}}, {"target", {278 * k, 273 * k, 0}}, {"fov_y", 39.3},
                  {"width", 32}, {"height", 32}}},
                {"render", {{"spp", spp}, {"max_depth", 4}, {"seed", seed}}},
                {"shapes",
                 {{{"name", "cbox"}, {"type", "mesh"}, {"file", DRAY_SOURCE_DIR "/scenes/models/cornell_box.obj"},
                   {"transform", {{"scale", k}}}}}}};
    return load_scene(doc, "cbox.json");
  };
  RenderOutputs with_variance{true, {}};
  Image ref = render_local(box(1, 1024, 1), 2, with_variance);
  for (double s : {1.0, 100.0, 1000.0}) {
    Image test = render_local(box(s, 128, 2), 2);
    ZTestResult z = z_test(test, 128, channels_of(ref, 0, 3), channels_of(ref, 3, 3), 1024);
    INFO("scale " << s << ": global z " << z.global_z << ", failing pixels " << z.failed_pixels);
    CHECK(z.passed);
    CHECK(std::abs(z.global_z) < 4);
  }
}
