// Textured area emitters (Mitsuba's `area` with a bitmap `radiance`): seen directly, the
// texture at the point's UV; a constant texture lights as its colour does; the image is linear in
// the texels (their derivatives sum to the image over the colour); an XML area emitter with a
// <texture name="radiance"> renders as its JSON.
#include <catch2/catch.hpp>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "tests/io/mitsuba_scenes.h"
#include "tests/temp_dir.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// A 1 x 1 lamp at height 1 facing down over a grey floor, seen from above and to the side;
// `emission` a colour or the name of texture "t" (2 x 2, or `t` given).
json lamp_scene(const json& emission, const json& texture = json()) {
  json doc = {{"camera", {{"origin", {0, 3, 4}}, {"target", {0, 0.5, 0}}, {"fov_y", 50}, {"width", 24}, {"height", 16}}},
              {"render", {{"spp", 8}, {"max_depth", 2}}},
              {"materials", {{"floor", {{"type", "diffuse"}, {"reflectance", 0.5}}},
                             {"lamp", {{"type", "diffuse"}, {"reflectance", 0.0}, {"emission", emission}, {"two_sided", true}}}}},
              {"shapes", {{{"name", "floor"}, {"type", "quad"}, {"corner", {-3, 0, -3}}, {"edge_u", {0, 0, 6}}, {"edge_v", {6, 0, 0}},
                           {"material", "floor"}},
                          {{"name", "lamp"}, {"type", "quad"}, {"corner", {-0.5, 1, -0.5}}, {"edge_u", {1, 0, 0}}, {"edge_v", {0, 0, 1}},
                           {"material", "lamp"}}}}};
  if (!texture.is_null()) doc["textures"] = {{"t", texture}};
  return doc;
}

// Sets texture t's texels (x, y, c) to f(x, y, c).
template <class F>
void set_texels(Scene& s, F f) {
  const BitmapTexture& t = std::get<BitmapTexture>(s.textures.at(0).model);
  const Slot data = s.params.find("textures.t.data")->slot;
  for (int y = 0; y < t.height; ++y)
    for (int x = 0; x < t.width; ++x)
      for (int c = 0; c < 3; ++c) s.params.set(data + Slot((y * t.width + x) * 3 + c), f(x, y, c));
}

float texel_value(int x, int y, int c) { return 0.5f + 0.7f * float(x) + 1.3f * float(y) + 0.2f * float(c); }

}  // namespace

TEST_CASE("a textured area light seen directly shows its texture at the point's UV", "[emitter]") {
  Scene s = load_scene(lamp_scene("t", {{"type", "bitmap"}, {"width", 2}, {"height", 2}, {"value", 1}}), "s.json");
  set_texels(s, texel_value);
  const ParamView<float> P(s.params);
  // The lamp's UV: (x + 0.5, z + 0.5) (corner + u edge_u + v edge_v); rays straight up from below.
  for (glm::vec2 uv : {glm::vec2(0.25f, 0.25f), glm::vec2(0.6f, 0.3f), glm::vec2(0.9f, 0.8f)}) {
    Scene direct = s;
    direct.render.max_depth = 0;
    Sampler sampler(0, 0, 0);
    const glm::vec3 L = to_glm(radiance(direct, P, RayT<float>{Vec3<float>(glm::vec3(uv.x - 0.5f, 0.5f, uv.y - 0.5f)),
                                                              Vec3<float>(glm::vec3(0, 1, 0))}, sampler));
    const glm::vec3 expect = to_glm(eval_texture(s.textures[0], P, uv));
    INFO("uv " << uv.x << ", " << uv.y);
    CHECK(L.x == Approx(expect.x).epsilon(1e-5));
    CHECK(L.z == Approx(expect.z).epsilon(1e-5));
    CHECK(expect.x != Approx(expect.z));  // the texture varies: the check can fail
  }
}

TEST_CASE("a constant texture lights as its colour; the image is linear in the texels", "[emitter]") {
  const json colour = {0.7, 0.4, 0.2};
  const Image plain = render(load_scene(lamp_scene(colour), "s.json"));
  Scene textured = load_scene(lamp_scene("t", {{"type", "bitmap"}, {"width", 2}, {"height", 2}, {"value", colour}}), "s.json");
  const Image with_texture = render(textured);
  double sum = 0;
  for (size_t i = 0; i < plain.data.size(); ++i) {
    CHECK(with_texture.data[i] == Approx(plain.data[i]).epsilon(1e-5).margin(1e-7));
    sum += plain.data[i];
  }
  CHECK(sum > 1.0);  // the floor is lit
  // d L / d texel (x, y, red), summed over the 4 texels, is L / red at a floor point lit by the
  // lamp (next-event estimation and the BSDF's hit on the lamp), as the image is linear in them.
  std::vector<Slot> slots;
  for (const char* name : {"textures.t.data[0,0,0]", "textures.t.data[0,1,0]", "textures.t.data[1,0,0]", "textures.t.data[1,1,0]"})
    slots.push_back(resolve_scalars(textured.params, {name}).at(0).slot);
  std::vector<int> seeds(textured.params.values().size(), -1);
  for (size_t k = 0; k < slots.size(); ++k) seeds[slots[k]] = int(k);
  const ParamView<ad::Dual<4>> P(textured.params, seeds.data());
  for (uint64_t k = 0; k < 8; ++k) {
    Sampler sampler(3, 0, k);
    const auto L = radiance(textured, P, RayT<ad::Dual<4>>{Vec3<ad::Dual<4>>(glm::vec3(0.3f, 0.5f, 0.2f)),
                                                            Vec3<ad::Dual<4>>(glm::normalize(glm::vec3(0.1f, -1.f, 0.2f)))}, sampler);
    double d = 0;
    for (int t = 0; t < 4; ++t) d += L.x.d[t];
    INFO("sample " << k << ": L " << L.x.v);
    CHECK(d == Approx(L.x.v / 0.7).epsilon(1e-4).margin(1e-7));
  }
}

