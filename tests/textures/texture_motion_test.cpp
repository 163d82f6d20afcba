// A texture moving with its surface: where a shape slides under a fixed ray, the UV the ray sees
// changes and so does the texture's value there. Closed forms on a ramp (reflectance = u) for a
// quad and a mesh with vt, and central differences of the float kernel for a sphere, a rotated
// mesh and a scaled one. (Before, texture lookups took the UV as a constant: all were 0.)
#include <catch2/catch.hpp>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "renderer/io/scene_loader.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;
using D = ad::Dual<1>;

namespace {

constexpr int kTexels = 16;

// A plane or a sphere of the given shape under a sun of irradiance π straight down (radiance =
// reflectance exactly), its reflectance the texture t: a ramp in u, texel x = (x + 0.5) / W,
// clamped, so that bilinear lookups give reflectance = u between the first and last texel centres.
Scene ramp_scene(const json& shape, const std::string& file) {
  json s = shape;
  s["material"] = "m";
  json doc = {{"camera", {{"origin", {0, 5, 0.01}}, {"target", {0, 0, 0}}}},
              {"render", {{"max_depth", 1}}},
              {"textures", {{"t", {{"type", "bitmap"}, {"width", kTexels}, {"height", 4}, {"value", 0.5}, {"wrap_mode", "clamp"}}}}},
              {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", "t"}}}}},
              {"shapes", json::array({s})},
              {"lights", {{{"type", "directional"}, {"direction", {0, -1, 0}}, {"irradiance", kPi}}}}};
  Scene scene = load_scene(doc, file);
  const Slot data = scene.params.find("textures.t.data")->slot;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < kTexels; ++x)
      for (int c = 0; c < 3; ++c) scene.params.set(data + Slot((y * kTexels + x) * 3 + c), (float(x) + 0.5f) / float(kTexels));
  return scene;
}

// The red radiance along the ray straight down through (x, z), with its derivative by `name`.
D radiance_down(const Scene& scene, const std::string& name, float x, float z) {
  const Slot slot = resolve_scalars(scene.params, {name}).at(0).slot;
  std::vector<int> seeds(scene.params.values().size(), -1);
  seeds[slot] = 0;
  const ParamView<D> P(scene.params, seeds.data());
  Sampler sampler(0, 0, 0);
  return radiance(scene, P, RayT<D>{Vec3<D>(glm::vec3(x, 3, z)), Vec3<D>(glm::vec3(0, -1, 0))}, sampler).x;
}

// The central difference of the same (float kernel, the same random numbers) at step h.
double difference_down(const Scene& scene, const std::string& name, float x, float z, float h) {
  const Slot slot = resolve_scalars(scene.params, {name}).at(0).slot;
  double side[2];
  for (int k = 0; k < 2; ++k) {
    Scene s = scene;
    s.params.set(slot, scene.params.get(slot) + (k ? h : -h));
    s.build_geometry();
    Sampler sampler(0, 0, 0);
    side[k] = radiance(s, ParamView<float>(s.params), RayT<float>{Vec3<float>(glm::vec3(x, 3, z)), Vec3<float>(glm::vec3(0, -1, 0))},
                       sampler).x;
  }
  return (side[1] - side[0]) / (2.0 * double(h));
}

}  // namespace

TEST_CASE("a quad sliding under a ray carries its texture: d reflectance = -du, closed form", "[texture]") {
  // The 2 x 2 quad's u = (x - corner.x) / 2: moving the corner by +1 moves u by -1/2.
  const Scene s = ramp_scene({{"name", "plane"}, {"type", "quad"}, {"corner", {-1, 0, -1}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 0, 2}}}, "s.json");
  for (float x : {-0.5f, 0.f, 0.37f}) {
    const D L = radiance_down(s, "shapes.plane.corner[0]", x, 0.2f);
    INFO("x = " << x);
    CHECK(L.v == Approx((x + 1.f) / 2.f).epsilon(1e-4));
    CHECK(L.d[0] == Approx(-0.5f).epsilon(1e-4));
    // Sliding along its other edge leaves u alone.
    CHECK(radiance_down(s, "shapes.plane.corner[2]", x, 0.2f).d[0] == Approx(0.f).margin(1e-6));
  }
}

TEST_CASE("a mesh moved by its transform carries its vt texture: closed form and differences", "[texture]") {
  const dray::testing::TempDir dir("dray_texture_motion_test_");
  // Two triangles over [-1, 1]^2 in the y = 0 plane, u = (x + 1) / 2 from their vt.
  dir.write("square.obj",
            "v -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 4/4 3/3\nf 1/1 3/3 2/2\n");
  const std::string file = (dir.dir / "s.json").string();
  const Scene s = ramp_scene({{"name", "plane"}, {"type", "mesh"}, {"file", "square.obj"}}, file);
  for (float x : {-0.5f, 0.3f}) {
    const D L = radiance_down(s, "shapes.plane.translate[0]", x, 0.4f);
    CHECK(L.v == Approx((x + 1.f) / 2.f).epsilon(1e-4));
    CHECK(L.d[0] == Approx(-0.5f).epsilon(1e-4));
  }
  // Turned about y and scaled: against central differences.
  const Scene t = ramp_scene({{"name", "plane"}, {"type", "mesh"}, {"file", "square.obj"},
                              {"transform", {{"scale", 1.2}, {"rotate_y", 20}}}}, file);
  for (const char* name : {"shapes.plane.rotate_y", "shapes.plane.scale", "shapes.plane.translate[2]"}) {
    INFO(name);
    const double fd = difference_down(t, name, 0.2f, -0.3f, name[13] == 'r' ? 0.05f : 1e-3f);
    CHECK(radiance_down(t, name, 0.2f, -0.3f).d[0] == Approx(fd).epsilon(2e-3).margin(1e-4));
    CHECK(std::fabs(fd) > 1e-3);  // the case moves the texture (rotate_y: per degree)
  }
}

TEST_CASE("a sphere moving under a ray carries its texture: against central differences", "[texture]") {
  // u = atan2(y, x) / 2π about the centre: a ray down onto the sphere's side sees u change as the
  // centre moves in x or z, and as its radius grows.
  const Scene s = ramp_scene({{"name", "ball"}, {"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}}, "s.json");
  for (const char* name : {"shapes.ball.center[0]", "shapes.ball.center[2]", "shapes.ball.radius"}) {
    INFO(name);
    const double fd = difference_down(s, name, 0.3f, 0.5f, 1e-3f);
    CHECK(radiance_down(s, name, 0.3f, 0.5f).d[0] == Approx(fd).epsilon(2e-3).margin(1e-4));
  }
  CHECK(std::fabs(difference_down(s, "shapes.ball.center[0]", 0.3f, 0.5f, 1e-3f)) > 1e-2);
}
