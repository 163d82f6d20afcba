// Textures: wrap modes, bilinear and nearest filtering, to_uv, the checkerboard, bitmaps read from
// PNG (sRGB or raw) and EXR, Mitsuba's UV conventions on spheres, quads and meshes (OBJ `vt`),
// parameter blocks (listing, NAME[i,j,c]), and a textured plane's radiance and texel derivatives
// against the closed form.
#include <catch2/catch.hpp>

#include <fstream>

#include "ad/dual.h"
#include "ad/var.h"
#include "renderer/image/image.h"
#include "renderer/integrators/radiance.h"
#include "renderer/io/scene_loader.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;

namespace {

// A 2×2 (W×H) RGB bitmap texture with texel (x, y) = (x, y, 10 + x + 2y).
struct Fixture {
  ParamTable params;
  BitmapTexture tex;
  Fixture(int w = 2, int h = 2) {
    std::vector<float> v;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) v.insert(v.end(), {float(x), float(y), float(10 + x + 2 * y)});
    tex.width = w;
    tex.height = h;
    tex.data = params.add_block("textures.t.data", v, {uint32_t(h), uint32_t(w), 3u});
  }
  glm::vec3 at(glm::vec2 uv) const { return to_glm(eval_texture(Texture{"t", tex}, ParamView<float>(params), uv)); }
};

json plane_scene(const json& textures, const json& reflectance) {
  return {{"camera", {{"origin", {0, 5, 0.01}}, {"target", {0, 0, 0}}}},
          {"render", {{"max_depth", 1}}},
          {"textures", textures},
          {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", reflectance}}}}},
          {"shapes", {{{"name", "plane"}, {"type", "quad"}, {"corner", {-1, 0, -1}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 0, 2}},
                       {"material", "m"}}}},
          {"lights", {{{"type", "directional"}, {"direction", {0, -1, 0}}, {"irradiance", kPi}}}}};
}

}  // namespace

TEST_CASE("wrap modes", "[texture]") {
  using W = BitmapTexture::Wrap;
  const auto wrap_texel = BitmapTexture::wrap_texel;
  CHECK(wrap_texel(-1, 4, W::repeat) == 3);
  CHECK(wrap_texel(5, 4, W::repeat) == 1);
  CHECK(wrap_texel(-1, 4, W::clamp) == 0);
  CHECK(wrap_texel(9, 4, W::clamp) == 3);
  CHECK(wrap_texel(-1, 4, W::mirror) == 0);
  CHECK(wrap_texel(4, 4, W::mirror) == 3);
  CHECK(wrap_texel(5, 4, W::mirror) == 2);
  CHECK(wrap_texel(8, 4, W::mirror) == 0);
}

TEST_CASE("bilinear and nearest filtering, to_uv, wrap at the edges", "[texture]") {
  Fixture f;
  // Texel centres give the texel; rows run from the top (v = 0).
  CHECK(f.at({0.25f, 0.25f}) == glm::vec3(0, 0, 10));
  CHECK(f.at({0.75f, 0.25f}) == glm::vec3(1, 0, 11));
  CHECK(f.at({0.25f, 0.75f}) == glm::vec3(0, 1, 12));
  // Between the four centres: their mean.
  const glm::vec3 mid = f.at({0.5f, 0.5f});
  CHECK(mid.x == Approx(0.5f));
  CHECK(mid.y == Approx(0.5f));
  CHECK(mid.z == Approx(11.5f));
  // A quarter of a texel right of the first centre: 3/4 and 1/4.
  CHECK(f.at({0.375f, 0.25f}).x == Approx(0.25f));
  // At u = 0 the repeat wraps to the last column: halfway between columns 1 and 0.
  CHECK(f.at({0.f, 0.25f}).x == Approx(0.5f));
  f.tex.wrap = BitmapTexture::Wrap::clamp;
  CHECK(f.at({0.f, 0.25f}).x == Approx(0.f));
  f.tex.nearest = true;
  CHECK(f.at({0.45f, 0.55f}) == glm::vec3(0, 1, 12));
  f.tex.nearest = false;
  f.tex.to_uv.scale = glm::vec2(0.5f);
  f.tex.to_uv.offset = glm::vec2(0.5f, 0.f);
  CHECK(f.at({-0.5f, 0.5f}) == glm::vec3(0, 0, 10));  // uv' = uv/2 + (0.5, 0) = (0.25, 0.25)
}

