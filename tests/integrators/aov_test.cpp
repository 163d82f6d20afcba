// Mitsuba's aov integrator: each AOV against its closed form (an orthographic view of a plane, a
// sphere's depth, a triangle's given shading normal), depth from the pinhole whatever the near
// clip, zeros where the ray meets nothing; the image unchanged by its AOVs; Mitsuba's aovs strings
// and XML; named EXR channels.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <tinyexr.h>

#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/temp_dir.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

constexpr int kW = 16, kH = 12;

json base(const json& camera, const json& shapes, const std::string& aovs) {
  json cam = {{"origin", {0, 0, 0}}, {"target", {0, 0, -1}}, {"width", kW}, {"height", kH}};
  cam.update(camera);
  return {{"camera", cam},
          {"render", {{"spp", 8}, {"max_depth", 2}, {"aovs", aovs}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}}}}},
          {"shapes", shapes},
          {"lights", json::array({{{"type", "environment"}, {"radiance", {1, 1, 1}}}})}};
}

Image render_aovs(const json& doc) {
  const Scene s = load_scene(doc, "aov.json", true);
  return render_local(s, 2, with_aovs({}, s));
}

// The plane z = -depth from x, y in [-4, 4], facing +z.
json plane(double depth) {
  return json::array({{{"name", "p"}, {"type", "quad"}, {"corner", {-4, -4, -depth}}, {"edge_u", {8, 0, 0}},
                       {"edge_v", {0, 8, 0}}, {"material", "m"}}});
}

}  // namespace

TEST_CASE("AOVs of an orthographic view of a plane: depth, position, normal, uv, indices in closed form", "[aov]") {
  const json ortho = {{"type", "orthographic"}, {"half_width", 2}, {"half_height", 1.5}};
  const Image im = render_aovs(base(ortho, plane(3), "dd.y:depth,pp:position,nn:geo_normal,sn:sh_normal,uv:uv,pi:prim_index,si:shape_index"));
  REQUIRE(im.channels == 3 + 1 + 3 + 3 + 3 + 2 + 1 + 1);
  double worst = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      double a[14];
      std::copy_n(im.pixel(x, y) + 3, 14, a);
      // The film spans x in [-2, 2], y in [1.5, -1.5] top down: the pixel's jittered positions
      // average near its centre (8 samples: within half a pixel, 0.125).
      const double cx = -2 + 4 * (x + 0.5) / kW, cy = 1.5 - 3 * (y + 0.5) / kH;
      const double u = (cx + 4) / 8, v = (cy + 4) / 8;  // the quad's own coordinates
      worst = std::max({worst, std::abs(a[0] - 3.0), std::abs(a[1] - cx) / 0.125, std::abs(a[2] - cy) / 0.125,
                        std::abs(a[3] + 3.0), std::abs(a[4]), std::abs(a[5]), std::abs(a[6] - 1.0), std::abs(a[7]),
                        std::abs(a[8]), std::abs(a[9] - 1.0), std::abs(a[10] - u) / (0.125 / 8),
                        std::abs(a[11] - v) / (0.125 / 8), std::abs(a[13] - 1.0)});
      CHECK(a[12] == 0.0);  // the quad is one primitive
    }
  INFO("worst: " << worst);
  CHECK(worst <= 1.0);
}

TEST_CASE("AOV depth is the distance from the pinhole, whatever the near clip; zeros where nothing is hit", "[aov]") {
  // A sphere of radius 1 at distance 5 straight ahead: the centre pixels' depth is 4.
  const json sphere = json::array({{{"name", "s"}, {"type", "sphere"}, {"center", {0, 0, -5}}, {"radius", 1}, {"material", "m"}}});
  const json persp = {{"fov_y", 10}};
  json clipped = persp;
  clipped["near_clip"] = 0.5;
  const Image a = render_aovs(base(persp, sphere, "d:depth,n:geo_normal,s:shape_index"));
  const Image b = render_aovs(base(clipped, sphere, "d:depth,n:geo_normal,s:shape_index"));
  const float* c = a.pixel(kW / 2, kH / 2) + 3;
  CHECK(c[0] == Approx(4.0).epsilon(2e-3));
  CHECK(c[3] == Approx(1.0).epsilon(3e-3));  // facing the camera (the pixel centre is half a pixel off the axis)
  CHECK(c[4] == 1.f);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) CHECK(a.pixel(x, y)[3] == Approx(b.pixel(x, y)[3]).margin(1e-5));
  // A wide view: its corner rays miss the sphere (every AOV 0).
  const Image wide = render_aovs(base({{"fov_y", 60}}, sphere, "d:depth,n:geo_normal,s:shape_index"));
  for (int k = 3; k < wide.channels; ++k) CHECK(wide.pixel(0, 0)[k] == 0.f);
}

