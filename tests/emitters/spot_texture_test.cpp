// A spot light's projected texture slides over a surface moving through its beam: the lookup's UV
// is in the scalar type, and the derivative of a point's light agrees with central differences
// (before, the UV was a float: the plane's depth gave 0.0446 against differences of 0.0429, the
// spot's target 0 against -0.0100).
#include <catch2/catch.hpp>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;
using D = ad::Dual<1>;

namespace {

// Red radiance straight down at (x, y) onto the plane z = 0, its derivative by `name`.
D down(const Scene& s, float x, float y, Slot slot) {
  std::vector<int> seeds(s.params.values().size(), -1);
  seeds[slot] = 0;
  const ParamView<D> P(s.params, seeds.data());
  Sampler sampler(0, 0, 0);
  return radiance(s, P, RayT<D>{Vec3<D>(glm::vec3(x, y, 1)), Vec3<D>(glm::vec3(0, 0, -1))}, sampler).x;
}

}  // namespace

TEST_CASE("a spot light's texture slides over a plane moving through its beam: against differences", "[emitter]") {
  const json doc = {
      {"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}}},
      {"render", {{"max_depth", 1}}},
      {"textures", {{"img", {{"type", "bitmap"}, {"width", 8}, {"height", 8}, {"value", 0}}}}},
      {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", 0.6}}}}},
      {"shapes", {{{"name", "plane"}, {"type", "quad"}, {"corner", {-3, -3, 0}}, {"edge_u", {6, 0, 0}}, {"edge_v", {0, 6, 0}},
                   {"material", "m"}}}},
      {"lights", {{{"name", "spot"}, {"type", "spot"}, {"position", {0.2, 0.1, 3}}, {"target", {0, 0, 0}}, {"intensity", 5},
                   {"cutoff_angle", 30}, {"beam_width", 29}, {"texture", "img"}}}}};
  Scene s = load_scene(doc, "s.json");
  const Slot texels = s.params.find("textures.img.data")->slot;
  for (int i = 0; i < 8 * 8 * 3; ++i) s.params.set(texels + Slot(i), 0.1f + float((i / 3) % 8) / 7.f + 0.3f * float(i / 24) / 7.f);
  for (const char* name : {"shapes.plane.corner[2]", "lights.spot.position[0]", "lights.spot.target[1]"}) {
    const Slot slot = resolve_scalars(s.params, {name}).at(0).slot;
    const float h = 1e-3f;
    double side[2];
    for (int k = 0; k < 2; ++k) {
      Scene t = s;
      t.params.set(slot, s.params.get(slot) + (k ? h : -h));
      t.build_geometry();
      side[k] = down(t, 0.4f, 0.3f, slot).v;
    }
    const double fd = (side[1] - side[0]) / (2.0 * h);
    INFO(name << ": differences " << fd);
    CHECK(down(s, 0.4f, 0.3f, slot).d[0] == Approx(fd).epsilon(3e-3));
    CHECK(std::fabs(fd) > 1e-3);
  }
}
