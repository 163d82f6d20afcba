// projector (Mitsuba 3's): a plane facing it at depth c receives π·scale·irradiance/c² inside the
// frustum and nothing outside; the image's orientation (u to the right, v down as seen from the
// pinhole); derivatives by the plane's depth (closed form) and, with a texture sliding through the
// image, against central differences; the XML emitter renders as its JSON.
#include <catch2/catch.hpp>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "tests/io/mitsuba_scenes.h"
#include "tests/temp_dir.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;
using D = ad::Dual<1>;

namespace {

// A diffuse plane (reflectance 0.6) at z = 0 under a projector at (0, 0, 3) looking down -z.
json projector_scene(const json& irradiance, const json& textures = json()) {
  json doc = {{"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"width", 16}, {"height", 16}}},
              {"render", {{"spp", 4}, {"max_depth", 1}}},
              {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", 0.6}}}}},
              {"shapes", {{{"name", "plane"}, {"type", "quad"}, {"corner", {-3, -3, 0}}, {"edge_u", {6, 0, 0}}, {"edge_v", {0, 6, 0}},
                           {"material", "m"}}}},
              {"lights", {{{"name", "proj"}, {"type", "projector"}, {"position", {0, 0, 3}}, {"target", {0, 0, 0}},
                           {"irradiance", irradiance}}}}};
  if (!textures.is_null()) doc["textures"] = textures;
  return doc;
}

// Red radiance straight down through (x, y), with its derivative by `name` (or none).
D down(const Scene& s, float x, float y, const char* name = nullptr) {
  std::vector<int> seeds(s.params.values().size(), -1);
  if (name) seeds[resolve_scalars(s.params, {name}).at(0).slot] = 0;
  const ParamView<D> P(s.params, seeds.data());
  Sampler sampler(0, 0, 0);
  return radiance(s, P, RayT<D>{Vec3<D>(glm::vec3(x, y, 1)), Vec3<D>(glm::vec3(0, 0, -1))}, sampler).x;
}

}  // namespace

TEST_CASE("a projector lights a plane facing it with pi irradiance / depth^2 inside its frustum", "[emitter]") {
  const Scene s = load_scene(projector_scene(1.0), "s.json");
  // Default fov: 50 mm on 35 mm film, square: 34.0221 degrees; the frustum at depth 3 is ±0.9178.
  CHECK(std::get<ProjectorEmitter>(s.lights[0].model).fov == Approx(34.0221f).epsilon(1e-5));
  for (glm::vec2 at : {glm::vec2(0, 0), glm::vec2(0.5f, 0.3f), glm::vec2(-0.9f, 0.9f)}) {
    const D L = down(s, at.x, at.y, "shapes.plane.corner[2]");
    INFO(at.x << ", " << at.y);
    CHECK(L.v == Approx(0.6f / 9.f).epsilon(1e-5));          // ρ/π · π/c²
    CHECK(L.d[0] == Approx(2.f * 0.6f / 27.f).epsilon(1e-4));  // d/dz of ρ/(3 − z)²
  }
  CHECK(down(s, 0.95f, 0.f).v == 0.f);
  CHECK(down(s, 0.f, -0.95f).v == 0.f);
}

TEST_CASE("a projector's image: u to the right and v down as seen from the pinhole; it slides with the plane", "[emitter]") {
  // A 2 x 2 image: texels (0, 0) top-left ... (1, 1); red 1 in the top-left texel only, nearest.
  Scene s = load_scene(projector_scene("img", {{"img", {{"type", "bitmap"}, {"width", 2}, {"height", 2}, {"value", 0},
                                                        {"filter_type", "nearest"}}}}),
                       "s.json");
  const Slot data = s.params.find("textures.img.data")->slot;
  s.params.set(data, 1.f);  // texel (0, 0), red
  // Seen from the pinhole looking down -z with up +y, its right is world +x: the top-left texel
  // lights x < 0, y > 0 (Mitsuba's camera-to-sample map: u = 0.5 - 0.5 x/(z t) in a frame whose x
  // is up × axis, here -x).
  CHECK(down(s, -0.4f, 0.4f).v == Approx(0.6f / 9.f).epsilon(1e-5));
  CHECK(down(s, 0.4f, 0.4f).v == 0.f);
  CHECK(down(s, -0.4f, -0.4f).v == 0.f);
  // Bilinear over a ramp: the plane moving toward the projector shrinks the image on it, so a
  // point's uv moves: against central differences of the same ray.
  Scene ramp = load_scene(projector_scene("img", {{"img", {{"type", "bitmap"}, {"width", 8}, {"height", 8}, {"value", 0}}}}), "s.json");
  const Slot texels = ramp.params.find("textures.img.data")->slot;
  for (int i = 0; i < 8 * 8 * 3; ++i) ramp.params.set(texels + Slot(i), float((i / 3) % 8) / 7.f);
  const Slot z = resolve_scalars(ramp.params, {"shapes.plane.corner[2]"}).at(0).slot;
  const float h = 1e-3f;
  double side[2];
  for (int k = 0; k < 2; ++k) {
    Scene t = ramp;
    t.params.set(z, k ? h : -h);
    t.build_geometry();
    side[k] = down(t, 0.5f, 0.2f).v;
  }
  const double fd = (side[1] - side[0]) / (2.0 * h);
  const double uniform = 2.0 * down(ramp, 0.5f, 0.2f).v / 3.0;  // the 1/c² part alone
  CHECK(down(ramp, 0.5f, 0.2f, "shapes.plane.corner[2]").d[0] == Approx(fd).epsilon(2e-3));
  CHECK(std::fabs(fd - uniform) > 0.05 * std::fabs(fd));  // the sliding image matters
}

TEST_CASE("an XML projector renders as its JSON", "[emitter][mitsuba]") {
  TempDir t("dray-projector-");
  const Image xml = render(load_scene(t.write("scene.xml", scene_xml(R"(
  <integrator type="path"><integer name="max_depth" value="2"/></integrator>
  <emitter type="projector">
    <transform name="to_world"><lookat origin="0, 3, 2" target="0, 0, 0" up="0, 0, -1"/></transform>
    <rgb name="irradiance" value="0.5, 1, 2"/><float name="scale" value="3"/><float name="fov" value="45"/>
  </emitter>
  <shape type="rectangle"><transform name="to_world"><rotate x="1" angle="-90"/><scale value="3"/></transform></shape>)"))));
  const json doc = {
      {"camera", {{"origin", {0, 1, 6}}, {"target", {0, 1, 0}}, {"up", {0, 1, 0}}, {"fov_y", 40}, {"width", 24}, {"height", 16}}},
      {"render", {{"spp", 2}, {"max_depth", 1}}},
      {"materials", {{"floor", {{"type", "diffuse"}, {"reflectance", 0.5}}}}},
      {"shapes", {{{"type", "quad"}, {"corner", {-3, 0, 3}}, {"edge_u", {6, 0, 0}}, {"edge_v", {0, 0, -6}}, {"material", "floor"}}}},
      {"lights", {{{"type", "projector"}, {"position", {0, 3, 2}}, {"target", {0, 0, 0}}, {"up", {0, 0, -1}},
                   {"irradiance", {0.5, 1, 2}}, {"scale", 3}, {"fov", 45}}}}};
  const Image js = render(load_scene(doc, (t.dir / "s.json").string()));
  double sum = 0;
  for (size_t i = 0; i < xml.data.size(); ++i) {
    CHECK(xml.data[i] == Approx(js.data[i]).epsilon(1e-4).margin(1e-6));
    sum += xml.data[i];
  }
  CHECK(sum > 1.0);
}
