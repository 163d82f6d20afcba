#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include <glm/geometric.hpp>

#include "renderer/shapes/height_field.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/samplers/sampler.h"
#include "renderer/io/scene_loader.h"

using namespace dray;

namespace {

// Rays from random points on a sphere around the scene towards random points inside its box.
void compare_with_brute_force(const Bvh& bvh, int n_rays) {
  Aabb box = bvh.bounds();
  glm::vec3 centre = box.centre(), extent = box.hi - box.lo;
  float radius = glm::length(extent);
  int hits = 0, mismatches = 0, occlusion_mismatches = 0;
  for (int i = 0; i < n_rays; ++i) {
    Sampler s(42, uint64_t(i), 0);
    float z = 1.f - 2.f * s.next(), phi = 6.2831853f * s.next(), r = std::sqrt(std::max(0.f, 1.f - z * z));
    glm::vec3 o = centre + radius * glm::vec3(r * std::cos(phi), r * std::sin(phi), z);
    glm::vec3 target = box.lo + extent * glm::vec3(s.next(), s.next(), s.next());
    Ray ray{o, glm::normalize(target - o)};
    Hit a, b;
    bool ha = bvh.intersect(ray, a), hb = bvh.intersect_brute_force(ray, b);
    if (ha != hb || (ha && (a.t != b.t || a.prim != b.prim))) ++mismatches;  // the same hit, ties included
    hits += ha;
    if (bvh.occluded(ray) != hb) ++occlusion_mismatches;
    // A segment that stops short of the hit is not occluded.
    if (hb) {
      Ray shorter = ray;
      shorter.t_max = b.t * 0.999f;
      Hit c;
      if (bvh.occluded(shorter) != bvh.intersect_brute_force(shorter, c)) ++occlusion_mismatches;
    }
  }
  INFO("rays " << n_rays << ", hits " << hits);
  CHECK(mismatches == 0);
  CHECK(occlusion_mismatches == 0);
  CHECK(hits > n_rays / 10);  // the test exercises real hits
}

}  // namespace

TEST_CASE("BVH closest hit equals brute force on the bunny", "[bvh]") {
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/bunny.json");
  REQUIRE(scene.bvh.world().prim_geoms().size() == 69451 + 2);
  compare_with_brute_force(scene.bvh.world(), 2000);
}

TEST_CASE("BVH closest hit equals brute force on every example scene", "[bvh]") {
  for (const char* name : {"spheres.json", "cornell-box.json", "materials.json", "shadow-truth.json", "pose-truth.json",
                           "mitsuba/material-wall/area-light.xml"}) {
    INFO(name);
    Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/" + name);
    compare_with_brute_force(scene.bvh.world(), 4000);
  }
}

TEST_CASE("a ray with a NaN or infinite origin or direction hits nothing", "[bvh]") {
  // Such a ray once entered every box, an empty lane's (which leads back to the root) too, and
  // overflowed the traversal stack (tools/fuzz update: a camera frame of NaNs).
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/cornell-box.json");
  const float nan = std::nanf(""), inf = INFINITY;
  const glm::vec3 inside = scene.bvh.bounds().centre();
  for (const Ray& ray : {Ray{inside, {nan, nan, nan}}, Ray{inside, {0.f, nan, 1.f}}, Ray{{nan, 0.f, 0.f}, {0.f, 0.f, 1.f}},
                         Ray{{inf, 0.f, 0.f}, {-1.f, 0.f, 0.f}}, Ray{inside, {inf, 0.f, 0.f}}}) {
    Hit hit;
    CHECK_FALSE(scene.bvh.intersect(ray, hit));
    CHECK_FALSE(scene.bvh.occluded(ray));
  }
  Hit hit;  // the same point, a finite direction: the floor
  CHECK(scene.bvh.intersect(Ray{inside, {0.f, -1.f, 0.f}}, hit));
}

TEST_CASE("rays along the diagonals find what brute force finds", "[bvh]") {
  // An empty lane of a wide node was a point box at (1e30, 1e30, 1e30), which a ray along
  // (1, 1, 1) entered: its child 0, the root, looped until the stack overflowed (tools/fuzz
  // update: a directional light's direction set to three equal values).
  for (const char* name : {"spheres.json", "texture-fit.json", "cornell-box.json"}) {
    INFO(name);
    Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/" + name);
    const Aabb box = scene.bvh.bounds();
    for (int i = 0; i < 27; ++i) {
      const glm::vec3 f(float(i % 3), float(i / 3 % 3), float(i / 9));
      const glm::vec3 o = box.lo + (box.hi - box.lo) * (0.1f + 0.4f * f);
      for (int s = 0; s < 8; ++s) {
        const Ray ray{o, glm::normalize(glm::vec3(s & 1 ? -1.f : 1.f, s & 2 ? -1.f : 1.f, s & 4 ? -1.f : 1.f))};
        Hit a, b;
        const bool ha = scene.bvh.intersect(ray, a), hb = scene.bvh.world().intersect_brute_force(ray, b);
        CHECK(ha == hb);
        if (ha && hb) CHECK((a.t == b.t && a.prim == b.prim));
        CHECK(scene.bvh.occluded(ray) == hb);
      }
    }
  }
}