TEST_CASE("checkerboard: Mitsuba's pattern, as a colour and as a number", "[texture]") {
  ParamTable p;
  CheckerboardTexture c;
  c.color0 = p.add("c0", glm::vec3(1.f));
  c.color1 = p.add("c1", glm::vec3(0.f));
  const Texture t{"t", c};
  const ParamView<float> P(p);
  CHECK(eval_texture(t, P, {0.25f, 0.25f}).x == 1.f);
  CHECK(eval_texture(t, P, {0.75f, 0.25f}).x == 0.f);
  CHECK(eval_texture(t, P, {0.75f, 0.75f}).x == 1.f);
  CHECK(eval_texture(t, P, {1.25f, 0.25f}).x == 1.f);  // repeats
  // Read as a number (Mitsuba's eval_1, src/textures/checkerboard.cpp), the colours swap: color0
  // where the halves of u and v differ (test_textured_roughconductor's roughness depends on it).
  CHECK(eval_texture_1(t, P, {0.25f, 0.25f}) == 0.f);
  CHECK(eval_texture_1(t, P, {0.75f, 0.25f}) == Approx(1.f));
}

TEST_CASE("rawconstant: the value as given; its gradient is zero", "[texture]") {
  ParamTable p;
  const Texture t{"t", RawConstantTexture{p.add("v", glm::vec3(0.5f, 0.5f, 1.f))}};
  const ParamView<float> P(p);
  CHECK(to_glm(eval_texture(t, P, {0.3f, 0.9f})) == glm::vec3(0.5f, 0.5f, 1.f));
  float du = 1.f, dv = 1.f;
  texture_gradient(t, P, {0.3f, 0.9f}, du, dv);
  CHECK((du == 0.f && dv == 0.f));
}

TEST_CASE("texture_gradient: the bilinear lookup's derivative by u and v, through to_uv", "[texture]") {
  // Against central differences of the lookup itself, away from texel boundaries (where the
  // bilinear interpolant is smooth), in both wrap directions.
  ParamTable p;
  BitmapTexture b;
  b.width = 5;
  b.height = 4;
  std::vector<float> texels(size_t(3 * b.width * b.height));
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = std::sin(0.7f * float(i)) * 0.5f + 0.5f;
  b.data = p.add_block("d", texels, {4u, 5u, 3u});
  b.to_uv.scale = {2.f, 3.f};
  b.to_uv.offset = {0.1f, -0.2f};
  const Texture t{"t", b};
  const ParamView<float> P(p);
  for (glm::vec2 uv : {glm::vec2(0.13f, 0.37f), glm::vec2(0.61f, 0.92f), glm::vec2(-0.27f, 0.05f)}) {
    float du, dv;
    texture_gradient(t, P, uv, du, dv);
    const float h = 1e-3f;
    auto f = [&](glm::vec2 q) { return double(luminance(eval_texture(t, P, q))); };
    INFO("uv " << uv.x << ", " << uv.y);
    CHECK(du == Approx((f(uv + glm::vec2(h, 0)) - f(uv - glm::vec2(h, 0))) / (2 * h)).epsilon(2e-3));
    CHECK(dv == Approx((f(uv + glm::vec2(0, h)) - f(uv - glm::vec2(0, h))) / (2 * h)).epsilon(2e-3));
  }
}

