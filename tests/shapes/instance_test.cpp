// Mitsuba's shapegroup and instance: a group's meshes stored and traced once, each instance a
// transformed reference. Checked against the same meshes copied (bitwise images, the same hits
// ray by ray), central differences of an instance's transform, and the non-uniform matrix
// baked into a copy; refusals name the key.
#include <catch2/catch.hpp>

#include <cmath>

#include "../temp_dir.h"
#include "tests/image_difference.h"
#include "renderer/samplers/sampler.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "renderer/io/vol_file.h"
#include "tests/integrators/shadow_check.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

const std::string kScenes = std::string(DRAY_SOURCE_DIR) + "/scenes/";

const json kTransforms = json::array({{{"scale", 10}, {"rotate_y", 20}, {"translate", {0.17, -0.33, 0}}},
                                      {{"scale", 7}, {"rotate_y", -40}, {"translate", {-0.9, -0.23, -0.5}}},
                                      {{"scale", 6}, {"rotate_x", 10}, {"rotate_y", 90}, {"translate", {1.0, -0.2, -0.3}}}});

// Three bunnies on a floor under a point light, a lamp and a sky: as three meshes (`copies`) or
// as three instances of one group.
json bunnies(bool instanced, const json& transforms = kTransforms, const std::string& model = "stanford-bunny.obj") {
  const json mesh = {{"type", "mesh"}, {"file", "models/" + model}, {"material", "clay"}};
  json shapes = json::array();
  if (instanced) shapes.push_back({{"name", "g"}, {"type", "group"}, {"shapes", json::array({mesh})}});
  for (size_t i = 0; i < transforms.size(); ++i) {
    json s = instanced ? json{{"type", "instance"}, {"group", "g"}} : mesh;
    s["name"] = "b" + std::to_string(i);
    s["transform"] = transforms[i];
    shapes.push_back(s);
  }
  shapes.push_back({{"name", "floor"}, {"type", "quad"}, {"corner", {-5, 0, -5}}, {"edge_u", {0, 0, 10}}, {"edge_v", {10, 0, 0}}, {"material", "floor"}});
  shapes.push_back({{"name", "softbox"}, {"type", "quad"}, {"corner", {-2.5, 3, 0}}, {"edge_u", {1.5, 0, 0}}, {"edge_v", {0, 0, 1.5}}, {"material", "panel"}});
  return {{"camera", {{"origin", {0, 1.2, 3.6}}, {"target", {0, 0.75, 0}}, {"up", {0, 1, 0}}, {"fov_y", 35}, {"width", 64}, {"height", 48}}},
          {"render", {{"spp", 4}, {"max_depth", 3}}},
          {"materials", {{"clay", {{"type", "diffuse"}, {"albedo", {0.75, 0.6, 0.45}}}},
                         {"floor", {{"type", "diffuse"}, {"albedo", {0.6, 0.6, 0.6}}}},
                         {"panel", {{"type", "diffuse"}, {"albedo", {0, 0, 0}}, {"emission", {6, 6, 6}}}}}},
          {"shapes", shapes},
          {"lights", json::array({{{"name", "sun"}, {"type", "point"}, {"position", {3, 4, 3}}, {"intensity", {10, 9, 8}}},
                                  {{"name", "sky"}, {"type", "environment"}, {"radiance", {0.15, 0.18, 0.25}}}})}};
}

Scene load(const json& doc) { return load_scene(doc, kScenes + "instances.json"); }

// A Mitsuba scene of `shapes` (and `bsdf`, declared first) under a point light, 48 × 32 at 16 spp,
// seen from (1, 3, 6) looking at `target`.
Scene lit_xml_scene(const TempDir& t, const std::string& target, const std::string& bsdf, const std::string& shapes) {
  return load_scene(t.write("s.xml", R"(<scene version="3.0.0">
  <sensor type="perspective"><float name="fov" value="40"/><transform name="to_world"><lookat origin="1, 3, 6" target=")" + target +
                                         R"(" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="48"/><integer name="height" value="32"/><rfilter type="box"/></film>
    <sampler type="independent"><integer name="sample_count" value="16"/></sampler></sensor>
  <integrator type="path"><integer name="max_depth" value="3"/></integrator>
  <emitter type="point"><point name="position" x="2" y="4" z="3"/><rgb name="intensity" value="30"/></emitter>
  )" + bsdf + shapes + "\n</scene>"));
}

size_t differing(const Image& a, const Image& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.data.size(); ++i) n += a.data[i] != b.data[i];
  return n;
}

