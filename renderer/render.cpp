#include "renderer/render.h"

#include <atomic>

#include <glm/common.hpp>

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

struct PixelEstimate {
  glm::dvec3 mean, variance;  // variance of the mean (not of one sample)
};

// The pixel estimate: the mean of spp camera-path samples and its variance, accumulated in
// double in a fixed order so that the result is bitwise reproducible.
template <class T>
PixelEstimate pixel_estimate(const Scene& scene, const ParamView<T>& P, int x, int y) {
  const uint64_t pixel = uint64_t(y) * uint64_t(scene.camera.width) + uint64_t(x);
  const int n = scene.render.spp;
  glm::dvec3 sum(0.0), sum_sq(0.0);
  for (int s = 0; s < n; ++s) {
    Sampler sampler(scene.render.seed, pixel, uint64_t(s));
    float jx = sampler.next(), jy = sampler.next();
    RayT<T> ray = camera_ray(scene.camera, P, float(x) + jx, float(y) + jy);
    glm::dvec3 L(value(radiance(scene, P, ray, sampler)));
    sum += L;
    sum_sq += L * L;
  }
  PixelEstimate e;
  e.mean = sum / double(n);
  // Unbiased sample variance, divided by n for the variance of the mean.
  e.variance = n > 1 ? glm::max(sum_sq - sum * e.mean, 0.0) / (double(n - 1) * n) : glm::dvec3(0.0);
  return e;
}

}  // namespace

glm::vec3 render_pixel(const Scene& scene, int x, int y) {
  return glm::vec3(pixel_estimate(scene, ParamView<float>(scene.params), x, y).mean);
}

void render_tiles(const Scene& scene, const std::vector<Tile>& tiles, std::span<const int> ids,
                  Image& image, int threads, const TileProgress& progress) {
  const ParamView<float> P(scene.params);
  std::atomic<int> done{0};
  const int n = int(ids.size());
  const bool with_variance = image.channels >= 6;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int i = 0; i < n; ++i) {
    const Tile& t = tiles[ids[i]];
    for (int y = t.y0; y < t.y1; ++y)
      for (int x = t.x0; x < t.x1; ++x) {
        PixelEstimate e = pixel_estimate(scene, P, x, y);
        float* px = image.pixel(x, y);
        for (int c = 0; c < 3; ++c) px[c] = float(e.mean[c]);
        if (with_variance)
          for (int c = 0; c < 3; ++c) px[3 + c] = float(e.variance[c]);
      }
    int d = ++done;
    if (progress && omp_get_thread_num() == 0) progress(d);
  }
}

}  // namespace dray
