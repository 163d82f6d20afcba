// Mesh attributes and the `mesh_attribute` texture (Mitsuba's): a PLY file's properties grouped
// into vertex_* and face_* attributes by Mitsuba's naming rules (integers normalized and read as
// sRGB), a lit plane whose reflectance is its vertex colours (barycentric blends: the closed form
// of an affine colour), its face colours, derivatives by the attribute values (the barycentric
// weights) and by the plane's motion (the colour sliding under a fixed ray), and Mitsuba's XML.
#include <catch2/catch.hpp>

#include "ad/dual.h"
#include "renderer/image/image.h"
#include "renderer/integrators/radiance.h"
#include "renderer/io/ply_file.h"
#include "renderer/io/scene_loader.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;

namespace {

// The plane y = 0 over [-1, 1]², two triangles; vertex colours (float r g b) affine in position:
// c(x, z) = (0.5 + 0.2x, 0.4 - 0.3z, 0.1 + 0.05x + 0.05z); a 1-value `weight_x`; per face an
// 8-bit colour and a 1-value `quality_x`.
const char* kPly =
    "ply\nformat ascii 1.0\n"
    "element vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
    "property float r\nproperty float g\nproperty float b\nproperty float weight_x\nproperty float lonely\n"
    "element face 2\nproperty list uchar int vertex_indices\n"
    "property uchar red\nproperty uchar green\nproperty uchar blue\nproperty float quality_x\n"
    "end_header\n"
    "-1 0 -1 0.3 0.7 0.0 1 9\n"
    "1 0 -1 0.7 0.7 0.1 2 9\n"
    "1 0 1 0.7 0.1 0.2 3 9\n"
    "-1 0 1 0.3 0.1 0.1 4 9\n"
    "3 0 2 1 255 128 0 0.25\n"
    "3 0 3 2 0 64 255 0.75\n";

glm::vec3 colour_at(float x, float z) { return {0.5f + 0.2f * x, 0.4f - 0.3f * z, 0.1f + 0.05f * x + 0.05f * z}; }

json plane_scene(const std::string& ply, const json& reflectance) {
  return {{"camera", {{"origin", {0, 5, 0.01}}, {"target", {0, 0, 0}}}},
          {"render", {{"max_depth", 1}}},
          {"textures", {{"t", reflectance}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", "t"}}}}},
          {"shapes", {{{"name", "plane"}, {"type", "mesh"}, {"file", ply}, {"material", "m"}, {"face_normals", true},
                       {"transform", {{"translate", {0, 0, 0}}}}}}},
          {"lights", {{{"type", "directional"}, {"direction", {0, -1, 0}}, {"irradiance", kPi}}}}};
}

template <class T>
Vec3<T> radiance_at(const Scene& s, const ParamView<T>& P, glm::vec3 at) {
  Sampler sampler(0, 0, 0);
  return radiance(s, P, RayT<T>{Vec3<T>(at + glm::vec3(0, 1, 0)), Vec3<T>(glm::vec3(0, -1, 0))}, sampler);
}

}  // namespace

TEST_CASE("PLY attributes: Mitsuba's names and groups, integers normalized from sRGB", "[texture]") {
  testing::TempDir dir("dray_mesh_attribute_ply_");
  const ObjFile m = read_ply_file(dir.write("a.ply", kPly), "a.ply: ");
  REQUIRE(m.attributes.size() == 4);
  CHECK(m.attributes[0].name == "vertex_color");
  CHECK(m.attributes[0].dim == 3);
  CHECK(m.attributes[0].values[3] == 0.7f);
  CHECK(m.attributes[1].name == "vertex_weight");
  CHECK(m.attributes[1].values == std::vector<float>{1, 2, 3, 4});
  // Face attributes, one row per triangle.
  CHECK(m.attributes[2].name == "face_color");
  REQUIRE(m.attributes[2].values.size() == 6);
  CHECK(m.attributes[2].values[0] == 1.f);
  CHECK(m.attributes[2].values[1] == Approx(0.2158605f).epsilon(1e-5));  // sRGB 128/255
  CHECK(m.attributes[2].values[2] == 0.f);
  CHECK(m.attributes[3].name == "face_quality");
  CHECK(m.attributes[3].values == std::vector<float>{0.25f, 0.75f});
  // A property without a PREFIX_x name is skipped, and said so.
  REQUIRE(m.warnings.size() == 1);
  CHECK_THAT(m.warnings[0], Catch::Contains("\"lonely\" skipped"));
}

TEST_CASE("PLY attribute runs: 1 or 3 fields, in order; a colour run named PREFIX_color", "[texture]") {
  testing::TempDir dir("dray_mesh_attribute_runs_");
  const std::string ply = dir.write(
      "b.ply",
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "property float tint_r\nproperty float tint_g\nproperty float tint_b\nproperty float two_x\nproperty float two_y\n"
      "property float bad_y\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
      "0 0 0 1 2 3 4 5 6\n1 0 0 1 2 3 4 5 6\n0 1 0 1 2 3 4 5 6\n3 0 1 2\n");
  const ObjFile m = read_ply_file(ply, "b.ply: ");
  REQUIRE(m.attributes.size() == 1);
  CHECK(m.attributes[0].name == "vertex_tint_color");
  CHECK(m.attributes[0].values == std::vector<float>{1, 2, 3, 1, 2, 3, 1, 2, 3});
  REQUIRE(m.warnings.size() == 2);
  CHECK_THAT(m.warnings[0], Catch::Contains("\"two\" skipped: an attribute has 1 or 3 fields, this one 2"));
  CHECK_THAT(m.warnings[1], Catch::Contains("must end in _x"));
}

TEST_CASE("mesh_attribute: a lit plane's reflectance is its blended vertex colours; derivatives", "[texture]") {
  testing::TempDir dir("dray_mesh_attribute_plane_");
  const std::string ply = dir.write("plane.ply", kPly);
  Scene s = load_scene(plane_scene(ply, {{"type", "mesh_attribute"}, {"name", "vertex_color"}}), (dir.dir / "s.json").string());
  REQUIRE(s.params.find("shapes.plane.vertex_color"));
  const Slot colours = s.params.find("shapes.plane.vertex_color")->slot;
  const Slot tx = s.params.find("shapes.plane.translate")->slot;
  const ParamView<float> P(s.params);
  for (glm::vec2 xz : {glm::vec2(0.3f, -0.6f), glm::vec2(-0.7f, 0.2f), glm::vec2(0.05f, 0.9f)}) {
    const glm::vec3 at(xz.x, 0.f, xz.y);
    const glm::vec3 L = to_glm(radiance_at(s, P, at));
    const glm::vec3 c = colour_at(xz.x, xz.y);
    for (int k = 0; k < 3; ++k) CHECK(L[k] == Approx(c[k]).epsilon(1e-4));
    // d L.g / d (vertex 2's green) = vertex 2's barycentric weight in the point's triangle (faces
    // 0 2 1 where x > z, 0 3 2 where x < z): (1 + z) / 2, or (1 + x) / 2.
    std::vector<int> seeds(s.params.values().size(), -1);
    seeds[colours + 3 * 2 + 1] = 0;  // vertex 2 (1, 0, 1), green
    seeds[tx] = 1;                   // the plane's x translation
    const ParamView<ad::Dual<4>> PD(s.params, seeds.data());  // two of four tangents seeded
    const Vec3<ad::Dual<4>> LD = radiance_at(s, PD, at);
    const bool first = xz.x > xz.y;  // triangle (0, 2, 1): vertices (-1,-1), (1,1), (1,-1)
    const float w2 = first ? (1.f + xz.y) / 2.f : (1.f + xz.x) / 2.f;
    CHECK(LD.y.d[0] == Approx(w2).epsilon(1e-4));
    CHECK(LD.x.d[0] == 0.f);
    // Moving the plane by +x slides its colour under the ray: d c(x - t) / dt = -(0.2, 0, 0.05).
    CHECK(LD.x.d[1] == Approx(-0.2f).epsilon(1e-3));
    CHECK(LD.y.d[1] == Approx(0.f).margin(1e-5));
    CHECK(LD.z.d[1] == Approx(-0.05f).epsilon(1e-3));
  }
}

TEST_CASE("mesh_attribute: face colours, scale, 1-value attributes, and an absent one refused", "[texture]") {
  testing::TempDir dir("dray_mesh_attribute_face_");
  const std::string ply = dir.write("plane.ply", kPly);
  auto L_at = [&](const json& tex, glm::vec3 at) {
    const Scene s = load_scene(plane_scene(ply, tex), (dir.dir / "s.json").string());
    return to_glm(radiance_at(s, ParamView<float>(s.params), at));
  };
  const glm::vec3 below(0.5f, 0.f, -0.5f), above(-0.5f, 0.f, 0.5f);  // faces 0 and 1
  const glm::vec3 f0 = L_at({{"type", "mesh_attribute"}, {"name", "face_color"}, {"scale", 0.5}}, below);
  CHECK(f0.x == Approx(0.5f).epsilon(1e-5));
  CHECK(f0.y == Approx(0.5f * 0.2158605f).epsilon(1e-4));
  const glm::vec3 f1 = L_at({{"type", "mesh_attribute"}, {"name", "face_quality"}}, above);
  CHECK(f1.x == Approx(0.75f).epsilon(1e-5));
  CHECK(f1.z == Approx(0.75f).epsilon(1e-5));
  // vertex_weight: 1, 2, 3, 4 at the corners; (0.5, -0.5) has weights 0.25, 0.5, 0.25 on
  // vertices 0, 1, 2: 2, scaled by 0.25.
  CHECK(L_at({{"type", "mesh_attribute"}, {"name", "vertex_weight"}, {"scale", 0.25}}, below).y == Approx(0.5f).epsilon(1e-4));
  // An attribute no mesh holds is refused, as Mitsuba refuses it (it rendered grey before).
  CHECK_THROWS_WITH(L_at({{"type", "mesh_attribute"}, {"name", "vertex_missing"}}, below),
                    Catch::Contains("/textures/t/name: no mesh of the scene has the attribute \"vertex_missing\"") &&
                        Catch::Contains("its meshes have: face_color, face_quality, vertex_color, vertex_weight)"));
  // A scalar read (a mask's opacity) of a 3-value attribute is 0, of a 1-value one the value.
  const Texture tex{"t", MeshAttributeTexture{0, 1.f}};
  ParamTable params;
  MeshAttribute a3{0, true, 3, params.add("c", glm::vec3(0.2f, 0.4f, 0.6f))};
  TexCoord<float> c;
  c.site.attributes = &a3;
  c.site.count = 1;
  CHECK(eval_texture_1(tex, ParamView<float>(params), c) == 0.f);
  CHECK(eval_texture(tex, ParamView<float>(params), c).y == 0.4f);
  MeshAttribute a1{0, true, 1, params.add("w", 0.3f)};
  c.site.attributes = &a1;
  CHECK(eval_texture_1(tex, ParamView<float>(params), c) == 0.3f);
  // Names must say vertex_ or face_ (Mitsuba's rule).
  CHECK_THROWS_WITH(L_at({{"type", "mesh_attribute"}, {"name", "colour"}}, below), Catch::Contains("must start with \"vertex_\" or \"face_\""));
}

TEST_CASE("mesh_attribute from Mitsuba's XML: a ply's vertex_color as a diffuse reflectance", "[texture]") {
  testing::TempDir dir("dray_mesh_attribute_xml_");
  dir.write("plane.ply", kPly);
  const std::string xml = dir.write("s.xml", R"(<scene version="3.0.0">
  <integrator type="direct"/>
  <sensor type="orthographic">
    <transform name="to_world"><lookat origin="0, 5, 0" target="0, 0, 0" up="0, 0, 1"/></transform>
    <film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="8"/></film>
  </sensor>
  <shape type="ply">
    <string name="filename" value="plane.ply"/>
    <boolean name="face_normals" value="true"/>
    <bsdf type="diffuse">
      <texture type="mesh_attribute" name="reflectance"><string name="name" value="vertex_color"/></texture>
    </bsdf>
  </shape>
  <emitter type="directional"><vector name="direction" value="0, -1, 0"/><rgb name="irradiance" value="3.14159265"/></emitter>
</scene>)");
  const Scene s = load_scene(xml);
  const glm::vec3 L = to_glm(radiance_at(s, ParamView<float>(s.params), glm::vec3(0.3f, 0.f, -0.6f)));
  const glm::vec3 c = colour_at(0.3f, -0.6f);
  for (int k = 0; k < 3; ++k) CHECK(L[k] == Approx(c[k]).epsilon(1e-4));
}
