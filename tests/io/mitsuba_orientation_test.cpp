// How Mitsuba orients surfaces, against closed forms: a one-sided diffuse plane under a unit sky
// is 0.5 (its reflectance) from the front and black from the back unless a twosided wraps it; a
// mesh placed by a mirroring to_world (scale −1) reverses its winding and still faces its normals;
// a sphere's UV turns with its to_world (Mitsuba's local frame); a cube is Mitsuba's cube mesh.
#include <catch2/catch.hpp>

#include <cmath>

#include "../temp_dir.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;

namespace {

// An orthographic camera on +z (or −z) looking at the origin, 9×9 pixels over [−1, 1]² (the
// middle pixel centred on the axis), 16 spp, under a sky of radiance 1, max_depth 2 (direct light
// only), around `body`.
std::string ortho_xml(const std::string& body, bool from_back = false, const std::string& integrator = "path") {
  const std::string z = from_back ? "-4" : "4";
  return R"(<scene version="3.0.0">
  <integrator type=")" + integrator + R"(">)" + (integrator == "path" ? R"(<integer name="max_depth" value="2"/>)" : "") + R"(</integrator>
  <sensor type="orthographic"><transform name="to_world"><lookat origin="0, 0, )" + z + R"(" target="0, 0, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="9"/><integer name="height" value="9"/><rfilter type="box"/></film>
    <sampler type="independent"><integer name="sample_count" value="16"/></sampler></sensor>
  <emitter type="constant"/>
)" + body + "</scene>\n";
}

// The mean green of the middle 3×3 pixels (144 samples): a diffuse plane of reflectance 0.5
// under the unit sky gives 0.5 up to the estimator's noise (MIS of the sky and the BSDF: a
// sample's value within about ±0.25 of it, so a standard error below 0.02).
float centre(const Image& img) {
  double sum = 0;
  for (int y = 3; y < 6; ++y)
    for (int x = 3; x < 6; ++x) sum += img.pixel(x, y)[1] / 9.0;
  return float(sum);
}

}  // namespace

TEST_CASE("Mitsuba's BSDFs are one-sided: a diffuse plane is black from the back, unless twosided", "[mitsuba]") {
  // A diffuse plane facing +z under a unit sky reflects its reflectance, 0.5, exactly: every
  // direction above it sees the sky (cosine-weighted sampling gives 0.5 per sample).
  TempDir t("dray-mitsuba-sided-");
  const std::string plane = R"(<shape type="rectangle"><transform name="to_world"><scale value="3"/></transform>BSDF</shape>)";
  auto with = [&](const std::string& bsdf) { return std::string(plane).replace(plane.find("BSDF"), 4, bsdf); };
  const std::string diffuse = R"(<bsdf type="diffuse"/>)", twosided = R"(<bsdf type="twosided"><bsdf type="diffuse"/></bsdf>)";
  CHECK(centre(render(load_scene(t.write("f.xml", ortho_xml(with(diffuse), false))))) == Approx(0.5f).margin(0.04));
  CHECK(centre(render(load_scene(t.write("b.xml", ortho_xml(with(diffuse), true))))) == 0.f);
  CHECK(centre(render(load_scene(t.write("t.xml", ortho_xml(with(twosided), true))))) == Approx(0.5f).margin(0.04));
  // A mask's back lets 1 − opacity of the sky through and shades the rest black.
  const std::string mask = R"(<bsdf type="mask"><float name="opacity" value="0.25"/><bsdf type="diffuse"/></bsdf>)";
  const Scene masked = load_scene(t.write("m.xml", ortho_xml(with(mask), true)));
  CHECK(masked.materials.at(0).one_sided);
  CHECK(centre(render(masked)) == Approx(0.75).margin(0.11));  // 144 samples of 0 or 1: σ 0.036
  // dray's own scenes keep two-sided surfaces unless a material says one_sided.
  CHECK_FALSE(load_scene(t.write("t2.xml", ortho_xml(with(twosided), true))).materials.at(0).one_sided);
}