TEST_CASE("a floor moving under a textured lamp: its light's derivative against central differences", "[emitter]") {
  // The lamp's UV is its material point's for next-event estimation and for a BSDF sample that
  // reaches it from the camera's first hit (taken there with the geometry term's turn): counting
  // the hit's sliding UV as well doubled the derivative (2.2x in Mitsuba's
  // translate_plane_under_textured_area_emitter).
  // A 6 x 6 lamp close over the floor, so that BSDF samples carry much of its light.
  json doc = lamp_scene("t", {{"type", "bitmap"}, {"width", 2}, {"height", 2}, {"value", 1}});
  doc["shapes"][1]["corner"] = {-3, 1, -3};
  doc["shapes"][1]["edge_u"] = {6, 0, 0};
  doc["shapes"][1]["edge_v"] = {0, 0, 6};
  Scene s = load_scene(doc, "s.json");
  set_texels(s, [](int x, int y, int c) { return 0.1f + 4.f * float(x) + 0.5f * float(y) + 0.1f * float(c); });
  const Slot slot = resolve_scalars(s.params, {"shapes.floor.corner[1]"}).at(0).slot;
  std::vector<int> seeds(s.params.values().size(), -1);
  seeds[slot] = 0;
  using D = ad::Dual<1>;
  const ParamView<D> P(s.params, seeds.data());
  const glm::vec3 o(0.f, 0.8f, 2.5f), d = glm::normalize(glm::vec3(0.2f, 0.f, 0.1f) - o);  // under the lamp
  const float h = 1e-3f;
  Scene up = s, down = s;
  up.params.set(slot, s.params.get(slot) + h);
  down.params.set(slot, s.params.get(slot) - h);
  up.build_geometry();
  down.build_geometry();
  // Paths near the lamp's grazing parts make the derivative heavy-tailed: 3 seeds of 2^18 paths
  // (each seed within 4% of its differences; the doubled UV motion was 55% over).
  const uint64_t kSamples = 1 << 18;
  double fwd = 0, fd = 0;
  for (uint64_t k = 0; k < 3 * kSamples; ++k) {
    Sampler a(k / kSamples, 0, k), b(k / kSamples, 0, k), c(k / kSamples, 0, k);
    fwd += radiance(s, P, RayT<D>{Vec3<D>(o), Vec3<D>(d)}, a).x.d[0];
    fd += (radiance(up, ParamView<float>(up.params), RayT<float>{Vec3<float>(o), Vec3<float>(d)}, b).x -
           radiance(down, ParamView<float>(down.params), RayT<float>{Vec3<float>(o), Vec3<float>(d)}, c).x) / (2.0 * h);
  }
  INFO("forward " << fwd / (3 * kSamples) << ", differences " << fd / (3 * kSamples));
  CHECK(fwd == Approx(fd).epsilon(0.025));
  CHECK(std::fabs(fd / (3 * kSamples)) > 0.1);  // the floor's light changes with its height
}

TEST_CASE("an XML area emitter with a radiance texture renders as its JSON", "[emitter][mitsuba]") {
  TempDir t("dray-area-texture-");
  Image texels(2, 2, 3);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x)
      for (int c = 0; c < 3; ++c) texels.pixel(x, y)[c] = texel_value(x, y, c);
  write_image(texels, (t.dir / "glow.exr").string());
  // A 2 x 2 lamp at height 1 facing down (u along x, v along z), over a 6 x 6 floor.
  const Image xml = render(load_scene(t.write("scene.xml", scene_xml(R"(
  <integrator type="path"><integer name="max_depth" value="2"/></integrator>
  <shape type="rectangle">
    <transform name="to_world"><rotate x="1" angle="90"/><translate y="1"/></transform>
    <emitter type="area"><texture name="radiance" type="bitmap"><string name="filename" value="glow.exr"/></texture></emitter>
  </shape>
  <shape type="rectangle">
    <transform name="to_world"><rotate x="1" angle="-90"/><scale value="3"/></transform>
  </shape>)"))));
  const json grey = {{"type", "diffuse"}, {"reflectance", 0.5}};
  json lamp = grey;
  lamp["emission"] = "glow";
  const json doc = {
      {"camera", {{"origin", {0, 1, 6}}, {"target", {0, 1, 0}}, {"up", {0, 1, 0}}, {"fov_y", 40}, {"width", 24}, {"height", 16}}},
      {"render", {{"spp", 2}, {"max_depth", 1}}},
      {"textures", {{"glow", {{"type", "bitmap"}, {"filename", "glow.exr"}}}}},
      {"materials", {{"lamp", lamp}, {"floor", grey}}},
      {"shapes", {{{"type", "quad"}, {"corner", {-1, 1, -1}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 0, 2}}, {"material", "lamp"}},
                  {{"type", "quad"}, {"corner", {-3, 0, 3}}, {"edge_u", {6, 0, 0}}, {"edge_v", {0, 0, -6}}, {"material", "floor"}}}}};
  const Image json_image = render(load_scene(doc, (t.dir / "s.json").string()));
  double sum = 0;
  for (size_t i = 0; i < xml.data.size(); ++i) {
    CHECK(xml.data[i] == Approx(json_image.data[i]).epsilon(1e-4).margin(1e-6));
    sum += xml.data[i];
  }
  CHECK(sum > 10.0);  // the lamp is seen and lights the floor
}