TEST_CASE("BVH closest hit equals brute force on a million triangles", "[bvh]") {
  // A 708 x 708 height field (1,002,528 triangles).
  const std::vector<PrimGeom> geoms = height_field(708, 0.05f, 0.37f, 0.23f);
  const std::vector<PrimRef> refs(geoms.size());
  Bvh bvh;
  bvh.build(refs, geoms);
  compare_with_brute_force(bvh, 60);
}

TEST_CASE("a BVH over primitives beyond float's range still finds the others", "[bvh]") {
  // Triangles with vertices at +-inf and NaN among ordinary ones: their doubled centroids are NaN
  // or infinite, which the binning once converted to a negative bin index (tools/fuzz update: a
  // quad's edges at -1.8e38).
  std::vector<PrimGeom> geoms;
  for (int k = 0; k < 40; ++k) {
    const float x = float(k) * 0.1f;
    geoms.push_back({Vec3<float>(x, 0.f, 0.f), Vec3<float>(x + 0.05f, 0.f, 0.f), Vec3<float>(x, 0.05f, 0.f), kPrimKind<MeshShape>});
  }
  const float inf = INFINITY, nan = std::nanf("");
  for (int k = 0; k < 20; ++k)
    geoms.push_back({Vec3<float>(k % 2 ? -inf : 3e38f, 0.f, 1.f), Vec3<float>(k % 3 ? nan : 1.f, inf, 1.f), Vec3<float>(0.f, 0.f, -inf),
                     kPrimKind<MeshShape>});
  Bvh bvh;
  bvh.build(std::vector<PrimRef>(geoms.size()), geoms);
  for (int k = 0; k < 40; ++k) {  // straight down onto each ordinary triangle
    const Ray ray{{float(k) * 0.1f + 0.01f, 0.01f, 5.f}, {0.f, 0.f, -1.f}};
    Hit a, b;
    const bool ha = bvh.intersect(ray, a), hb = bvh.intersect_brute_force(ray, b);
    CHECK(ha == hb);
    if (ha && hb) CHECK(a.prim == b.prim);
  }
}

TEST_CASE("BVH ties in distance go to the lower primitive index, in any traversal order", "[bvh]") {
  // A ray along the shared edge of a fan of triangles meets several at the same distance; and
  // 100 copies of one triangle are met all at once.
  std::vector<PrimGeom> fan;
  for (int k = 0; k < 8; ++k) {
    const float a0 = 0.785398f * float(k), a1 = 0.785398f * float(k + 1);
    fan.push_back({Vec3<float>(0.f), Vec3<float>(std::cos(a0), std::sin(a0), 0.f), Vec3<float>(std::cos(a1), std::sin(a1), 0.f),
                   kPrimKind<MeshShape>});
  }
  for (const auto& geoms : {fan, std::vector<PrimGeom>(100, fan[3])}) {
    Bvh bvh;
    bvh.build(std::vector<PrimRef>(geoms.size()), geoms);
    for (glm::vec3 o : {glm::vec3(0.f, 0.f, -1.f), glm::vec3(0.3f, 0.3f, -1.f), glm::vec3(-0.2f, 0.1f, 2.f)}) {
      const Ray ray{o, glm::normalize(-o)};  // through the fan's centre, a vertex of every triangle
      Hit a, b;
      const bool ha = bvh.intersect(ray, a), hb = bvh.intersect_brute_force(ray, b);
      REQUIRE(ha == hb);
      if (ha) {
        CHECK(a.t == b.t);
        CHECK(a.prim == b.prim);
      }
    }
  }
}

TEST_CASE("BVH over primitives with identical centroids", "[bvh]") {
  // 100 copies of the same triangle: the builder must still terminate with bounded leaves.
  std::vector<PrimRef> refs(100);
  std::vector<PrimGeom> geoms(100, PrimGeom{Vec3<float>(0.f), Vec3<float>(1, 0, 0), Vec3<float>(0, 1, 0),
                                            kPrimKind<MeshShape>});
  Bvh bvh;
  bvh.build(refs, geoms);
  Hit h;
  REQUIRE(bvh.intersect(Ray{{0.2f, 0.2f, -1.f}, {0, 0, 1}}, h));
  CHECK(h.t == Approx(1.f));
  CHECK_FALSE(bvh.intersect(Ray{{2.f, 2.f, -1.f}, {0, 0, 1}}, h));
}

