#pragma once
// Rendering a set of image tiles with OpenMP threads. Which tiles a process renders is decided
// elsewhere (mpi/); a pixel's value depends only on (scene, seed, pixel, sample index).
#include <atomic>
#include <functional>
#include <stdexcept>
#include <span>
#include <vector>

#include "renderer/core/tile.h"
#include "renderer/image/image.h"
#include "renderer/integrators/aov.h"
#include "renderer/scene.h"

namespace dray {

// The image cut into size x size tiles, row by row (edge tiles are smaller).
std::vector<Tile> make_tiles(int width, int height, int size);
// The window [x0, x1) x [y0, y1) cut the same way.
std::vector<Tile> make_tiles(const Tile& window, int size);

// The largest tile edge up to `max_size` (halving it) that cuts the window into at least
// `workers` tiles, so that no rank or thread is left without work; 1 at the smallest. Pixel
// values do not depend on the tile size.
int fit_tile_size(const Tile& window, int max_size, int workers);

// The outputs that also hold the film's extra channels (alpha, AOVs).
inline RenderOutputs with_aovs(RenderOutputs o, const Scene& scene) {
  o.aovs = int(extra_channel_names(scene).size());
  return o;
}

// Tangents per forward-mode pass: the scalars are differentiated in chunks of at most this many.
inline constexpr int kMaxTangents = 8;

// Called by the calling thread's OpenMP master after each tile it finishes, with the number of
// tiles this process has finished so far.
using TileProgress = std::function<void(int tiles_done)>;

// A request to stop this process's renders (the Python module's Ctrl-C): render_tiles checks it at
// every row of a tile and stops with RenderCancelled. Set only for a process rendering alone: it is
// not agreed between ranks.
inline std::atomic<bool> g_render_cancel{false};
struct RenderCancelled : std::runtime_error {
  RenderCancelled() : std::runtime_error("rendering cancelled") {}
};

// Renders tiles[ids[i]] of the shot's film into `image` (full size, outputs.channels() channels) with `threads`
// OpenMP threads and a dynamic schedule. With derivatives, each chunk of at most kMaxTangents
// scalars is one forward-mode pass (Dual<1>, Dual<4> or Dual<8>) whose values equal the float
// render bit for bit. Pixels outside the tiles are left untouched. Returns the number of
// samples dropped as non-finite (NaN or Inf; no such value reaches the image). An exception in
// a thread stops the remaining tiles and is rethrown here.
long render_tiles(const Scene& scene, const Shot& shot, const std::vector<Tile>& tiles, std::span<const int> ids,
                  Image& image, int threads, const RenderOutputs& outputs = {},
                  const TileProgress& progress = {});

// The whole image of the scene's own shot (Scene::shot) rendered in this process (every tile,
// `threads` threads).
Image render_local(const Scene& scene, int threads, const RenderOutputs& outputs = {});

}  // namespace dray
