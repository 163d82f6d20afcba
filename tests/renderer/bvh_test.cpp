#include <catch2/catch.hpp>

#include <glm/geometric.hpp>

#include "renderer/sampler.h"
#include "renderer/scene_loader.h"

using namespace dray;

namespace {

bool brute_force(const Bvh& bvh, const Ray& ray, Hit& hit) {
  bool found = false;
  float t_max = ray.t_max;
  const auto& geoms = bvh.prim_geoms();
  for (uint32_t i = 0; i < geoms.size(); ++i) {
    float t;
    if (intersect_prim(geoms[i], ray, 0.f, t_max, t)) {
      t_max = t;
      hit = {t, i};
      found = true;
    }
  }
  return found;
}

// Rays from random points on a sphere around the scene towards random points inside its box.
void compare_with_brute_force(const Scene& scene, int n_rays) {
  Aabb box = scene.bvh.bounds();
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
    bool ha = scene.bvh.intersect(ray, a), hb = brute_force(scene.bvh, ray, b);
    if (ha != hb || (ha && a.t != b.t)) ++mismatches;  // ties on shared edges may differ in prim
    hits += ha;
    if (scene.bvh.occluded(ray) != hb) ++occlusion_mismatches;
    // A segment that stops short of the hit is not occluded.
    if (hb) {
      Ray shorter = ray;
      shorter.t_max = b.t * 0.999f;
      Hit c;
      if (scene.bvh.occluded(shorter) != brute_force(scene.bvh, shorter, c)) ++occlusion_mismatches;
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
  REQUIRE(scene.bvh.prim_geoms().size() == 69451 + 2);
  compare_with_brute_force(scene, 2000);
}

TEST_CASE("BVH closest hit equals brute force on spheres and quads", "[bvh]") {
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json");
  compare_with_brute_force(scene, 20000);
}

TEST_CASE("BVH over primitives with identical centroids", "[bvh]") {
  // 100 copies of the same triangle: the builder must still terminate with bounded leaves.
  std::vector<PrimRef> refs(100);
  std::vector<PrimGeom> geoms(100, PrimGeom{Vec3<float>(0.f), Vec3<float>(1, 0, 0), Vec3<float>(0, 1, 0),
                                            PrimGeom::triangle});
  Bvh bvh;
  bvh.build(refs, geoms);
  Hit h;
  REQUIRE(bvh.intersect(Ray{{0.2f, 0.2f, -1.f}, {0, 0, 1}}, h));
  CHECK(h.t == Approx(1.f));
  CHECK_FALSE(bvh.intersect(Ray{{2.f, 2.f, -1.f}, {0, 0, 1}}, h));
}