TEST_CASE("AOV sh_normal is a mesh's interpolated normal, geo_normal its face's", "[aov]") {
  TempDir t("dray-aov-");
  // One triangle in z = -2 facing +z, its three vertex normals tilted to (0.6, 0, 0.8).
  const std::string obj = t.write("tri.obj", "v -5 -5 -2\nv 5 -5 -2\nv 0 5 -2\nvn 0.6 0 0.8\nf 1//1 2//1 3//1\n");
  const json mesh = json::array({{{"name", "tri"}, {"type", "mesh"}, {"file", obj}, {"material", "m"}}});
  const Image im = render_aovs(base({{"fov_y", 20}}, mesh, "g:geo_normal,s:sh_normal"));
  const float* a = im.pixel(kW / 2, kH / 2) + 3;
  CHECK(a[2] == Approx(1.0));
  CHECK(a[3] == Approx(0.6));
  CHECK(a[5] == Approx(0.8));
}

TEST_CASE("AOVs dp_du, dp_dv, duv_dx, duv_dy and albedo in closed form", "[aov]") {
  // The orthographic view of the 8 x 8 plane: dp/du and dp/dv its edges; a pixel (0.25 across, rows
  // going down) moves u by 0.25 / 8 and v by -0.25 / 8, Mitsuba's differentials scaled by 1 / sqrt(spp).
  const json ortho = {{"type", "orthographic"}, {"half_width", 2}, {"half_height", 1.5}};
  json doc = base(ortho, plane(3), "du:dp_du,dv:dp_dv,ux:duv_dx,uy:duv_dy,al:albedo");
  const double k = 1 / std::sqrt(8.0);
  const double expected[13] = {8, 0, 0, 0, 8, 0, 0.25 / 8 * k, 0, 0, -0.25 / 8 * k, 0.5, 0.5, 0.5};
  const Image im = render_aovs(doc);
  REQUIRE(im.channels == 3 + 13);
  double worst = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      for (int c = 0; c < 13; ++c) worst = std::max(worst, std::abs(im.pixel(x, y)[3 + c] - expected[c]));
  INFO("worst difference " << worst);
  CHECK(worst < 1e-6);
  // Albedo: a plastic's diffuse_reflectance, a principled's base_color, a blend's mixture, a rough
  // conductor's π f(n, n) = F0 / (4 α²) (Beckmann D(n) = 1 / (π α²), G = 1; F0 = (η-1)² / (η+1)² = 1/9
  // for η = 2, k = 0), a smooth dielectric's 0 (a Dirac lobe).
  const json plastic = {{"type", "plastic"}, {"diffuse_reflectance", {0.2, 0.3, 0.4}}};
  const std::vector<std::pair<json, glm::vec3>> cases = {
      {plastic, {0.2f, 0.3f, 0.4f}},
      {{{"type", "principled"}, {"base_color", {0.1, 0.6, 0.3}}}, {0.1f, 0.6f, 0.3f}},
      {{{"type", "blendbsdf"}, {"weight", 0.25}, {"bsdf", {{{"type", "diffuse"}, {"reflectance", 0.5}}, plastic}}},
       glm::vec3(0.5f) * 0.75f + glm::vec3(0.2f, 0.3f, 0.4f) * 0.25f},
      {{{"type", "roughconductor"}, {"eta", 2}, {"k", 0}, {"alpha", 0.5}}, glm::vec3(1.f / 9.f)},
      {{{"type", "dielectric"}}, glm::vec3(0.f)}};
  for (const auto& [material, albedo] : cases) {
    doc = base(ortho, plane(3), "al:albedo");
    doc["materials"]["m"] = material;
    const Image a = render_aovs(doc);
    INFO(material.dump());
    for (int c = 0; c < 3; ++c) CHECK(a.pixel(kW / 2, kH / 2)[3 + c] == Approx(albedo[c]).margin(1e-6));
  }
}

TEST_CASE("AOVs leave the image bitwise as it was", "[aov]") {
  json doc = base({{"fov_y", 40}}, plane(3), "d:depth");
  const Image with = render_aovs(doc);
  doc["render"].erase("aovs");
  const Scene s = load_scene(doc, "aov.json", true);
  const Image without = render_local(s, 2);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      for (int c = 0; c < 3; ++c) REQUIRE(with.pixel(x, y)[c] == without.pixel(x, y)[c]);
}

