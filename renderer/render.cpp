#include "renderer/render.h"

#include <atomic>

#include <omp.h>

#include "renderer/integrator.h"

namespace dray {

std::vector<Tile> make_tiles(int width, int height, int size) {
  std::vector<Tile> tiles;
  for (int y = 0; y < height; y += size)
    for (int x = 0; x < width; x += size)
      tiles.push_back({x, y, std::min(x + size, width), std::min(y + size, height)});
  return tiles;
}

namespace {

// The pixel estimate in T: the mean of spp camera-path samples, accumulated in double in a
// fixed order so that the result is bitwise reproducible.
template <class T>
glm::dvec3 pixel_mean(const Scene& scene, const ParamView<T>& P, int x, int y) {
  const uint64_t pixel = uint64_t(y) * uint64_t(scene.camera.width) + uint64_t(x);
  glm::dvec3 sum(0.0);
  for (int s = 0; s < scene.render.spp; ++s) {
    Sampler sampler(scene.render.seed, pixel, uint64_t(s));
    float jx = sampler.next(), jy = sampler.next();
    RayT<T> ray = camera_ray(scene.camera, P, float(x) + jx, float(y) + jy);
    glm::vec3 L = value(radiance(scene, P, ray, sampler));
    sum += glm::dvec3(L);
  }
  return sum / double(scene.render.spp);
}

}  // namespace

glm::vec3 render_pixel(const Scene& scene, int x, int y) {
  return glm::vec3(pixel_mean(scene, ParamView<float>(scene.params), x, y));
}

void render_tiles(const Scene& scene, const std::vector<Tile>& tiles, std::span<const int> ids,
                  Image& image, int threads, const TileProgress& progress) {
  const ParamView<float> P(scene.params);
  std::atomic<int> done{0};
  const int n = int(ids.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int i = 0; i < n; ++i) {
    const Tile& t = tiles[ids[i]];
    for (int y = t.y0; y < t.y1; ++y)
      for (int x = t.x0; x < t.x1; ++x) {
        glm::vec3 m(pixel_mean(scene, P, x, y));
        float* px = image.pixel(x, y);
        px[0] = m.x;
        px[1] = m.y;
        px[2] = m.z;
      }
    int d = ++done;
    if (progress && omp_get_thread_num() == 0) progress(d);
  }
}

}  // namespace dray
