// Mitsuba's sdfgrid (renderer/shapes/sdf_grid.h): against closed forms (a plane the trilinear
// interpolant holds exactly; a sphere's distances, whose zero set is the sphere to O(h²)), the
// BVH against testing every voxel, the hit's derivative by a moving ray against central
// differences, renders against the analytic sphere, appearance derivatives against central
// differences; Mitsuba XML in and out; refusals.
#include <catch2/catch.hpp>

#include <cmath>

#include <glm/geometric.hpp>

#include "../temp_dir.h"
#include "ad/dual.h"
#include "renderer/samplers/sampler.h"
#include "renderer/integrators/surface.h"
#include "renderer/image/image_compare.h"
#include "renderer/io/mitsuba/xml_writer.h"
#include "renderer/io/vol_file.h"
#include "tests/image_difference.h"
#include "tests/integrators/shadow_check.h"
#include "tests/shapes/sdf_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

Bvh voxel_tree(const SdfGrid& g) {
  std::vector<PrimRef> refs;
  std::vector<PrimGeom> geoms;
  for (size_t k = 0; k < g.voxels.size(); ++k) {
    refs.push_back({0, g.voxels[k]});
    geoms.push_back(sdf_voxel_geom(g, k));
  }
  Bvh bvh;
  bvh.build(refs, geoms, 1);
  return bvh;
}

// A ray from a random point on the sphere of radius 3 about `c` toward a random point near c.
Ray random_ray(Sampler& s, const glm::vec3& c, float spread) {
  const float z = 1.f - 2.f * s.next(), phi = 2.f * kPi * s.next(), r = std::sqrt(std::max(0.f, 1.f - z * z));
  const glm::vec3 o = c + 3.f * glm::vec3(r * std::cos(phi), r * std::sin(phi), z);
  const glm::vec3 to = c + spread * (glm::vec3(s.next(), s.next(), s.next()) - 0.5f);
  return Ray{o, glm::normalize(to - o), INFINITY};
}

// The nearest root of |o + t d - c| = r, or INFINITY.
float sphere_hit(const Ray& ray, const glm::vec3& c, float r) {
  const glm::vec3 oc = ray.o - c;
  const float b = glm::dot(oc, ray.d), disc = b * b - (glm::dot(oc, oc) - r * r);
  return disc < 0.f ? INFINITY : -b - std::sqrt(disc);
}

float angle(const glm::vec3& a, const glm::vec3& b) { return std::acos(std::clamp(glm::dot(a, b), -1.f, 1.f)); }

