// Shading frames: s along the surface's dp/du (against finite differences of each shape's
// parameterisation), Mitsuba's normal and bump maps against closed forms on a lit plane, and
// their derivatives by texels (forward against central differences and reverse mode).
#include <catch2/catch.hpp>

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <fstream>
#include <numeric>

#include <glm/geometric.hpp>

#include "ad/dual.h"
#include "renderer/integrators/gradient_tiles.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/shading_frame.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;

namespace {

// A unit-albedo-ρ plane y = 0 (u along +z, v along +x: its normal +y) lit by a directional light
// from (0, cos b, sin b), seen straight down by one bounce.
json lit_plane(const json& material, float b) {
  return {{"camera", {{"origin", {0, 5, 0.001}}, {"target", {0, 0, 0}}}},
          {"render", {{"max_depth", 1}}},
          {"materials", {{"m", material}}},
          {"shapes", {{{"type", "quad"}, {"corner", {-1, 0, -1}}, {"edge_u", {0, 0, 2}}, {"edge_v", {2, 0, 0}}, {"material", "m"}}}},
          {"lights", {{{"type", "directional"}, {"direction", {0, -std::cos(b), -std::sin(b)}}, {"irradiance", 1}}}}};
}

template <class T>
Vec3<T> radiance_at(const Scene& s, const ParamView<T>& P, glm::vec2 xz) {
  RayT<T> ray{Vec3<T>(glm::vec3(xz.x, 5, xz.y)), Vec3<T>(glm::vec3(0, -1, 0))};
  Sampler sampler(0, 0, 0);
  return radiance(s, P, ray, sampler);
}

float terminator(float tan2_n, float tan2_w) {
  const float alpha2 = std::min(0.125f * tan2_n, 1.f);
  return 2.f / (1.f + std::sqrt(1.f + alpha2 * tan2_w));
}

}  // namespace

