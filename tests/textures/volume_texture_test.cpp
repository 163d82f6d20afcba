// Mitsuba's `volume` texture (renderer/textures/volume.h) against Mitsuba's own tests
// (src/textures/tests/test_volume.py: eval, eval_1 and eval_3 of a 3 × 3 × 3 grid at three
// points), from JSON and Mitsuba XML; and rendered: an emitting square whose radiance is a grid
// linear in x, seen orthographically, against the closed form column by column, with its
// derivative by a voxel against central differences (the image is linear in the voxels).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "../temp_dir.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "renderer/io/vol_file.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// Mitsuba's test grid: 0.9 everywhere but the plane y = 0 (grid[:, 0, :] = 0), in `channels`
// channels (a three-channel grid holds 0.9, 0.4, 0.2).
void write_test_grid(const std::string& path, int channels) {
  std::vector<float> v;
  const float value[3] = {0.9f, 0.4f, 0.2f};
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 3; ++x)
        for (int c = 0; c < channels; ++c) v.push_back(y == 0 ? 0.f : value[c]);
  write_vol_file(path, glm::ivec3(3), channels, v.data());
}

// A scene whose material's reflectance is `texture` (not rendered: its texture is evaluated).
json textured(const json& texture) {
  return {{"camera", {{"width", 4}, {"height", 4}}},
          {"textures", {{"t", texture}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"albedo", "t"}}}}},
          {"shapes", json::array({{{"name", "s"}, {"type", "sphere"}, {"center", {0, 0, -3}}, {"radius", 1}, {"material", "m"}}})}};
}

// The texture at world point p.
Vec3<float> at(const Scene& s, const glm::vec3& p, float* scalar = nullptr) {
  TexCoord<float> c;
  c.site.p = p;
  const ParamView<float> P(s.params);
  if (scalar) *scalar = eval_texture_1(s.textures[0], P, c);
  return eval_texture(s.textures[0], P, c);
}

const glm::vec3 kPoints[3] = {{0.4f, 0.5f, 0.5f}, {0.4f, 0.0f, 0.4f}, {0.3f, -0.5f, 0.5f}};

}  // namespace

