#include "renderer/render.h"

#include <array>
#include <atomic>

#include <glm/common.hpp>
#include <omp.h>

#include "ad/dual.h"
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

template <class T>
struct PixelEstimate {
  static constexpr int N = ad::tangent_count<T>::value;
  glm::dvec3 mean{0.0}, variance{0.0};  // variance of the mean (not of one sample)
  std::array<glm::dvec3, N> tangent{};  // derivative of the mean, per seeded input
};

// The pixel estimate: the mean of spp camera-path samples, its variance and (for a dual type)
// its derivatives, accumulated in double in a fixed order so that the result is bitwise
// reproducible.
template <class T>
PixelEstimate<T> pixel_estimate(const Scene& scene, const ParamView<T>& P, int x, int y) {
  constexpr int N = PixelEstimate<T>::N;
  const uint64_t pixel = uint64_t(y) * uint64_t(scene.camera.width) + uint64_t(x);
  const int n = scene.render.spp;
  PixelEstimate<T> e;
  glm::dvec3 sum(0.0), sum_sq(0.0);
  const CameraFrame<T> frame = camera_frame(scene.camera, P);
  for (int s = 0; s < n; ++s) {
    Sampler sampler(scene.render.seed, pixel, uint64_t(s));
    float jx = sampler.next(), jy = sampler.next();
    RayT<T> ray = camera_ray(frame, float(x) + jx, float(y) + jy);
    Vec3<T> L = radiance(scene, P, ray, sampler);
    glm::dvec3 v(value(L));
    sum += v;
    sum_sq += v * v;
    if constexpr (N > 0)
      for (int k = 0; k < N; ++k) e.tangent[k] += glm::dvec3(ad::tangent(L.x, k), ad::tangent(L.y, k), ad::tangent(L.z, k));
  }
  e.mean = sum / double(n);
  // Unbiased sample variance, divided by n for the variance of the mean.
  e.variance = n > 1 ? glm::max(sum_sq - sum * e.mean, 0.0) / (double(n - 1) * n) : glm::dvec3(0.0);
  for (auto& t : e.tangent) t /= double(n);
  return e;
}

// Writes one estimate into a pixel: mean and variance (when `values`), and its tangents into
// the derivative channels of scalars first, first + 1, ...
template <class T>
void store(const PixelEstimate<T>& e, const RenderOutputs& out, bool values, size_t first, size_t count, float* px) {
  if (values) {
    for (int c = 0; c < 3; ++c) px[c] = float(e.mean[c]);
    if (out.variance)
      for (int c = 0; c < 3; ++c) px[3 + c] = float(e.variance[c]);
  }
  if constexpr (PixelEstimate<T>::N > 0)
    for (size_t k = 0; k < count; ++k)
      for (int c = 0; c < 3; ++c) px[out.derivative_channel(first + k) + c] = float(e.tangent[k][c]);
}

// A chunk of scalars differentiated in one forward-mode pass.
struct Chunk {
  size_t first, count;
  std::vector<int> seeds;  // per parameter slot: tangent index or -1
};

template <class T>
void render_chunk_pixel(const Scene& scene, const Chunk& c, const RenderOutputs& out, bool values, int x, int y, float* px) {
  store(pixel_estimate(scene, ParamView<T>(scene.params, c.seeds.data()), x, y), out, values, c.first, c.count, px);
}

}  // namespace

void render_tiles(const Scene& scene, const std::vector<Tile>& tiles, std::span<const int> ids,
                  Image& image, int threads, const RenderOutputs& outputs, const TileProgress& progress) {
  std::vector<Chunk> chunks;
  for (size_t first = 0; first < outputs.wrt.size(); first += kMaxTangents) {
    Chunk c{first, std::min<size_t>(kMaxTangents, outputs.wrt.size() - first),
            std::vector<int>(scene.params.values().size(), -1)};
    for (size_t k = 0; k < c.count; ++k) c.seeds[outputs.wrt[first + k]] = int(k);
    chunks.push_back(std::move(c));
  }
  const ParamView<float> P(scene.params);
  std::atomic<int> done{0};
  const int n = int(ids.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int i = 0; i < n; ++i) {
    const Tile& t = tiles[ids[i]];
    for (int y = t.y0; y < t.y1; ++y)
      for (int x = t.x0; x < t.x1; ++x) {
        float* px = image.pixel(x, y);
        if (chunks.empty()) {
          store(pixel_estimate(scene, P, x, y), outputs, true, 0, 0, px);
          continue;
        }
        // The first pass also gives the values: a dual's value part is the float render.
        for (size_t k = 0; k < chunks.size(); ++k) {
          const Chunk& c = chunks[k];
          if (c.count == 1) render_chunk_pixel<ad::Dual<1>>(scene, c, outputs, k == 0, x, y, px);
          else if (c.count <= 4) render_chunk_pixel<ad::Dual<4>>(scene, c, outputs, k == 0, x, y, px);
          else render_chunk_pixel<ad::Dual<8>>(scene, c, outputs, k == 0, x, y, px);
        }
      }
    int d = ++done;
    if (progress && omp_get_thread_num() == 0) progress(d);
  }
}

}  // namespace dray