TEST_CASE("surface_derivatives: dp/du and dp/dv of each shape's parameterisation", "[shading]") {
  // A sphere's p(u, v) = c + r R (sin θ cos φ, sin θ sin φ, cos θ), φ = 2π u, θ = π v, R its
  // rotation (Mitsuba's to_world's: here 40° about (1, 2, 2)/3); a mesh face's p at its texture
  // coordinates; both against central differences.
  const glm::vec3 c(0.3f, -0.2f, 0.5f);
  const float r = 1.7f;
  const glm::dmat3 R = glm::dmat3(glm::rotate(glm::dmat4(1.0), glm::radians(40.0), glm::dvec3(1, 2, 2) / 3.0));
  auto sphere = [&](double u, double v) {
    const double phi = 2 * M_PI * u, theta = M_PI * v;
    return glm::dvec3(c) + double(r) * (R * glm::dvec3(std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)));
  };
  json rows = json::array();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) rows.push_back(R[j][i]);
  const json ball_doc = {{"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}}},
                         {"materials", {{"m", {{"type", "diffuse"}}}}},
                         {"shapes", {{{"type", "sphere"}, {"center", {c.x, c.y, c.z}}, {"radius", r}, {"rotation", rows}, {"material", "m"}}}},
                         {"lights", {{{"type", "point"}, {"position", {0, 0, 3}}, {"intensity", 1}}}}};
  const Scene scene = load_scene(ball_doc, "ball.json");
  const PrimT<float> ball = lift_prim(scene, ParamView<float>(scene.params), 0);
  for (glm::dvec2 uv : {glm::dvec2(0.1, 0.3), glm::dvec2(0.7, 0.8), glm::dvec2(0.45, 0.55)}) {
    const glm::dvec3 p = sphere(uv.x, uv.y);
    // The UV read back at p is the one p was made from.
    const glm::vec2 at = surface_uv(scene, 0, ball, glm::vec3(p));
    CHECK(at.x == Approx(uv.x).margin(1e-5));
    CHECK(at.y == Approx(uv.y).margin(1e-5));
    Vec3<float> du, dv;
    surface_derivatives(scene, 0, ball, Vec3<float>(glm::vec3(p)), Vec3<float>(glm::vec3(glm::normalize(p - glm::dvec3(c)))), du, dv);
    const double h = 1e-6;
    const glm::dvec3 fu = (sphere(uv.x + h, uv.y) - sphere(uv.x - h, uv.y)) / (2 * h), fv = (sphere(uv.x, uv.y + h) - sphere(uv.x, uv.y - h)) / (2 * h);
    for (int k = 0; k < 3; ++k) {
      CHECK(du[k] == Approx(fu[k]).margin(2e-4 * r));
      CHECK(dv[k] == Approx(fv[k]).margin(2e-4 * r));
    }
  }
  // A mesh triangle with texture coordinates: dp/du, dp/dv solve p1 - p0 = du Δu1 + dv Δv1, etc.
  const dray::testing::TempDir dir("dray_shading_frame_test_");
  std::ofstream(dir.dir / "tri.obj") << "v 0 0 0\nv 2 0 0\nv 0 1 0\nvt 0.1 0.2\nvt 0.5 0.3\nvt 0.2 0.9\nf 1/1 2/2 3/3\n";
  json doc = {{"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}}},
              {"materials", {{"m", {{"type", "diffuse"}}}}},
              {"shapes", {{{"type", "mesh"}, {"file", "tri.obj"}, {"material", "m"}}}},
              {"lights", {{{"type", "point"}, {"position", {0, 0, 3}}, {"intensity", 1}}}}};
  const Scene mesh = load_scene(doc, (dir.dir / "tri.json").string());
  const PrimT<float> tri = lift_prim(mesh, ParamView<float>(mesh.params), 0);
  Vec3<float> du, dv;
  surface_derivatives(mesh, 0, tri, tri.a, Vec3<float>(0.f, 0.f, 1.f), du, dv);
  const glm::vec2 uv0 = mesh.meshes[0].corner_uvs[0], uv1 = mesh.meshes[0].corner_uvs[1], uv2 = mesh.meshes[0].corner_uvs[2];
  for (auto [e, d] : {std::pair{tri.b, uv1 - uv0}, std::pair{tri.c, uv2 - uv0}})
    for (int k = 0; k < 3; ++k) CHECK(du[k] * d.x + dv[k] * d.y == Approx(e[k]).margin(1e-5));
}

TEST_CASE("normalmap: a tilted normal shades as the plane turned, times Mitsuba's shadow terminator", "[shading]") {
  const float rho = 0.5f, a = 0.4f, b = 0.9f;  // the map tilts the normal by a toward +z (u); light at b
  const json tilt = {0.5f + 0.5f * std::sin(a), 0.5f, 0.5f + 0.5f * std::cos(a)};
  json mat = {{"type", "normalmap"}, {"normalmap", {{"type", "rawconstant"}, {"value", tilt}}},
              {"bsdf", {{"type", "diffuse"}, {"reflectance", rho}}}};
  const float lit = rho / kPi * std::cos(a - b);
  {
    const Scene s = load_scene(lit_plane(mat, b), "plane.json");
    const float L = radiance_at(s, ParamView<float>(s.params), {0.2f, -0.3f}).x;
    CHECK(L == Approx(lit * terminator(std::tan(a) * std::tan(a), std::tan(b) * std::tan(b))).epsilon(1e-5));
  }
  mat["use_shadowing_function"] = false;
  {
    const Scene s = load_scene(lit_plane(mat, b), "plane.json");
    CHECK(radiance_at(s, ParamView<float>(s.params), {0.2f, -0.3f}).x == Approx(lit).epsilon(1e-5));
  }
  // The identity map (0.5, 0.5, 1) renders the unmapped plane, bitwise.
  mat["normalmap"]["value"] = {0.5, 0.5, 1.0};
  mat.erase("use_shadowing_function");
  const Scene mapped = load_scene(lit_plane(mat, b), "plane.json");
  const Scene plain = load_scene(lit_plane({{"type", "diffuse"}, {"reflectance", rho}}, b), "plane.json");
  CHECK(radiance_at(mapped, ParamView<float>(mapped.params), {0.2f, -0.3f}).x ==
        radiance_at(plain, ParamView<float>(plain.params), {0.2f, -0.3f}).x);
  // Light below the tilted horizon but above the surface's: no light (Mitsuba's two-frame test).
  mat["normalmap"]["value"] = tilt;
  const Scene grazing = load_scene(lit_plane(mat, -1.3f), "plane.json");
  CHECK(radiance_at(grazing, ParamView<float>(grazing.params), {0.2f, -0.3f}).x == 0.f);
}

TEST_CASE("bumpmap: a height ramp tilts the normal by its gradient times scale", "[shading]") {
  // Heights rising along u by 0.1 a texel on an 8-texel-wide map: d h / du = 0.8; with scale s,
  // dp/du' = dp/du + n 0.8 s, so the normal tilts by atan(0.8 s / |dp/du|) away from +u.
  const float rho = 0.5f, b = -0.5f, scale = 2.f;
  json texels = json::array();
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) texels.push_back(0.1 * x);
  json mat = {{"type", "bumpmap"}, {"scale", scale},
              {"texture", {{"type", "bitmap"}, {"width", 8}, {"height", 4}, {"value", 0.0}, {"wrap_mode", "clamp"}}},
              {"bsdf", {{"type", "diffuse"}, {"reflectance", rho}}}};
  Scene s = load_scene(lit_plane(mat, b), "plane.json");
  const ParamEntry data = *s.params.find("textures.m.texture.data");
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x)
      for (int c = 0; c < 3; ++c) s.params.set(data.slot + Slot(3 * (8 * y + x) + c), 0.1f * float(x));
  const float a = -std::atan(0.8f * scale / 2.f);  // |dp/du| = 2 (edge_u): the normal leans toward -z
  const float L = radiance_at(s, ParamView<float>(s.params), {0.f, 0.1f}).x;
  CHECK(L == Approx(rho / kPi * std::cos(a - b) * terminator(std::tan(a) * std::tan(a), std::tan(b) * std::tan(b))).epsilon(1e-4));
}

