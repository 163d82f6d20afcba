#include "renderer/integrators/render_tiles.h"

#include <array>
#include <atomic>
#include <numeric>

#include <glm/common.hpp>
#include <omp.h>

#include "ad/dual.h"
#include "renderer/core/parallel.h"
#include "renderer/integrators/pixel_estimate.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/pass.h"

namespace dray {

std::vector<Tile> make_tiles(int width, int height, int size) { return make_tiles(Tile{0, 0, width, height}, size); }

std::vector<Tile> make_tiles(const Tile& w, int size) {
  std::vector<Tile> tiles;
  for (int y = w.y0; y < w.y1; y += size)
    for (int x = w.x0; x < w.x1; x += size) tiles.push_back({x, y, std::min(x + size, w.x1), std::min(y + size, w.y1)});
  return tiles;
}

int fit_tile_size(const Tile& w, int max_size, int workers) {
  int size = std::max(1, max_size);
  auto count = [&](int s) { return long((w.x1 - w.x0 + s - 1) / s) * long((w.y1 - w.y0 + s - 1) / s); };
  while (size > 1 && count(size) < workers) size = std::max(1, size / 2);
  return size;
}

namespace {

// Writes one estimate into a pixel: mean and variance (when `values`), and its tangents into
// the derivative channels of scalars first, first + 1, ...
// Returns the samples dropped as non-finite.
template <class T>
int store(const PixelEstimate<T>& e, const RenderOutputs& out, bool values, size_t first, size_t count, float* px) {
  if (values) {
    for (int c = 0; c < 3; ++c) px[c] = to_image_float(e.mean[c]);
    if (out.variance)
      for (int c = 0; c < 3; ++c) px[3 + c] = to_image_float(e.variance[c]);
  }
  if constexpr (PixelEstimate<T>::N > 0)
    for (size_t k = 0; k < count; ++k)
      for (int c = 0; c < 3; ++c) px[out.derivative_channel(first + k) + c] = to_image_float(e.tangent[k][c]);
  return e.nonfinite;
}

// A chunk of scalars differentiated in one forward-mode pass.
struct Chunk {
  size_t first, count;
  Seeds seeds;            // per parameter slot: tangent index or -1
  bool geometry = true;   // whether it seeds geometry (else geometry is traced in float)
};

template <class T>
int render_chunk_pixel(const Scene& scene, const Shot& shot, const Chunk& c, const RenderOutputs& out, bool values, int x, int y,
                       float* px) {
  const ParamView<T> P(scene.params, c.seeds);
  return c.geometry ? store(pixel_estimate<T, T>(scene, shot, P, x, y), out, values, c.first, c.count, px)
                    : store(pixel_estimate<T, float>(scene, shot, P, x, y), out, values, c.first, c.count, px);
}

// The splatting film's tile (renderer/integrators/splat.h): a chunk's estimates of its pixels,
// written as render_chunk_pixel writes one.
template <class T>
long splat_chunk_tile(const Scene& scene, const Shot& shot, const Chunk& c, const RenderOutputs& out, bool values, const Tile& t,
                      Image& image) {
  const ParamView<T> P = std::is_same_v<T, float> ? ParamView<T>(scene.params) : ParamView<T>(scene.params, c.seeds);
  const std::vector<PixelEstimate<T>> estimates =
      c.geometry ? splat_estimates<T, T>(scene, shot, P, t) : splat_estimates<T, float>(scene, shot, P, t);
  long dropped = 0;
  size_t k = 0;
  for (int y = t.y0; y < t.y1; ++y)
    for (int x = t.x0; x < t.x1; ++x) dropped += store(estimates[k++], out, values, c.first, c.count, image.pixel(x, y));
  return dropped;
}

long splat_tile(const Scene& scene, const Shot& shot, const std::vector<Chunk>& chunks, const RenderOutputs& outputs, const Tile& t,
                Image& image) {
  if (chunks.empty()) {
    const Chunk values{0, 0, Seeds(0, {}), false};
    return splat_chunk_tile<float>(scene, shot, values, outputs, true, t, image);
  }
  long dropped = 0;
  for (size_t k = 0; k < chunks.size(); ++k) {  // the first pass also gives the values
    const Chunk& c = chunks[k];
    if (c.count == 1) dropped += splat_chunk_tile<ad::Dual<1>>(scene, shot, c, outputs, k == 0, t, image);
    else if (c.count <= 4) dropped += splat_chunk_tile<ad::Dual<4>>(scene, shot, c, outputs, k == 0, t, image);
    else dropped += splat_chunk_tile<ad::Dual<8>>(scene, shot, c, outputs, k == 0, t, image);
  }
  return dropped;
}

}  // namespace

long render_tiles(const Scene& scene, const Shot& shot, const std::vector<Tile>& tiles, std::span<const int> ids,
                  Image& image, int threads, const RenderOutputs& outputs, const TileProgress& progress) {
  if (!integrator_traits(scene.render).camera_tiles)
    throw std::logic_error("render_tiles: integrator " + std::string(integrator_traits(scene.render).name) + " renders through its own passes");
  if (outputs.aovs != 0 && size_t(outputs.aovs) != extra_channel_names(scene).size())
    throw std::logic_error("render_tiles: the outputs' extra channels are not the scene's");
  std::vector<Chunk> chunks;
  for (size_t first = 0; first < outputs.wrt.size(); first += kMaxTangents) {
    const size_t count = std::min<size_t>(kMaxTangents, outputs.wrt.size() - first);
    chunks.push_back({first, count, Seeds(scene.params.values().size(), std::span(outputs.wrt).subspan(first, count))});
    chunks.back().geometry = geometry_seeded(scene, shot, ParamView<float>(scene.params, chunks.back().seeds));
  }
  const ParamView<float> P(scene.params);
  std::atomic<int> done{0};
  std::atomic<long> nonfinite{0};  // an integer sum: the same in any order
  parallel_for(int(ids.size()), threads, [&](int i) {
    inject_fault(ids[i]);
    const Tile& t = tiles[ids[i]];
    long dropped = 0;
    if (scene.render.splat) {
      if (g_render_cancel.load(std::memory_order_relaxed)) throw RenderCancelled();
      dropped += splat_tile(scene, shot, chunks, outputs, t, image);
    }
    for (int y = t.y0; y < t.y1; ++y) {
      if (g_render_cancel.load(std::memory_order_relaxed)) throw RenderCancelled();
      for (int x = t.x0; x < t.x1; ++x) {
        float* px = image.pixel(x, y);
        if (outputs.aovs) aov_pixel(scene, shot, x, y, px + outputs.aov_channel());
        if (scene.render.splat) continue;
        if (chunks.empty()) {
          dropped += store(pixel_estimate(scene, shot, P, x, y), outputs, true, 0, 0, px);
          continue;
        }
        // The first pass also gives the values: a dual's value part is the float render.
        for (size_t k = 0; k < chunks.size(); ++k) {
          const Chunk& c = chunks[k];
          if (c.count == 1) dropped += render_chunk_pixel<ad::Dual<1>>(scene, shot, c, outputs, k == 0, x, y, px);
          else if (c.count <= 4) dropped += render_chunk_pixel<ad::Dual<4>>(scene, shot, c, outputs, k == 0, x, y, px);
          else dropped += render_chunk_pixel<ad::Dual<8>>(scene, shot, c, outputs, k == 0, x, y, px);
        }
      }
    }
    nonfinite += dropped;
    int d = ++done;
    if (progress && omp_get_thread_num() == 0) progress(d);
  });
  return nonfinite;
}

Image render_local(const Scene& scene, int threads, const RenderOutputs& outputs) {
  ImageRequest request;
  request.shot = scene.shot();
  request.window = Tile{0, 0, scene.own_camera().width, scene.own_camera().height};
  request.outputs = outputs;
  request.threads = threads;
  return image_pass(scene, request, PassComm{});
}

}  // namespace dray