TEST_CASE("A mesh placed by a mirroring to_world reverses its winding and faces its normals, as Mitsuba's", "[mitsuba]") {
  // A square in z = 0 wound to face +z, with vertex normals +z. Under scale −1 (det −1) its points
  // and normals turn to −z; the winding must reverse with them, or the surface would face away
  // from its own normals (Mitsuba flips the winding of such meshes). Seen from −z it is a diffuse
  // plane lit by the sky, 0.5; from +z its back, black.
  TempDir t("dray-mitsuba-mirror-");
  const std::string obj = t.write("square.obj", "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\nf 1//1 3//1 4//1\n");
  const std::string body = R"(<shape type="obj"><string name="filename" value=")" + obj +
                           R"("/><transform name="to_world"><scale value="-2"/></transform><bsdf type="diffuse"/></shape>)";
  const Scene front = load_scene(t.write("f.xml", ortho_xml(body, true)));
  const Mesh& mesh = front.meshes.at(0);
  const glm::vec3 a = mesh.object_positions[mesh.indices[0]], b = mesh.object_positions[mesh.indices[1]],
                  c = mesh.object_positions[mesh.indices[2]];
  CHECK(glm::cross(b - a, c - a).z < 0.f);  // the geometric normal follows the normals to −z
  CHECK(mesh.object_normals.at(0).z == Approx(-1.f));
  CHECK(centre(render(front)) == Approx(0.5f).margin(0.04));
  CHECK(centre(render(load_scene(t.write("b.xml", ortho_xml(body, false))))) == 0.f);
}

TEST_CASE("A sphere's UV turns with its to_world: (φ/2π, θ/π) in its local frame, as Mitsuba's", "[mitsuba]") {
  // The camera on +z sees the sphere's point (0, 0, 1) at the middle pixel's centre (its extent
  // ±0.11 of the radius). Unturned, that is the local pole: v = θ/π ≈ 0.03 over the pixel. Turned 90° about x, world +z is local +y: φ = π/2, θ = π/2, UV (0.25, 0.5).
  TempDir t("dray-mitsuba-sphere-uv-");
  auto uv_at_centre = [&](const std::string& to_world) {
    const std::string body = R"(<shape type="sphere">)" + to_world + R"(<bsdf type="diffuse"/></shape>)";
    std::string xml = ortho_xml(body, false, "aov");
    xml.replace(xml.find(R"(<integrator type="aov">)"), 23, R"(<integrator type="aov"><string name="aovs" value="t:uv"/>)");
    const Scene s = load_scene(t.write("s.xml", xml));
    const RenderOutputs o = with_aovs({}, s);
    const Image img = render_local(s, 2, o);
    const float* px = img.pixel(4, 4) + o.aov_channel();  // the pixel's mean UV: (0.25, 0.5) to 1e-3
    return glm::vec2(px[0], px[1]);
  };
  const glm::vec2 turned = uv_at_centre(R"(<transform name="to_world"><rotate x="1" angle="90"/></transform>)");
  CHECK(turned.x == Approx(0.25f).margin(0.02));
  CHECK(turned.y == Approx(0.5f).margin(0.02));
  CHECK(uv_at_centre("").y < 0.1f);
  // A scaled, turned and moved sphere keeps its centre and radius, and the rotation alone.
  const Scene s = load_scene(t.write("r.xml", ortho_xml(R"(<shape type="sphere"><transform name="to_world"><scale value="2"/>
    <rotate z="1" angle="90"/><translate x="1"/></transform></shape>)")));
  CHECK(s.shapes.at(0).as<Sphere>().rotation[0].y == Approx(1.f));  // local x is world +y
  CHECK(s.shapes.at(0).as<Sphere>().rotation[1].x == Approx(-1.f));
}

TEST_CASE("Mitsuba's cube is its mesh: 12 flat triangles with Mitsuba's UVs, one closed shape", "[mitsuba]") {
  TempDir t("dray-mitsuba-cube-");
  const Scene s = load_scene(t.write("c.xml", ortho_xml(R"(<shape type="cube"><transform name="to_world"><scale value="0.5"/></transform></shape>)")));
  REQUIRE(s.shapes.size() == 1);
  const Mesh& m = s.meshes.at(0);
  CHECK(m.indices.size() == 36);
  CHECK(m.object_normals.empty());  // flat: each side its face normal, as Mitsuba's per-side normals
  // Side 0 faces −y: corners 1, 5, 4 (x, y, z signs from bits 0, 1, 2) with UVs (0, 1), (1, 1), (1, 0).
  CHECK(m.corner_uvs.at(0) == glm::vec2(0, 1));
  CHECK(m.corner_uvs.at(1) == glm::vec2(1, 1));
  CHECK(m.corner_uvs.at(2) == glm::vec2(1, 0));
  CHECK(m.object_positions[m.indices[1]] == glm::vec3(0.5f, -0.5f, 0.5f));
  // The +z side faces the camera: a diffuse plane under the sky, 0.5 (its ±x, ±y sides are edge-on).
  CHECK(centre(render(s)) == Approx(0.5f).margin(0.04));
}
