// Forward-mode derivatives of the kernel: closed forms, linearity, finite differences on the
// example scenes, and independence of the tangent count.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <glm/vec2.hpp>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;
using D8 = ad::Dual<8>;

namespace {

const std::string kScenes = std::string(DRAY_SOURCE_DIR) + "/scenes";

Image render_all(const Scene& scene, const RenderOutputs& out = {}) { return render_local(scene, 2, out); }

Slot slot_of(const Scene& s, const std::string& name) { return resolve_scalars(s.params, {name}).at(0).slot; }

// Seeds for the named scalars, tangent k for names[k].
std::vector<int> seeds_for(const Scene& s, const std::vector<std::string>& names) {
  std::vector<int> seeds(s.params.values().size(), -1);
  for (size_t k = 0; k < names.size(); ++k) seeds[slot_of(s, names[k])] = int(k);
  return seeds;
}

json plane_scene(bool mesh_plane, float plane_y) {
  json plane = mesh_plane
                   ? json{{"name", "plane"}, {"type", "mesh"}, {"file", "plane.obj"}, {"material", "m"},
                          {"transform", {{"translate", {0, plane_y, 0}}}}}
                   : json{{"name", "plane"}, {"type", "quad"}, {"corner", {-10, plane_y, -10}}, {"edge_u", {20, 0, 0}},
                          {"edge_v", {0, 0, 20}}, {"material", "m"}};
  return {{"camera", {{"origin", {0, 5, 5}}, {"target", {0, 0, 0}}}},
          {"render", {{"max_depth", 1}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"albedo", {0.6, 0.5, 0.4}}}}}},
          {"shapes", {plane}},
          {"lights", {{{"name", "key"}, {"type", "point"}, {"position", {0.5, 2, -0.3}}, {"intensity", {10, 20, 30}}}}}};
}

}  // namespace

TEST_CASE("point light over a plane: derivatives match the closed form", "[derivative]") {
  // L = rho / pi * I * h / r^3 with h the light's height over the plane and r its distance.
  Scene s = load_scene(plane_scene(false, 0.f), "plane.json");
  const std::vector<std::string> names = {"materials.m.albedo[0]", "lights.key.intensity[1]", "lights.key.position[0]",
                                          "lights.key.position[1]", "lights.key.position[2]"};
  std::vector<int> seeds = seeds_for(s, names);
  ParamView<D8> P(s.params, seeds.data());
  const glm::vec3 light(0.5f, 2.f, -0.3f), rho(0.6f, 0.5f, 0.4f), I(10, 20, 30);
  for (glm::vec2 xz : {glm::vec2(0, 0), glm::vec2(1.5f, 0.2f), glm::vec2(-2, 3)}) {
    glm::vec3 p(xz.x, 0.f, xz.y);
    RayT<D8> ray{Vec3<D8>(D8(p.x + 1), D8(4.f), D8(p.z)), normalize(Vec3<D8>(D8(-1.f), D8(-4.f), D8(0.f)))};
    Sampler sampler(0, 0, 0);
    Vec3<D8> L = radiance(s, P, ray, sampler);
    const double dx = light.x - p.x, h = light.y, dz = light.z - p.z, r2 = dx * dx + h * h + dz * dz;
    const double r = std::sqrt(r2), f = h / (r2 * r);  // L = rho I f / pi
    const double df_dx = -3 * h * dx / (r2 * r2 * r), df_dh = 1 / (r2 * r) - 3 * h * h / (r2 * r2 * r),
                 df_dz = -3 * h * dz / (r2 * r2 * r);
    INFO("at (" << xz.x << ", " << xz.y << ")");
    CHECK(L.x.v == Approx(rho.x * I.x * f / kPi).epsilon(1e-5));
    CHECK(L.x.d[0] == Approx(I.x * f / kPi).epsilon(1e-5));               // d/d albedo[0]
    CHECK(L.y.d[0] == 0.f);                                                 // albedo[0] leaves green alone
    CHECK(L.y.d[1] == Approx(rho.y * f / kPi).epsilon(1e-5));             // d/d intensity[1]
    CHECK(L.x.d[1] == 0.f);
    for (int c = 0; c < 3; ++c) {
      const double k = rho[c] * I[c] / kPi;
      CHECK(L[c].d[2] == Approx(k * df_dx).epsilon(1e-4).margin(1e-7));  // d/d position
      CHECK(L[c].d[3] == Approx(k * df_dh).epsilon(1e-4).margin(1e-7));
      CHECK(L[c].d[4] == Approx(k * df_dz).epsilon(1e-4).margin(1e-7));
    }
  }
}