std::string load_error(const json& doc) {
  try {
    load(doc);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("instances of a group render bitwise as copies of its mesh, and store it once", "[instance]") {
  const Scene copies = load(bunnies(false)), inst = load(bunnies(true));
  // One mesh for the three instances; their shapes share it.
  REQUIRE(inst.meshes.size() == 1);
  REQUIRE(inst.instances.size() == 3);
  CHECK(inst.shapes[0].as<MeshShape>().mesh == inst.shapes[2].as<MeshShape>().mesh);
  CHECK(inst.bvh.world_prim_count() == 2);  // the floor and the lamp
  CHECK(inst.bvh.prim_count() == copies.bvh.prim_count());
  const Image a = render_local(copies, 2), b = render_local(inst, 2);
  CHECK(differing(a, b) <= 3);  // one pixel: a ray through a shared edge (the tie below)
  // Forward derivatives by an instance's transform: the same up to rays through shared edges
  // (the boundary term's), where the group-space test and the world test may pick the other
  // face of a tie; a shadow-edge sample's weight rides on such a ray now and then (the lamp's
  // edges culled to those it can see as silhouettes: a third of them, each drawn 3x as often),
  // so the sums agree to 3·10⁻³ (measured 2.5·10⁻³ for the scale, 6 values of 9,216 differing).
  for (const char* name : {"shapes.b1.translate[0]", "shapes.b2.rotate_y", "shapes.b0.scale"}) {
    RenderOutputs oa, ob;
    oa.wrt = {slot_of(copies, name)};
    ob.wrt = {slot_of(inst, name)};
    const Image da = render_local(copies, 2, oa), db = render_local(inst, 2, ob);
    const int c = oa.derivative_channel(0);
    const double sa = region_sum(da, c, 0, 64, 0, 48), sb = region_sum(db, c, 0, 64, 0, 48);
    INFO(name << ": " << sa << " vs " << sb << ", " << differing(da, db) << " values differ");
    CHECK(differing(da, db) <= da.data.size() / 1000);
    CHECK(std::fabs(sa - sb) <= 3e-3 * std::fabs(sa) + 1e-6);
    CHECK(std::fabs(sa) > 1e-3);
  }
}

TEST_CASE("sdfgrids in a group render as the same sdfgrids placed directly, their samples stored once", "[instance][sdf]") {
  // A sphere's distances (centre (0.5, 0.5, 0.5), radius 0.35) on a 32^3 grid over the unit cube.
  TempDir t("dray-instance-sdf-");
  std::vector<float> d;
  for (int z = 0; z < 32; ++z)
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x) d.push_back(glm::length(glm::vec3(x, y, z) / 31.f - 0.5f) - 0.35f);
  write_vol_file((t.dir / "ball.vol").string(), glm::ivec3(32), 1, d.data());
  const json ball = {{"type", "sdfgrid"}, {"file", (t.dir / "ball.vol").string()}, {"material", "clay"}};
  const json xfs = json::array({{{"scale", 1.2}, {"rotate_y", 30}, {"translate", {-0.9, 0, 0}}},
                                {{"scale", 0.9}, {"rotate_x", 20}, {"translate", {0.2, 0.1, -0.4}}}});
  json with_group = bunnies(true, xfs), copies = bunnies(false, xfs);
  with_group["shapes"][0]["shapes"][0] = ball;
  for (size_t i = 0; i < xfs.size(); ++i) {
    json s = ball;
    s["name"] = copies["shapes"][i]["name"];
    s["transform"] = xfs[i];
    copies["shapes"][i] = s;
  }
  const Scene inst = load(with_group), direct = load(copies);
  CHECK(inst.sdf_grids.size() == 1);  // the group's grid; each instance's placed copy shares its samples
  CHECK(direct.sdf_grids.size() == 2);
  CHECK(inst.bvh.world_prim_count() == 2);  // the floor and the lamp: the voxels are the group's
  CHECK(inst.bvh.prim_count() == direct.bvh.prim_count());
  const Image a = render_local(inst, 2), b = render_local(direct, 2);
  // The hit's distance is found again on the world placement (the same float operations as the
  // copy's); a ray across two voxels' shared face may take the other voxel's root.
  CHECK(differing(a, b) <= 6);
  CHECK(relative_difference(a, b) < 1e-4);
}

TEST_CASE("the top-level tree finds the hit a copied scene finds, ray by ray", "[instance]") {
  // 150 small spheres (an icosphere mesh) at scattered places and scales, some overlapping.
  json xs = json::array();
  Sampler s(7, 0, 0);
  for (int i = 0; i < 150; ++i)
    xs.push_back({{"scale", 0.05 + 0.3 * s.next()}, {"rotate_z", 360 * s.next()},
                  {"translate", {4 * s.next() - 2, 2 * s.next(), 4 * s.next() - 2}}});
  const Scene copies = load(bunnies(false, xs, "icosphere-4.obj")), inst = load(bunnies(true, xs, "icosphere-4.obj"));
  int hits = 0, mismatches = 0, other_face = 0, occlusion = 0;
  for (int i = 0; i < 20000; ++i) {
    Sampler r(11, uint64_t(i), 0);
    const glm::vec3 o(6 * r.next() - 3, 3 * r.next(), 6 * r.next() - 3);
    const glm::vec3 d = glm::normalize(glm::vec3(r.next() - 0.5f, r.next() - 0.5f, r.next() - 0.5f));
    Ray ray{o, d};
    if (i % 2) ray.t_max = 2.f * r.next();
    Hit a, b;
    const bool ha = copies.bvh.intersect(ray, a), hb = inst.bvh.intersect(ray, b);
    hits += ha;
    occlusion += inst.bvh.occluded(ray) != ha;
    if (ha != hb) {
      ++mismatches;
      continue;
    }
    if (!ha) continue;
    const PrimRef pa = copies.bvh.prim_ref(a.prim), pb = inst.bvh.prim_ref(b.prim);
    mismatches += pa.shape != pb.shape || std::fabs(a.t - b.t) > 1e-6f * a.t;
    // A ray through an edge two faces share may take the other face (the group-space test's tie).
    other_face += pa.index != pb.index;
  }
  INFO(hits << " hits of 20000 rays, " << other_face << " on the other face of a shared edge");
  CHECK(hits > 2000);
  CHECK(mismatches == 0);
  CHECK(other_face <= 2);
  CHECK(occlusion == 0);
}

TEST_CASE("an instance's derivative by its transform against central differences", "[instance]") {
  // A black smooth icosphere before a uniform sky: its silhouette alone (flat-shaded meshes carry
  // a known bias of the boundary term at sliver faces along the outline: docs/how-it-renders.md).
  json doc = bunnies(true, json::array({{{"scale", 0.5}, {"translate", {0.17, 0.5, 0}}}}), "icosphere-4.obj");
  doc["render"] = {{"spp", 64}, {"max_depth", 1}, {"boundary_samples", 40000}};
  doc["materials"]["clay"]["albedo"] = {0, 0, 0};
  doc["lights"] = json::array({{{"name", "sky"}, {"type", "environment"}, {"radiance", {1, 1, 1}}}});
  doc["shapes"] = json::array({doc["shapes"][0], doc["shapes"][1]});  // no floor, no lamp
  const Scene scene = load(doc);
  REQUIRE(scene.shapes.size() == 1);
  const ForwardAndDifferences r = forward_and_differences(scene, slot_of(scene, "shapes.b0.scale"), 0.01f, 0, 64, 0, 48, 64);
  INFO("forward " << r.fwd << ", differences " << r.fd << " (h) and " << r.fd_half << " (h/2)");
  // The disk's closed form (a sphere of radius 0.5 seen from 3.67): about -1417.
  CHECK(std::fabs(r.fd - r.fd_half) <= 0.03 * std::fabs(r.fd));
  CHECK(std::fabs(r.fwd - r.fd_half) <= 0.03 * std::fabs(r.fd_half));
  CHECK(r.fwd == Approx(-1417).epsilon(0.02));
}

TEST_CASE("an instance's matrix (shear, non-uniform scale) renders as a mesh with it baked in", "[instance]") {
  // Smooth normals turn by the inverse transpose: a wrong normal matrix shades the bunnies visibly.
  const json m = {6, 3, 0, 0.1, 0, 12, 0, -0.4, -2, 0, 5, 0, 0, 0, 0, 1};
  const json xs = json::array({{{"matrix", m}}, {{"matrix", m}, {"translate", {-1, 0, 0}}}});
  const Image a = render_local(load(bunnies(false, xs)), 2), b = render_local(load(bunnies(true, xs)), 2);
  const double d = relative_difference(a, b);  // infinite where nothing is lit
  INFO("mean |difference| / mean " << d);
  CHECK(d < 2e-3);
}

TEST_CASE("groups and instances refuse what they cannot hold, naming the key", "[instance]") {
  json doc = bunnies(true);
  doc["shapes"][0]["shapes"][0] = {{"type", "group"}, {"shapes", json::array()}};
  CHECK_THAT(load_error(doc), Catch::Contains("/shapes/0 (g)/shapes/0/type") && Catch::Contains("a group holds shapes (mesh, disk, cylinder, cube, grid, linearcurve, bsplinecurve, quad, sphere, sdfgrid)"));
  doc = bunnies(true);
  doc["shapes"][0]["shapes"][0]["material"] = "panel";
  CHECK_THAT(load_error(doc), Catch::Contains("cannot emit light"));
  doc = bunnies(true);
  doc["shapes"][1]["group"] = "nope";
  CHECK_THAT(load_error(doc), Catch::Contains("/shapes/1 (b0)/group") && Catch::Contains("no group named \"nope\""));
  doc = bunnies(true);
  doc["shapes"][1]["material"] = "clay";
  CHECK_THAT(load_error(doc), Catch::Contains("/shapes/1 (b0)") && Catch::Contains("material"));
}

TEST_CASE("Mitsuba's shapegroup and instance (a <ref> and a to_world)", "[instance][mitsuba]") {
  TempDir t("dray-instance-");
  const std::string model = kScenes + "models/icosphere-4.obj";
  auto scene = [&](const std::string& shapes) {
    return t.write("i.xml", R"(<scene version="3.0.0">
  <sensor type="perspective"><float name="fov" value="40"/><transform name="to_world"><lookat origin="0, 1, 6" target="0, 0.5, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="48"/><integer name="height" value="32"/></film>
    <sampler type="independent"><integer name="sample_count" value="4"/></sampler></sensor>
  <emitter type="constant"><rgb name="radiance" value="1"/></emitter>
  <bsdf type="diffuse" id="grey"/>)" + shapes + "\n</scene>");
  };
  const std::string obj = R"(<shape type="obj"><string name="filename" value=")" + model + R"("/><ref id="grey"/></shape>)";
  const std::string group = R"(<shape type="shapegroup" id="balls">)" + obj + "</shape>";
  auto instance = [](const std::string& xf) { return R"(<shape type="instance"><ref id="balls"/><transform name="to_world">)" + xf + "</transform></shape>"; };
  auto copy = [&](const std::string& xf) {
    return R"(<shape type="obj"><string name="filename" value=")" + model + R"("/><ref id="grey"/><transform name="to_world">)" + xf +
           "</transform></shape>";
  };
  const std::string x1 = R"(<scale x="0.5" y="1" z="0.5"/><translate x="-1" y="0.5"/>)", x2 = R"(<rotate z="1" angle="30"/><translate x="1" y="0.5"/>)";
  std::vector<std::string> warnings;
  const json doc = read_scene_document(scene(group + instance(x1) + instance(x2)), {}, warnings);
  CHECK(doc["shapes"][0]["type"] == "group");
  CHECK(doc["shapes"][1]["group"] == "balls");
  const Image a = render_local(load_scene(scene(copy(x1) + copy(x2))), 2), b = render_local(load_scene(scene(group + instance(x1) + instance(x2))), 2);
  const double d = relative_difference(a, b);  // infinite where nothing is lit
  INFO("mean |difference| / mean " << d);
  CHECK(d < 1e-3);
  auto error = [&](const std::string& shapes) {
    try {
      load_scene(scene(shapes));
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error(instance(x1)), Catch::Contains("i.xml:") && Catch::Contains("refers to no shapegroup declared before it"));
  CHECK_THAT(error(R"(<shape type="shapegroup" id="g"><shape type="instance"/></shape>)"), Catch::Contains("nested instancing"));
}

TEST_CASE("rectangles and cubes in a shapegroup render as the same shapes placed directly", "[instance][mitsuba]") {
  // A group's quads become two triangles each (the same surface, uv and normal): the instanced
  // cube and rectangle against Mitsuba's analytic ones under the same to_world.
  TempDir t("dray-instance-quads-");
  auto scene = [&](const std::string& shapes) { return lit_xml_scene(t, "0, 0, 0", R"(<bsdf type="diffuse" id="grey"/>)", shapes); };
  const std::string xf = R"(<transform name="to_world"><rotate y="1" angle="25"/><translate x="0.3" y="0.5"/></transform>)";
  const std::string floor = R"(<shape type="rectangle"><transform name="to_world"><rotate x="1" angle="-90"/><scale value="4"/></transform><ref id="grey"/></shape>)";
  const Scene instanced = scene(floor + R"(<shape type="shapegroup" id="g"><shape type="cube"><transform name="to_world"><scale value="0.5"/></transform><ref id="grey"/></shape>
    <shape type="rectangle"><transform name="to_world"><translate z="1.2"/></transform><ref id="grey"/></shape></shape>
    <shape type="instance"><ref id="g"/>)" + xf + "</shape>");
  const Scene direct = scene(floor + R"(<shape type="cube"><transform name="to_world"><scale value="0.5"/><rotate y="1" angle="25"/><translate x="0.3" y="0.5"/></transform><ref id="grey"/></shape>
    <shape type="rectangle"><transform name="to_world"><translate z="1.2"/><rotate y="1" angle="25"/><translate x="0.3" y="0.5"/></transform><ref id="grey"/></shape>)");
  REQUIRE(instanced.instances.size() == 1);
  const Image a = render_local(instanced, 2), b = render_local(direct, 2);
  const double d = relative_difference(a, b);  // infinite where nothing is lit
  INFO("mean |difference| / mean " << d);
  CHECK(d < 2e-3);
}

TEST_CASE("spheres in a shapegroup render as the same analytic spheres, their UVs included", "[instance][mitsuba]") {
  // A group's sphere is its 256 x 128 tessellation (outline within 8e-5 radii, radial normals,
  // Mitsuba's UVs): under a checkerboard, instanced twice against the analytic spheres placed directly.
  TempDir t("dray-instance-spheres-");
  const std::string checks =
      R"(<bsdf type="diffuse" id="checks"><texture type="checkerboard" name="reflectance"><transform name="to_uv"><scale x="8" y="4"/></transform></texture></bsdf>)";
  auto scene = [&](const std::string& shapes) { return lit_xml_scene(t, "0, 0.5, 0", checks, shapes); };
  const Scene instanced = scene(R"(<shape type="shapegroup" id="g"><shape type="sphere"><float name="radius" value="0.5"/><ref id="checks"/></shape></shape>
    <shape type="instance"><ref id="g"/><transform name="to_world"><translate x="-0.7" y="0.5"/></transform></shape>
    <shape type="instance"><ref id="g"/><transform name="to_world"><scale value="1.4"/><translate x="0.8" y="0.7" z="-0.5"/></transform></shape>)");
  const Scene direct = scene(R"(<shape type="sphere"><float name="radius" value="0.5"/><transform name="to_world"><translate x="-0.7" y="0.5"/></transform><ref id="checks"/></shape>
    <shape type="sphere"><float name="radius" value="0.7"/><point name="center" x="0.8" y="0.7" z="-0.5"/><ref id="checks"/></shape>)");
  REQUIRE(instanced.instances.size() == 2);
  const Image a = render_local(instanced, 2), b = render_local(direct, 2);
  const double d = relative_difference(a, b);  // infinite where nothing is lit
  INFO("mean |difference| / mean " << d);
  CHECK(d < 5e-3);
}