TEST_CASE("bitmaps from PNG (sRGB or raw) and EXR; blocks listed by shape and named by element", "[texture]") {
  const dray::testing::TempDir dir("dray_texture_test_");
  Image img(3, 2, 3);
  for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = float(i) / float(img.data.size());
  write_image(img, (dir.dir / "t.png").string());
  write_image(img, (dir.dir / "t.exr").string());
  auto load = [&](const json& tex) {
    json doc = plane_scene({{"t", tex}}, "t");
    return load_scene(doc, (dir.dir / "s.json").string());
  };
  const Scene png = load({{"type", "bitmap"}, {"filename", "t.png"}});
  const Scene raw = load({{"type", "bitmap"}, {"filename", "t.png"}, {"raw", true}});
  const Scene exr = load({{"type", "bitmap"}, {"filename", "t.exr"}, {"wrap_mode", "clamp"}, {"filter_type", "nearest"}});
  const ParamEntry e = *exr.params.find("textures.t.data");
  REQUIRE(e.block());
  CHECK(e.shape == std::vector<uint32_t>{2, 3, 3});
  CHECK(std::get<BitmapTexture>(exr.textures[0].model).wrap == BitmapTexture::Wrap::clamp);
  CHECK(std::get<BitmapTexture>(exr.textures[0].model).nearest);
  for (size_t i = 0; i < img.data.size(); ++i) {
    CHECK(exr.params.get(e.slot + Slot(i)) == img.data[i]);  // EXR: bitwise
    // PNG: 8 bits of sRGB, decoded to linear (within half a step); raw: the bytes / 255.
    CHECK(png.params.get(e.slot + Slot(i)) == Approx(img.data[i]).margin(0.01));
    const float byte = std::round(linear_to_srgb(img.data[i]) * 255.f) / 255.f;
    CHECK(raw.params.get(e.slot + Slot(i)) == Approx(byte).margin(1e-6));
  }
  // NAME[i,j,c]: row i, column j, channel c.
  CHECK(resolve_scalars(exr.params, {"textures.t.data[1,2,0]"})[0].slot == e.slot + Slot((1 * 3 + 2) * 3));
  CHECK_THROWS_WITH(resolve_scalars(exr.params, {"textures.t.data[2,0,0]"}), Catch::Contains("index 2 is out of range for textures.t.data (2x3x3)"));
  CHECK_THROWS_WITH(resolve_scalars(exr.params, {"textures.t.data[1]"}), Catch::Contains("is a 2x3x3 block: name an element with 3 indices"));
  CHECK(resolve_scalars(exr.params, {"textures.t.data"}).size() == 18);
  // Errors say where.
  CHECK_THROWS_WITH(load({{"type", "bitmap"}, {"filename", "missing.png"}}), Catch::Contains("/textures/t/filename:") && Catch::Contains("no such file"));
  CHECK_THROWS_WITH(load({{"type", "bitmap"}, {"filename", "t.png"}, {"wrap_mode", "wrap"}}), Catch::Contains("/textures/t/wrap_mode: must be"));
  CHECK_THROWS_WITH(load({{"type", "marble"}}), Catch::Contains("/textures/t/type: unknown texture type \"marble\"") &&
                                                   Catch::Contains("(expected bitmap, checkerboard, rawconstant, mesh_attribute, volume)"));
  json doc = plane_scene(json::object(), "wood");
  CHECK_THROWS_WITH(load_scene(doc, "s.json"), Catch::Contains("/materials/m/reflectance: no texture named \"wood\""));
}

TEST_CASE("UV conventions: sphere, quad, mesh vt (v flipped) and barycentrics", "[texture]") {
  const dray::testing::TempDir dir("dray_texture_test_");
  {
    std::ofstream obj(dir.dir / "tri.obj");
    obj << "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0.1 0.2\nvt 0.9 0.2\nvt 0.1 0.8\nf 1/1 2/2 3/3\n";
  }
  json doc = {{"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}}},
              {"materials", {{"m", {{"type", "diffuse"}}}}},
              {"shapes",
               {{{"type", "sphere"}, {"center", {10, 0, 0}}, {"radius", 2}, {"material", "m"}},
                {{"type", "quad"}, {"corner", {20, 0, 0}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 4, 0}}, {"material", "m"}},
                {{"type", "mesh"}, {"file", "tri.obj"}, {"material", "m"}}}}};
  const Scene s = load_scene(doc, (dir.dir / "s.json").string());
  const ParamView<float> P(s.params);
  auto uv_at = [&](glm::vec3 from, glm::vec3 d) {
    Hit hit;
    REQUIRE(s.bvh.intersect(Ray{from, glm::normalize(d)}, hit));
    const PrimT<float> prim = lift_prim(s, P, hit.prim);
    return surface_uv(s, hit.prim, prim, from + glm::normalize(d) * hit.t);
  };
  // Sphere: u = atan2(y, x) / 2π, v = acos(z) / π about its centre.
  const glm::vec2 a = uv_at({10, 5, 0}, {0, -1, 0});  // the point (0, 1, 0) from the centre
  CHECK(a.x == Approx(0.25f));
  CHECK(a.y == Approx(0.5f));
  const glm::vec2 b = uv_at({10, 0, 5}, {0, 0, -1});  // the +z pole
  CHECK(b.y == Approx(0.f).margin(1e-3));
  // Quad: corner + u edge_u + v edge_v.
  const glm::vec2 q = uv_at({20.5f, 3, 5}, {0, 0, -1});
  CHECK(q.x == Approx(0.25f));
  CHECK(q.y == Approx(0.75f));
  // Mesh: the vt of the corners (v flipped: 1 - v) interpolated.
  const glm::vec2 m = uv_at({0.25f, 0.25f, 5}, {0, 0, -1});
  CHECK(m.x == Approx(0.1f * 0.5f + 0.9f * 0.25f + 0.1f * 0.25f));
  CHECK(m.y == Approx(0.8f * 0.5f + 0.8f * 0.25f + 0.2f * 0.25f));
}