TEST_CASE("a mesh moved by its transform: the derivative follows the vertices", "[derivative]") {
  // An OBJ plane lifted by translate[1] = t sees the light from h = light_y - t: dL/dt = -dL/dh.
  auto dir = std::filesystem::temp_directory_path() / "dray_derivative_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "plane.obj") << "v -10 0 -10\nv 10 0 -10\nv 10 0 10\nv -10 0 10\nf 1 2 3 4\n";
  Scene s = load_scene(plane_scene(true, 0.25f), (dir / "plane.json").string());
  std::vector<int> seeds = seeds_for(s, {"shapes.plane.translate[1]", "lights.key.position[1]", "shapes.plane.scale"});
  ParamView<D8> P(s.params, seeds.data());
  for (glm::vec2 xz : {glm::vec2(0.3f, 0.1f), glm::vec2(-1.5f, 2.f)}) {
    RayT<D8> ray{Vec3<D8>(D8(xz.x), D8(4.f), D8(xz.y)), Vec3<D8>(D8(0.f), D8(-1.f), D8(0.f))};
    Sampler sampler(0, 0, 0);
    Vec3<D8> L = radiance(s, P, ray, sampler);
    REQUIRE(L.x.v > 0.f);
    for (int c = 0; c < 3; ++c) {
      CHECK(L[c].d[0] == Approx(-L[c].d[1]).epsilon(1e-4));
      CHECK(L[c].d[0] != 0.f);
      // Scaling a plane in its own plane (about the origin, at y = 0) does not change where
      // a vertical ray meets it once translated: only the in-plane parametrisation moves.
      CHECK(L[c].d[2] == Approx(0.f).margin(1e-6));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("the image is linear in emission: Le dL/dLe = L for light from area lights only", "[derivative]") {
  Scene s = load_scene(std::string(DRAY_SOURCE_DIR) + "/tests/regression/cases/mirror-arealight.json",
                       {"camera.width=24", "camera.height=24", "render.spp=4"});
  RenderOutputs out;
  out.wrt = {slot_of(s, "materials.panel.emission[0]"), slot_of(s, "materials.panel.emission[2]")};
  Image img = render_all(s, out);
  const float le = 5.f;
  int lit = 0;
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 24; ++x) {
      const float* px = img.pixel(x, y);
      CHECK(px[out.derivative_channel(0)] * le == Approx(px[0]).epsilon(1e-5).margin(1e-7));
      CHECK(px[out.derivative_channel(0) + 1] == 0.f);  // red emission does not make green
      CHECK(px[out.derivative_channel(1) + 2] * le == Approx(px[2]).epsilon(1e-5).margin(1e-7));
      lit += px[0] > 0.f;
    }
  CHECK(lit > 24 * 24 / 4);  // the test sees real light: about 40% of the view is lit
}

TEST_CASE("a light declared dark still has a derivative with respect to its emission", "[derivative]") {
  Scene s = load_scene(std::string(DRAY_SOURCE_DIR) + "/tests/regression/cases/mirror-arealight.json",
                       {"camera.width=16", "camera.height=16", "render.spp=2", "materials.panel.emission=[0, 0, 0]"});
  RenderOutputs out;
  out.wrt = {slot_of(s, "materials.panel.emission[1]")};
  Image img = render_all(s, out);
  double sum = 0, value = 0;
  for (size_t i = 0; i < size_t(16 * 16); ++i) {
    sum += img.data[i * img.channels + out.derivative_channel(0) + 1];
    value += img.data[i * img.channels + 1];
  }
  CHECK(value == 0.0);  // dark
  CHECK(sum > 0.0);     // but brightening it would light the scene
}

TEST_CASE("derivative images agree with central differences on the example scenes", "[derivative]") {
  struct Case {
    const char* scene;
    std::vector<std::string> params;  // parameters that move no silhouette or shadow edge
  };
  const Case cases[] = {
      {"cornell-box.json", {"materials.cbox.red.albedo[0]", "materials.cbox.white.albedo[1]", "materials.cbox.light.emission[2]"}},
      {"spheres.json", {"materials.floor.albedo[0]", "materials.steel.tint[1]", "lights.key.intensity[2]", "lights.sky.radiance[0]",
                        "materials.lamp.emission[1]"}},
      {"bunny.json", {"materials.clay.albedo[1]", "materials.panel.emission[0]", "lights.sun.intensity[2]"}},
  };
  for (const Case& c : cases) {
    Scene s = load_scene(kScenes + "/" + c.scene, {"camera.width=32", "camera.height=24", "render.spp=4"});
    RenderOutputs out;
    for (const auto& p : c.params) out.wrt.push_back(slot_of(s, p));
    Image ad = render_all(s, out);
    for (size_t k = 0; k < c.params.size(); ++k) {
      INFO(c.scene << ": " << c.params[k]);
      const Slot slot = out.wrt[k];
      const float v0 = s.params.get(slot), h = 1e-3f * std::max(1.f, std::fabs(v0));
      Scene plus = s, minus = s;
      plus.params.set(slot, v0 + h);
      minus.params.set(slot, v0 - h);
      Image ip = render_all(plus), im = render_all(minus);
      const double step = double(v0 + h) - double(v0 - h);
      double sum_ad = 0, sum_fd = 0, worst = 0, largest = 0;
      for (size_t i = 0; i < size_t(32 * 24); ++i)
        for (int ch = 0; ch < 3; ++ch) {
          double a = ad.data[i * ad.channels + out.derivative_channel(k) + ch];
          double f = (double(ip.data[i * 3 + ch]) - double(im.data[i * 3 + ch])) / step;
          sum_ad += a;
          sum_fd += f;
          worst = std::max(worst, std::fabs(a - f));
          largest = std::max(largest, std::fabs(a));
        }
      REQUIRE(largest > 0);
      CHECK(sum_ad == Approx(sum_fd).epsilon(1e-3));
      CHECK(worst <= 1e-3 * largest + 1e-5);  // every pixel, not only the mean
    }
  }
}

TEST_CASE("Dual<1>, Dual<4> and Dual<8> give bitwise the same derivatives and the float image",
          "[derivative]") {
  Scene s = load_scene(kScenes + "/spheres.json", {"camera.width=24", "camera.height=16", "render.spp=3"});
  const std::vector<std::string> names = {"materials.red.albedo[0]", "lights.key.position[1]", "camera.fov_y",
                                          "shapes.mid.center[0]", "materials.floor.albedo[2]", "lights.sky.radiance[1]",
                                          "materials.lamp.emission[0]", "shapes.glow.radius", "lights.key.intensity[0]"};
  RenderOutputs all;
  for (const auto& n : names) all.wrt.push_back(slot_of(s, n));  // 9 scalars: Dual<8> then Dual<1>
  Image img9 = render_all(s, all);
  Image plain = render_all(s);
  for (size_t k = 0; k < names.size(); ++k) {
    INFO(names[k]);
    RenderOutputs one;
    one.wrt = {all.wrt[k]};  // Dual<1>
    RenderOutputs three;
    three.wrt = {all.wrt[(k + 1) % 9], all.wrt[k], all.wrt[(k + 2) % 9]};  // Dual<4>, as the 2nd tangent
    Image img1 = render_all(s, one), img3 = render_all(s, three);
    bool same = true, nonzero = false;
    for (size_t i = 0; i < size_t(24 * 16); ++i)
      for (int ch = 0; ch < 3; ++ch) {
        float a = img9.data[i * img9.channels + all.derivative_channel(k) + ch];
        same = same && a == img1.data[i * img1.channels + one.derivative_channel(0) + ch] &&
               a == img3.data[i * img3.channels + three.derivative_channel(1) + ch];
        nonzero = nonzero || a != 0.f;
      }
    CHECK(same);
    CHECK(nonzero);
  }
  for (size_t i = 0; i < size_t(24 * 16); ++i)
    for (int ch = 0; ch < 3; ++ch) REQUIRE(img9.data[i * img9.channels + ch] == plain.data[i * 3 + ch]);
}
