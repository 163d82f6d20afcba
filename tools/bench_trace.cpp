// dray-bench-trace: BVH build time and closest-hit throughput on a scene (default: the bunny).
// Rays: one primary ray per pixel and one cosine-distributed bounce from each hit, traced in
// float as the kernel's search does. Reports the median of repeated runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <omp.h>

#include <CLI/CLI.hpp>
#include <glm/geometric.hpp>

#include "renderer/camera.h"
#include "renderer/sampler.h"
#include "renderer/scene_loader.h"

using namespace dray;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<Ray> make_rays(const Scene& scene) {
  ParamView<float> P(scene.params);
  std::vector<Ray> rays;
  const int w = scene.camera.width, h = scene.camera.height;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      Sampler s(1, uint64_t(y) * w + x, 0);
      Ray r = camera_ray(scene.camera, P, x + s.next(), y + s.next()).detached();
      rays.push_back(r);
      Hit hit;
      if (!scene.bvh.intersect(r, hit)) continue;
      glm::vec3 p = r.o + hit.t * r.d;
      glm::vec3 n = glm::normalize(glm::cross(to_glm(scene.bvh.prim_geoms()[hit.prim].b),
                                              to_glm(scene.bvh.prim_geoms()[hit.prim].c)));
      if (glm::dot(n, r.d) > 0) n = -n;
      // A cosine-weighted direction around n (rejection in the unit ball, then normalised).
      glm::vec3 d;
      do d = glm::vec3(s.next(), s.next(), s.next()) * 2.f - 1.f; while (glm::dot(d, d) > 1.f);
      rays.push_back(Ray{p + n * 1e-4f, glm::normalize(n + glm::normalize(d))});
    }
  return rays;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"BVH build and trace throughput"};
  std::string scene_path = "scenes/bunny.json";
  int repeats = 5;
  app.add_option("SCENE", scene_path, "Scene file");
  app.add_option("--repeats", repeats, "Timed runs (median reported)");
  CLI11_PARSE(app, argc, argv);

  Scene scene = load_scene(scene_path);
  size_t prims = scene.bvh.prim_geoms().size();
  std::vector<double> build;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = Clock::now();
    scene.build_geometry();
    build.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  double b = median(build);
  std::printf("| %-28s | %10.1f ms | %zu primitives, %.2f Mprims/s, %zu nodes |\n", "BVH build (1 thread)",
              b * 1e3, prims, prims / b * 1e-6, scene.bvh.node_count());

  std::vector<Ray> rays = make_rays(scene);
  for (int threads : {1, 2}) {
    std::vector<double> secs;
    long hits = 0;
    for (int i = 0; i < repeats + 1; ++i) {  // the first run warms up
      long h = 0;
      auto t0 = Clock::now();
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads) reduction(+ : h)
      for (size_t k = 0; k < rays.size(); ++k) {
        Hit hit;
        h += scene.bvh.intersect(rays[k], hit);
      }
      if (i > 0) secs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      hits = h;
    }
    double s = median(secs);
    std::printf("| %-28s | %10.2f Mrays/s | %zu rays, %ld hits |\n",
                (std::string("closest hit, ") + std::to_string(threads) + " thread(s)").c_str(),
                rays.size() / s * 1e-6, rays.size(), hits);
  }
  return 0;
}