TEST_CASE("volume texture: Mitsuba's test_volume (eval, eval_1, eval_3 at three points)", "[texture]") {
  TempDir t("dray-volume-texture-");
  write_test_grid((t.dir / "one.vol").string(), 1);
  write_test_grid((t.dir / "three.vol").string(), 3);
  const json grid1 = {{"type", "volume"}, {"volume", {{"type", "gridvolume"}, {"filename", (t.dir / "one.vol").string()}}}};
  const json grid3 = {{"type", "volume"}, {"volume", {{"type", "gridvolume"}, {"filename", (t.dir / "three.vol").string()}}}};
  const Scene one = load_scene(textured(grid1), (t.dir / "a.json").string());
  const Scene three = load_scene(textured(grid3), (t.dir / "b.json").string());
  const float expected[3] = {0.9f, 0.f, 0.f};
  for (int k = 0; k < 3; ++k) {
    INFO("point " << k);
    float scalar = -1.f;
    const Vec3<float> v1 = at(one, kPoints[k], &scalar);
    CHECK((v1.x + v1.y + v1.z) / 3.f == Approx(expected[k]).margin(1e-6));  // test01: dr.mean(eval)
    CHECK(scalar == Approx(expected[k]).margin(1e-6));                      // test02: eval_1
    const Vec3<float> v3 = at(three, kPoints[k]);                            // test03: eval_3
    CHECK(v3.x == Approx(k == 0 ? 0.9f : 0.f).margin(1e-6));
    CHECK(v3.y == Approx(k == 0 ? 0.4f : 0.f).margin(1e-6));
    CHECK(v3.z == Approx(k == 0 ? 0.2f : 0.f).margin(1e-6));
  }
  // The voxels are a parameter block; without a volume, Mitsuba's default 0.75.
  CHECK(one.params.find("textures.t.volume")->size == 27);
  const Scene constant = load_scene(textured({{"type", "volume"}}), (t.dir / "c.json").string());
  CHECK(at(constant, kPoints[0]).x == 0.75f);
  // Mitsuba's XML form: a <volume> inside the <texture>.
  const std::string xml = t.write("v.xml", R"(<scene version="3.0.0"><sensor type="perspective"/><shape type="sphere"><bsdf type="diffuse">
      <texture name="reflectance" type="volume"><volume name="volume" type="gridvolume">
        <string name="filename" value="three.vol"/></volume></texture></bsdf></shape></scene>)");
  const Scene from_xml = load_scene(xml);
  CHECK(at(from_xml, kPoints[0]).y == Approx(0.4f).margin(1e-6));
  CHECK_THAT(load_error(t.write("w.xml", R"(<scene version="3.0.0"><sensor type="perspective"/><shape type="sphere"><bsdf type="diffuse">
      <texture name="reflectance" type="volume"><volume name="volume" type="gridvolume">
        <string name="filename" value="missing.vol"/></volume></texture></bsdf></shape></scene>)")),
             Catch::Contains("missing.vol"));
}

TEST_CASE("volume texture: an emitting square's radiance from a grid linear in x, and its derivative by a voxel",
          "[texture]") {
  TempDir t("dray-volume-texture-render-");
  // 8 voxels along x of value (i + 0.5) / 8: trilinear between voxel centres, the value is x itself
  // there; seen orthographically on an 8 x 8 film over [0, 1]², column i's mean is (i + 0.5) / 8.
  constexpr int n = 8;
  std::vector<float> v;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < n; ++x) v.push_back((float(x) + 0.5f) / n);
  write_vol_file((t.dir / "ramp.vol").string(), glm::ivec3(n, 2, 2), 1, v.data());
  const json doc = {
      {"camera", {{"type", "orthographic"}, {"origin", {0.5, 0.5, 1}}, {"target", {0.5, 0.5, 0}}, {"half_width", 0.5},
                  {"half_height", 0.5}, {"width", n}, {"height", n}}},
      {"render", {{"spp", 64}, {"max_depth", 1}, {"filter", "box"}}},
      {"textures", {{"ramp", {{"type", "volume"}, {"volume", {{"type", "gridvolume"}, {"filename", "ramp.vol"}}}}}}},
      {"materials", {{"lamp", {{"type", "diffuse"}, {"albedo", {0, 0, 0}}, {"emission", "ramp"}}}}},
      {"shapes", json::array({{{"name", "square"}, {"type", "quad"}, {"corner", {0, 0, 0}}, {"edge_u", {1, 0, 0}},
                               {"edge_v", {0, 1, 0}}, {"material", "lamp"}}})}};
  const Scene scene = load_scene(doc, (t.dir / "s.json").string());
  RenderOutputs out;
  const Slot voxel = scene.params.find("textures.ramp.volume")->slot + 3;  // x = 3, y = z = 0
  out.wrt = {voxel};
  const Image im = render_local(scene, 2, out);
  // Columns 1 to 6 lie between the first and last voxel centres (the edges clamp).
  for (int x = 1; x < n - 1; ++x) {
    double sum = 0;
    for (int y = 0; y < n; ++y) sum += im.pixel(x, y)[0];
    INFO("column " << x);
    CHECK(sum / n == Approx((x + 0.5) / n).margin(5e-3));
  }
  // The image is linear in the voxels: the derivative's image sum against a central difference.
  double fwd = 0;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) fwd += im.pixel(x, y)[out.derivative_channel(0)];
  Scene plus = scene, minus = scene;
  plus.params.set(voxel, scene.params.get(voxel) + 0.1f);
  minus.params.set(voxel, scene.params.get(voxel) - 0.1f);
  double fd = 0;
  const Image ip = render_local(plus, 2), imn = render_local(minus, 2);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) fd += (ip.pixel(x, y)[0] - imn.pixel(x, y)[0]) / 0.2;
  CHECK(fwd > 0.5);  // the voxel at x = 3 weighs on columns 2 to 4
  CHECK(fwd == Approx(fd).epsilon(1e-4));
}