TEST_CASE("Mitsuba's aovs strings: names and types, errors", "[aov]") {
  const std::vector<Aov> a = parse_aovs("dd.y:depth, nn:sh_normal,uv:uv");
  REQUIRE(a.size() == 3);
  CHECK(aovs_spec(a) == "dd.y:depth,nn:sh_normal,uv:uv");
  CHECK(aov_channel_names(a) == std::vector<std::string>{"dd.y.T", "nn.X", "nn.Y", "nn.Z", "uv.U", "uv.V"});
  CHECK_THROWS_WITH(parse_aovs("dd:normal"), Catch::Contains("\"dd:normal\": unsupported AOV type \"normal\""));
  CHECK(aov_channel_names(parse_aovs("a:albedo,b:dp_du,c:duv_dy")) ==
        std::vector<std::string>{"a.R", "a.G", "a.B", "b.X", "b.Y", "b.Z", "c.U", "c.V"});
  CHECK_THROWS_WITH(parse_aovs("depth"), Catch::Contains("expected name:type"));
  CHECK_THROWS_WITH(parse_aovs(""), Catch::Contains("no AOV given"));
  json doc = base(json::object(), plane(3), "x:bogus");
  CHECK_THROWS_WITH(load_scene(doc, "aov.json", false), Catch::Contains("/render/aovs: \"x:bogus\": unsupported AOV type"));
  doc["render"]["aovs"] = "d:depth";
  doc["render"]["integrator"] = "ptracer";
  CHECK_THROWS_WITH(load_scene(doc, "aov.json", false), Catch::Contains("/render/aovs: the ptracer integrator renders images only"));
}

TEST_CASE("Mitsuba's aov integrator in XML: its nested integrator's image, or a black one", "[aov][mitsuba]") {
  TempDir t("dray-aov-xml-");
  auto xml = [](const std::string& integrator) {
    return R"(<scene version="3.0.0"><sensor type="perspective"><film type="hdrfilm"><integer name="width" value="8"/>
      <integer name="height" value="6"/></film></sensor>)" + integrator + R"(
      <shape type="sphere"><transform name="to_world"><translate z="4"/></transform><bsdf type="diffuse"/></shape>
      <emitter type="constant"/></scene>)";
  };
  std::vector<std::string> warnings;
  const json doc = read_scene_document(t.write("a.xml", xml(R"(<integrator type="aov"><string name="aovs" value="dd.y:depth"/>
      <integrator type="path" name="image"><integer name="max_depth" value="3"/></integrator></integrator>)")), {}, warnings);
  CHECK(doc["render"]["aovs"] == "dd.y:depth");
  CHECK(doc["render"]["max_depth"] == 2);
  const Scene black = load_scene(t.write("b.xml", xml(R"(<integrator type="aov"><string name="aovs" value="dd.y:depth"/></integrator>)")));
  const Image im = render_local(black, 2, with_aovs({}, black));
  CHECK(im.pixel(4, 3)[0] == 0.f);
  CHECK(im.pixel(4, 3)[3] > 2.f);  // the sphere's depth
  CHECK_THROWS_WITH(load_scene(t.write("c.xml", xml(R"(<integrator type="aov"><string name="aovs" value="d:depth"/>
      <integrator type="path"/><integrator type="direct"/></integrator>)"))),
                    Catch::Contains("dray's aov renders one nested integrator"));
}

TEST_CASE("an image's channel names reach its EXR file", "[aov]") {
  TempDir t("dray-aov-exr-");
  Image im(2, 2, 4);
  im.channel_names = {"R", "G", "B", "dd.y.T"};
  const std::string path = (t.dir / "a.exr").string();
  write_image(im, path);
  EXRVersion version;
  REQUIRE(ParseEXRVersionFromFile(&version, path.c_str()) == TINYEXR_SUCCESS);
  EXRHeader header;
  InitEXRHeader(&header);
  const char* err = nullptr;
  REQUIRE(ParseEXRHeaderFromFile(&header, &version, path.c_str(), &err) == TINYEXR_SUCCESS);
  std::vector<std::string> names;
  for (int c = 0; c < header.num_channels; ++c) names.push_back(header.channels[c].name);
  FreeEXRHeader(&header);
  CHECK(names == std::vector<std::string>{"B", "G", "R", "dd.y.T"});
}