TEST_CASE("normal and bump maps differentiate by their texels: forward, central differences, reverse", "[shading]") {
  for (const char* kind : {"normalmap", "bumpmap"}) {
    const bool normal = std::string(kind) == "normalmap";
    json tex = {{"type", "bitmap"}, {"width", 4}, {"height", 4}, {"value", {0.55, 0.45, 0.9}}};
    json mat = {{"type", kind}, {normal ? "normalmap" : "texture", tex}, {"bsdf", {{"type", "roughconductor"}, {"alpha_u", 0.4}, {"alpha_v", 0.25}}}};
    if (!normal) mat["scale"] = 0.05;
    Scene s = load_scene(lit_plane(mat, 0.6f), "plane.json");
    const std::string block = std::string("textures.m.") + (normal ? "normalmap" : "texture") + ".data";
    const ParamEntry e = *s.params.find(block);
    // Heights vary (a bump map of a constant is flat): texel values from a fixed pattern.
    for (int i = 0; i < 16; ++i) {
      s.params.set(e.slot + Slot(3 * i), 0.5f + 0.15f * std::sin(1.3f * float(i)));
      s.params.set(e.slot + Slot(3 * i + 1), 0.5f + 0.15f * std::cos(0.7f * float(i)));
      s.params.set(e.slot + Slot(3 * i + 2), 0.9f);
    }
    const glm::vec2 at(0.13f, -0.21f);
    const Slot k = e.slot + 3 * 5 + 1;  // texel (1, 1), green
    std::vector<int> seeds(s.params.values().size(), -1);
    seeds[k] = 0;
    const float fwd = radiance_at(s, ParamView<ad::Dual<1>>(s.params, seeds.data()), at).y.d[0];
    auto at_value = [&](float v) {
      Scene t = s;
      t.params.set(k, v);
      return double(radiance_at(t, ParamView<float>(t.params), at).y);
    };
    const float v = s.params.values()[k], h = 2e-2f;  // float radiance: h large enough for its rounding
    const double fd = (at_value(v + h) - at_value(v - h)) / (2 * h), fd2 = (at_value(v + h / 2) - at_value(v - h / 2)) / h;
    INFO(kind << ": L " << at_value(v) << ", forward " << fwd << ", central differences " << fd << " (h/2: " << fd2 << ")");
    CHECK(std::fabs(fwd) > 1e-3);  // the texel matters here
    CHECK(fd == Approx(fd2).epsilon(1e-2));
    CHECK(fwd == Approx(fd).epsilon(1e-2));
  }
  // Reverse mode over a small image equals forward mode's derivative images.
  json mat = {{"type", "normalmap"}, {"normalmap", {{"type", "bitmap"}, {"width", 4}, {"height", 4}, {"value", {0.6, 0.45, 0.9}}}},
              {"bsdf", {{"type", "diffuse"}, {"reflectance", 0.5}}}};
  json doc = lit_plane(mat, 0.6f);
  doc["camera"] = {{"origin", {0, 3, 0.5}}, {"target", {0, 0, 0}}, {"width", 16}, {"height", 12}};
  doc["render"]["spp"] = 2;
  const Scene s = load_scene(doc, "plane.json");
  const std::vector<Tile> tiles = make_tiles(16, 12, 8);
  std::vector<int> ids(tiles.size());
  std::iota(ids.begin(), ids.end(), 0);
  const Slot k = s.params.find("textures.m.normalmap.data")->slot + 3 * 6;  // texel (2, 1), red
  Image primal(16, 12, 3), none(16, 12, 3);
  const std::vector<Slot> wrt = {k};
  const GradientResult rev = gradient_tiles(s, s.shot(), tiles, ids, none, Loss::mean, 3.0 * 16 * 12, wrt, 2, primal, s.render.seed);
  RenderOutputs out;
  out.wrt = wrt;
  Image fwd(16, 12, out.channels());
  render_tiles(s, s.shot(), tiles, ids, fwd, 2, out);
  double mean = 0;
  for (size_t i = 0; i < size_t(16 * 12); ++i)
    for (int c = 0; c < 3; ++c) mean += fwd.data[i * size_t(fwd.channels) + size_t(out.derivative_channel(0) + c)];
  mean /= 3.0 * 16 * 12;
  CHECK(std::fabs(mean) > 1e-5);
  CHECK(rev.gradient[0] == Approx(mean).epsilon(1e-5));
}