std::string load_error(const TempDir& t, const json& doc) {
  try {
    load_scene(doc, (t.dir / "scene.json").string());
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("an sdfgrid holding a plane: exact distances and normals", "[sdf]") {
  // z - 0.3 is trilinear: its zero set is the plane z = 0.3 exactly, under to_world (scale 2,
  // shift 1 in x, 0.5 in z) the world plane z = 1.1.
  SdfGrid g = sampled_grid({5, 6, 7}, [](const glm::vec3& q) { return q.z - 0.3f; });
  prepare_sdf_grid(g, glm::mat3(2.f), {1.f, 0.f, 0.5f});
  CHECK(g.voxels.size() == 4 * 5);  // one layer of voxels: the plane lies inside the second
  const Bvh bvh = voxel_tree(g);
  Sampler s(7, 0, 0);
  int hits = 0;
  for (int i = 0; i < 2000; ++i) {
    const glm::vec3 o(1.f + 2.f * s.next(), 2.f * s.next(), 4.f);
    const glm::vec3 d = glm::normalize(glm::vec3(s.next() - 0.5f, s.next() - 0.5f, -1.f));
    Hit h;
    const bool hit = bvh.intersect(Ray{o, d, INFINITY}, h);
    const glm::vec3 p = o + d * ((1.1f - o.z) / d.z);
    const bool inside = p.x >= 1.f && p.x <= 3.f && p.y >= 0.f && p.y <= 2.f;
    if (hit != inside && std::fabs(p.x - 2.f) < 0.999f && std::fabs(p.y - 1.f) < 0.999f) FAIL("ray " << i << " hit " << hit);
    if (!hit) continue;
    ++hits;
    REQUIRE(h.t == Approx((1.1f - o.z) / d.z).epsilon(1e-6));
    const Vec3<float> n = sdf_normal(g, Vec3<float>(o + d * h.t));
    CHECK(to_glm(n) == glm::vec3(0.f, 0.f, 1.f));
    CHECK(glm::length(to_glm(sdf_shading_normal(g, Vec3<float>(o + d * h.t), n)) - glm::vec3(0, 0, 1)) < 1e-6f);
  }
  CHECK(hits > 600);
}

TEST_CASE("Mitsuba's own sdfgrid test: a 2 x 2 x 2 grid of a diagonal plane", "[sdf][mitsuba]") {
  // Mitsuba's src/shapes/tests/test_sdfgrid.py (test04_ray_intersect): values -√2/2 at y = z = 0,
  // 0 where one of y, z is 1, √2/2 at y = z = 1; rays down -z from (x, y, 3) + shift hit the
  // unit square's points at t = 2 + y with the normal (0, 1, 1) / √2.
  const float r = std::sqrt(2.f) / 2.f;
  for (const glm::vec3 shift : {glm::vec3(0.f), glm::vec3(-0.5f, 0.5f, 0.2f)}) {
    SdfGrid g;
    g.res = glm::ivec3(2);
    g.values = std::make_shared<const std::vector<float>>(std::vector<float>{-r, -r, 0, 0, 0, 0, r, r});
    prepare_sdf_grid(g, glm::mat3(1.f), shift);
    const Bvh bvh = voxel_tree(g);
    for (int i = 0; i < 10; ++i)
      for (int j = 0; j < 10; ++j) {
        const float x = -2.f + 4.f * float(i) / 9.f, y = -2.f + 4.f * float(j) / 9.f;
        const Ray ray{shift + glm::vec3(x, y, 3.f), glm::vec3(0.f, 0.f, -1.f), INFINITY};
        Hit h;
        const bool hit = bvh.intersect(ray, h);
        REQUIRE(hit == (x >= 0.f && x <= 1.f && y >= 0.f && y <= 1.f));
        if (!hit) continue;
        CHECK(h.t == Approx(2.f + y).epsilon(1e-6));
        const glm::vec3 n = to_glm(sdf_normal(g, Vec3<float>(ray.o + ray.d * h.t)));
        CHECK(glm::length(n - glm::vec3(0.f, r, r)) < 1e-6f);
      }
  }
}

TEST_CASE("an sdfgrid of a sphere's distances: its hits and normals against the sphere's", "[sdf]") {
  SdfGrid g = sampled_grid(glm::ivec3(64), sphere_distance);
  prepare_sdf_grid(g, glm::mat3(1.f), glm::vec3(0.f));
  const Bvh bvh = voxel_tree(g);
  Sampler s(11, 0, 0);
  double worst_r = 0, worst_smooth = 0, worst_analytic = 0, sum_smooth = 0, sum_analytic = 0;
  int hits = 0, mismatches = 0;
  for (int i = 0; i < 4000; ++i) {
    const Ray ray = random_ray(s, glm::vec3(0.5f), 0.8f);
    const float t_exact = sphere_hit(ray, glm::vec3(0.5f), 0.35f);
    Hit h, brute;
    const bool hit = bvh.intersect(ray, h);
    mismatches += hit != bvh.intersect_brute_force(ray, brute) || (hit && h.t != brute.t);
    // A ray grazing the sphere may pass the interpolant (or the reverse): only clear cases count.
    if (hit != (t_exact < INFINITY)) {
      const glm::vec3 oc = ray.o - glm::vec3(0.5f);
      const float miss = std::sqrt(std::max(0.f, glm::dot(oc, oc) - glm::dot(oc, ray.d) * glm::dot(oc, ray.d)));
      CHECK(std::fabs(miss - 0.35f) < 1e-3f);
      continue;
    }
    if (!hit) continue;
    ++hits;
    const glm::vec3 p = ray.o + ray.d * h.t, radial = glm::normalize(p - glm::vec3(0.5f));
    worst_r = std::max(worst_r, double(std::fabs(glm::length(p - glm::vec3(0.5f)) - 0.35f)));
    const Vec3<float> n = sdf_normal(g, Vec3<float>(p));
    const float e_smooth = angle(to_glm(sdf_shading_normal(g, Vec3<float>(p), n)), radial), e_analytic = angle(to_glm(n), radial);
    worst_smooth = std::max(worst_smooth, double(e_smooth));
    worst_analytic = std::max(worst_analytic, double(e_analytic));
    sum_smooth += e_smooth;
    sum_analytic += e_analytic;
  }
  INFO(hits << " hits; worst distance of a hit from the sphere " << worst_r << "; normals' angle to the radius: smooth mean " << sum_smooth / hits
            << " worst " << worst_smooth << ", analytic mean " << sum_analytic / hits << " worst " << worst_analytic);
  CHECK(hits > 1500);
  CHECK(mismatches == 0);
  // Trilinear error of a distance of curvature 1 / r (r = 0.35) at h = 1/63: at most h² / 8 times the
  // Hessian's trace, 2 / r: 2.3e-4; a wrong root would be off by up to h = 0.016.
  CHECK(worst_r < 2.5e-4);
  CHECK(worst_analytic < 0.05);  // O(h / r): a voxel's gradient is constant across it, to first order
  CHECK(worst_smooth < 2e-3);    // the blend is continuous across voxels
  CHECK(sum_smooth / hits < 0.1 * sum_analytic / hits);
}

TEST_CASE("an sdfgrid hit moves with its ray as the surface says", "[sdf]") {
  // d t / d x for a ray sliding sideways over the sphere, from the tangent plane at the float hit,
  // against central differences of the float intersection.
  SdfGrid g = sampled_grid(glm::ivec3(64), sphere_distance);
  prepare_sdf_grid(g, glm::mat3(1.f), glm::vec3(0.f));
  const Bvh bvh = voxel_tree(g);
  using D = ad::Dual<1>;
  const PrimT<D> prim{kPrimKind<SdfGridShape>, {}, {}, {}, D(0.f), &g};
  for (float x : {0.45f, 0.6f, 0.7f}) {
    const glm::vec3 o(x, 0.52f, 3.f), d = glm::normalize(glm::vec3(0.05f, 0.f, -1.f));
    Hit h;
    REQUIRE(bvh.intersect(Ray{o, d, INFINITY}, h));
    const RayT<D> ray{Vec3<D>(D(o.x, 0), D(o.y), D(o.z)), Vec3<D>(Vec3<float>(d))};
    const SurfacePoint<D> sp = eval_hit(prim, ray, h, 0.f);
    CHECK(sp.p.x.v == o.x + d.x * h.t);
    const float step = 1e-3f;
    Hit plus, minus;
    REQUIRE(bvh.intersect(Ray{o + glm::vec3(step, 0, 0), d, INFINITY}, plus));
    REQUIRE(bvh.intersect(Ray{o - glm::vec3(step, 0, 0), d, INFINITY}, minus));
    const double fd = (double(plus.t) - double(minus.t)) / (2.0 * step);
    const double fwd = (sp.p.z.d[0] - 0.0) / d.z;  // p.z = o.z + d.z t: d p.z / d x = d.z dt/dx
    INFO("x " << x << ": dt/dx forward " << fwd << ", differences " << fd);
    CHECK(fwd == Approx(fd).margin(0.01).epsilon(0.01));
  }
}

TEST_CASE("an sdfgrid renders as the sphere it samples, smooth and analytic normals", "[sdf]") {
  TempDir t("dray-sdf-render-");
  sphere_vol(t, 64);
  const std::string path = (t.dir / "scene.json").string();
  // The analytic sphere's mean and variance at 512 spp; the sdfgrid's image at 64 spp.
  Scene sphere = load_scene(lit_scene(false), path);
  sphere.render.spp = 512;
  const Image ref = render_local(sphere, 2, RenderOutputs{true, {}});
  for (const char* normals : {"smooth", "analytic"}) {
    Scene scene = load_scene(lit_scene(true, normals), path);
    REQUIRE(scene.sdf_grids.size() == 1);
    scene.render.spp = 64;
    scene.render.seed = 1;  // independent of the reference
    const ZTestResult z = z_test(render_local(scene, 2), 64, channels_of(ref, 0, 3), channels_of(ref, 3, 3), 512);
    INFO(normals << " normals: failed pixels " << z.failed_pixels << ", global z " << z.global_z << ", largest block z "
                 << z.block_z_max << " (critical " << z.block_z_critical << ")");
    CHECK(z.passed);
  }
  // The test sees a sphere 1% smaller (radius 0.69 for 0.7).
  const SdfGrid small = sampled_grid(glm::ivec3(64), [](const glm::vec3& q) { return sphere_distance(q) + 0.005f; });
  write_vol_file((t.dir / "sphere.vol").string(), small.res, 1, small.values->data());
  Scene scene = load_scene(lit_scene(true), path);
  scene.render.spp = 64;
  scene.render.seed = 1;
  const ZTestResult z = z_test(render_local(scene, 2), 64, channels_of(ref, 0, 3), channels_of(ref, 3, 3), 512);
  INFO("radius 0.69: failed pixels " << z.failed_pixels << ", largest block z " << z.block_z_max);
  CHECK_FALSE(z.passed);
}

TEST_CASE("an sdfgrid's material derivatives against central differences", "[sdf]") {
  TempDir t("dray-sdf-derivatives-");
  sphere_vol(t, 64);
  const Scene scene = load_scene(lit_scene(true), (t.dir / "scene.json").string());
  const ForwardAndDifferences r = forward_and_differences(scene, slot_of(scene, "materials.clay.albedo[0]"), 0.05f, 16, 48, 8, 40, 16);
  INFO("forward " << r.fwd << ", differences " << r.fd << " (h) and " << r.fd_half << " (h/2)");
  CHECK(r.fwd > 1.0);
  CHECK(r.fwd == Approx(r.fd).epsilon(1e-3));
  CHECK(r.fd_half == Approx(r.fd).epsilon(1e-3));
}

TEST_CASE("Mitsuba's sdfgrid from XML and back to XML", "[sdf][mitsuba]") {
  TempDir t("dray-sdf-xml-");
  sphere_vol(t, 32);
  const std::string text = R"(<scene version="3.0.0">
  <sensor type="perspective"><float name="fov" value="40"/><transform name="to_world"><lookat origin="0, 1.5, 4" target="0, 0.6, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="48"/><integer name="height" value="32"/><rfilter type="box"/></film>
    <sampler type="independent"><integer name="sample_count" value="8"/></sampler></sensor>
  <emitter type="point"><point name="position" x="2" y="4" z="3"/><rgb name="intensity" value="20"/></emitter>
  <shape type="sdfgrid"><string name="filename" value="sphere.vol"/><string name="normals" value="analytic"/>
    <transform name="to_world"><scale value="2"/><translate x="-1" y="-0.3" z="-1"/></transform>
    <bsdf type="diffuse"/></shape>
</scene>)";
  const std::string xml = t.write("s.xml", text);
  const Scene scene = load_scene(xml);
  REQUIRE(scene.sdf_grids.size() == 1);
  CHECK_FALSE(scene.sdf_grids[0]->smooth);
  CHECK(scene.sdf_grids[0]->offset == glm::vec3(-1.f, -0.3f, -1.f));
  // Written back (dray convert): the same image, bitwise.
  std::vector<std::string> warnings;
  const json doc = read_scene_document(xml, {}, warnings);
  const std::string written = mitsuba::write_xml(doc, warnings);
  CHECK_THAT(written, Catch::Contains("type=\"sdfgrid\"") && Catch::Contains("\"analytic\""));
  const Image a = render_local(scene, 2);
  CHECK(a.data == render_local(load_scene(t.write("written.xml", written)), 2).data);
  CHECK(region_sum(a, 0, 0, 48, 0, 32) > 1.0);  // the ball is lit
  // In a shapegroup, instanced under the same to_world: the same image within rounding (the
  // placement composed in float), and written back bitwise.
  std::string grouped = text;
  const size_t at = grouped.find("<shape type=\"sdfgrid\">");
  grouped.insert(at, "<shape type=\"shapegroup\" id=\"g\">");
  const size_t xf0 = grouped.find("<transform name=\"to_world\"><scale", at), xf1 = grouped.find("</transform>", xf0) + 12;
  const std::string xf = grouped.substr(xf0, xf1 - xf0);
  grouped.erase(xf0, xf1 - xf0);
  grouped.insert(grouped.find("</shape>", at) + 8, "</shape><shape type=\"instance\"><ref id=\"g\"/>" + xf + "</shape>");
  const Scene inst = load_scene(t.write("g.xml", grouped));
  REQUIRE(inst.instances.size() == 1);
  const Image g = render_local(inst, 2);
  CHECK(relative_difference(a, g) < 1e-4);
  const std::string grouped_back = mitsuba::write_xml(read_scene_document((t.dir / "g.xml").string(), {}, warnings), warnings);
  CHECK_THAT(grouped_back, Catch::Contains("type=\"shapegroup\"") && Catch::Contains("type=\"sdfgrid\""));
  CHECK(g.data == render_local(load_scene(t.write("g-written.xml", grouped_back)), 2).data);
  const std::string emitting = t.write("e.xml", R"(<scene version="3.0.0"><shape type="sdfgrid"><string name="filename" value="sphere.vol"/>
    <emitter type="area"><rgb name="radiance" value="1"/></emitter></shape></scene>)");
  CHECK_THROWS_WITH(load_scene(emitting), Catch::Contains("cannot be an area emitter"));
}

TEST_CASE("sdfgrid refusals name the key", "[sdf]") {
  TempDir t("dray-sdf-errors-");
  sphere_vol(t, 8);
  json doc = lit_scene(true);
  doc["shapes"][0]["normals"] = "flat";
  CHECK_THAT(load_error(t, doc), Catch::Contains("/shapes/0 (ball)/normals") && Catch::Contains("\"smooth\" or \"analytic\""));
  doc = lit_scene(true);
  doc["materials"]["clay"]["emission"] = {1, 1, 1};
  CHECK_THAT(load_error(t, doc), Catch::Contains("/shapes/0 (ball)/material") && Catch::Contains("cannot emit light"));
  const std::vector<float> positive(27, 1.f), three(3 * 27, -1.f);
  write_vol_file((t.dir / "empty.vol").string(), glm::ivec3(3), 1, positive.data());
  write_vol_file((t.dir / "rgb.vol").string(), glm::ivec3(3), 3, three.data());
  doc = lit_scene(true);
  doc["shapes"][0]["file"] = "empty.vol";
  CHECK_THAT(load_error(t, doc), Catch::Contains("/shapes/0 (ball)/file") && Catch::Contains("no voxel holding surface"));
  doc["shapes"][0]["file"] = "rgb.vol";
  CHECK_THAT(load_error(t, doc), Catch::Contains("one channel, not 3"));
  doc = lit_scene(true);
  doc["materials"]["clay"]["emission"] = {1, 1, 1};
  doc["shapes"][0] = {{"name", "g"}, {"type", "group"}, {"shapes", json::array({doc["shapes"][0]})}};
  CHECK_THAT(load_error(t, doc), Catch::Contains("/shapes/0 (g)/shapes/0/material") && Catch::Contains("cannot emit light"));
}