TEST_CASE("a textured plane: radiance is the texel's colour, derivatives by texels are bilinear weights", "[texture]") {
  // A 4×4 texture on a 2×2 plane under a sun of irradiance π: radiance = reflectance exactly.
  std::vector<float> v(4 * 4 * 3);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.05f * float(i % 17);
  json doc = plane_scene({{"t", {{"type", "bitmap"}, {"width", 4}, {"height", 4}, {"value", 0.5}}}}, "t");
  Scene s = load_scene(doc, "s.json");
  const Slot data = s.params.find("textures.t.data")->slot;
  for (size_t i = 0; i < v.size(); ++i) s.params.set(data + Slot(i), v[i]);
  const Slot texel = resolve_scalars(s.params, {"textures.t.data[1,2,0]"})[0].slot;
  std::vector<int> seeds(s.params.values().size(), -1);
  seeds[texel] = 0;
  const ParamView<ad::Dual<1>> P(s.params, seeds.data());
  // The quad's uv is (x + 1, z + 1) / 2; texel (row 1, column 2) has its centre at uv (0.625, 0.375).
  for (glm::vec2 uv : {glm::vec2(0.625f, 0.375f), glm::vec2(0.7f, 0.3f), glm::vec2(0.1f, 0.1f)}) {
    const glm::vec3 at(2.f * uv.x - 1.f, 0.f, 2.f * uv.y - 1.f);
    Sampler sampler(0, 0, 0);
    const Vec3<ad::Dual<1>> L = radiance(s, P, RayT<ad::Dual<1>>{Vec3<ad::Dual<1>>(at + glm::vec3(0, 1, 0)),
                                                                   Vec3<ad::Dual<1>>(glm::vec3(0, -1, 0))}, sampler);
    const glm::vec3 expect = to_glm(eval_texture(s.textures[0], ParamView<float>(s.params), uv));
    CHECK(L.x.v == Approx(expect.x).epsilon(1e-4));
    CHECK(L.z.v == Approx(expect.z).epsilon(1e-4));
    // d L / d texel = its bilinear weight.
    const float x = uv.x * 4.f - 0.5f, y = uv.y * 4.f - 0.5f;
    const float w = std::max(0.f, 1.f - std::fabs(x - 2.f)) * std::max(0.f, 1.f - std::fabs(y - 1.f));
    CHECK(L.x.d[0] == Approx(w).margin(1e-4));
    CHECK(L.y.d[0] == 0.f);
    // Reverse mode, every texel seeded (gradient entry = offset in the block): the red channel's
    // adjoints are the four bilinear weights (wrapped past the edge at uv 0.1), summing to one,
    // and no other channel's texel receives any.
    std::vector<int> all(s.params.values().size(), -1);
    for (int k = 0; k < int(v.size()); ++k) all[data + Slot(k)] = k;
    ad::Tape& tape = ad::Tape::local();
    tape.clear();
    Sampler replay_sampler(0, 0, 0);
    const Vec3<ad::Var> Lr = radiance(s, ParamView<ad::Var>(s.params, all.data()),
                                      RayT<ad::Var>{Vec3<ad::Var>(at + glm::vec3(0, 1, 0)), Vec3<ad::Var>(glm::vec3(0, -1, 0))},
                                      replay_sampler);
    CHECK(Lr.x.v == L.x.v);
    tape.begin_adjoints();
    tape.seed(Lr.x.i, 1.f);
    std::vector<double> grad(v.size(), 0.0);
    REQUIRE(tape.backward(grad));
    CHECK(grad[texel - data] == Approx(w).margin(1e-4));
    double red = 0.0;
    int reached = 0;
    for (size_t k = 0; k < v.size(); ++k) {
      if (k % 3 != 0) CHECK(grad[k] == 0.0);
      red += k % 3 == 0 ? grad[k] : 0.0;
      reached += grad[k] != 0.0;
    }
    CHECK(red == Approx(1.0).epsilon(1e-4));
    CHECK(reached <= 4);
    tape.clear();
  }
}