TEST_CASE("BVH refit: moved primitives are found as by a new build; a refit degraded past the slack rebuilds", "[bvh]") {
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/bunny.json");
  std::vector<PrimRef> refs;
  std::vector<PrimGeom> geoms;
  for (uint32_t i = 0; i < scene.bvh.world().prim_refs().size(); ++i) {
    refs.push_back({0, 0});
    geoms.push_back({});
  }
  // The input order back from the stored one.
  for (uint32_t i = 0; i < scene.bvh.world().prim_refs().size(); ++i) {
    refs[scene.bvh.world().input_index(i)] = scene.bvh.world().prim_refs()[i];
    geoms[scene.bvh.world().input_index(i)] = scene.bvh.world().prim_geoms()[i];
  }
  // Every primitive sheared and lifted a little: the same tree, refitted.
  for (PrimGeom& g : geoms) {
    g.a = Vec3<float>(to_glm(g.a) + glm::vec3(0.05f * g.a.y, 0.1f, 0.f));
    if (prim_planar(g.kind)) {
      g.b = Vec3<float>(to_glm(g.b) + glm::vec3(0.05f * g.b.y, 0.f, 0.f));
      g.c = Vec3<float>(to_glm(g.c) + glm::vec3(0.05f * g.c.y, 0.f, 0.f));
    }
  }
  Bvh refitted = scene.bvh.world();
  REQUIRE(refitted.update(refs, geoms));
  compare_with_brute_force(refitted, 2000);
  // Other primitives: refused, and update builds anew.
  std::vector<PrimRef> fewer(refs.begin(), refs.end() - 1);
  std::vector<PrimGeom> fewer_geoms(geoms.begin(), geoms.end() - 1);
  CHECK_FALSE(refitted.refit(fewer, fewer_geoms));
  // Scattered: each triangle moved far along x by its index, the refitted boxes overlap badly.
  std::vector<PrimGeom> scattered = geoms;
  for (size_t i = 0; i < scattered.size(); ++i) scattered[i].a = Vec3<float>(to_glm(scattered[i].a) + glm::vec3(0.5f * float(i % 7), 0.f, 0.f));
  CHECK_FALSE(refitted.update(refs, scattered));
  compare_with_brute_force(refitted, 500);
}

TEST_CASE("a refitted scene renders bitwise as one built at the same parameters", "[bvh]") {
  // The Cornell box (its light two triangles of the mesh) moved by its transform: refitted in
  // one scene, built from the start in the other. Ties and the light's triangle table follow the
  // scene's order, not the tree's.
  const std::string path = std::string(DRAY_SOURCE_DIR) + "/scenes/cornell-box.json";
  const std::vector<std::string> small = {"camera.width=48", "camera.height=36", "render.spp=4"};
  Scene refit = load_scene(path, small);
  const Slot t = refit.params.find("shapes.cbox.translate")->slot;
  refit.params.set(t, 7.f);
  refit.params.set(t + 1, -3.f);
  refit.params.set(t + 2, 2.f);
  refit.build_geometry();
  std::vector<std::string> moved = small;
  moved.push_back("shapes.cbox.translate=[7, -3, 2]");
  const Scene built = load_scene(path, moved);
  const Image a = render_local(refit, 2), b = render_local(built, 2);
  double sum = 0;
  for (float v : a.data) sum += v;
  CHECK(sum > 0.0);
  CHECK(a.data == b.data);
}

TEST_CASE("a BVH built on 2 or 3 threads is the tree built on 1", "[bvh]") {
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/bunny.json");
  std::vector<PrimRef> refs(scene.bvh.world().prim_refs().size());
  std::vector<PrimGeom> geoms(refs.size());
  for (uint32_t i = 0; i < refs.size(); ++i) {
    refs[scene.bvh.world().input_index(i)] = scene.bvh.world().prim_refs()[i];
    geoms[scene.bvh.world().input_index(i)] = scene.bvh.world().prim_geoms()[i];
  }
  Bvh one, two, three;
  one.build(refs, geoms, 1);
  two.build(refs, geoms, 2);
  three.build(refs, geoms, 3);
  REQUIRE(one.node_count() == two.node_count());
  // Byte for byte: the subtrees collapsed in parallel land where the serial collapse puts them.
  auto bytes_equal = [](const auto& a, const auto& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
  };
  CHECK(bytes_equal(one.nodes(), two.nodes()));
  CHECK(bytes_equal(one.leaves(), two.leaves()));
  CHECK(bytes_equal(one.nodes(), three.nodes()));
  CHECK(bytes_equal(one.leaves(), three.leaves()));
  bool same = true;
  for (uint32_t i = 0; i < refs.size(); ++i) same = same && one.input_index(i) == two.input_index(i);
  CHECK(same);
  // The same hits for the same rays (the nodes are compared through what they answer).
  int differ = 0;
  for (int k = 0; k < 2000; ++k) {
    Sampler s(9, uint64_t(k), 0);
    const Ray ray{glm::vec3(s.next() * 4 - 2, 2.f, s.next() * 4 - 2), glm::normalize(glm::vec3(s.next() - 0.5f, -1.f, s.next() - 0.5f))};
    Hit a, b;
    const bool ha = one.intersect(ray, a), hb = two.intersect(ray, b);
    differ += ha != hb || (ha && (a.t != b.t || a.prim != b.prim));
  }
  CHECK(differ == 0);
}
