#pragma once
// Rendering a set of image tiles with OpenMP threads. Which tiles a process renders is decided
// elsewhere (mpi/); a pixel's value depends only on (scene, seed, pixel, sample index).
#include <functional>
#include <span>
#include <vector>

#include "renderer/image.h"
#include "renderer/scene.h"

namespace dray {

struct Tile {
  int x0, y0, x1, y1;  // pixels [x0, x1) x [y0, y1)
};

// The image cut into size x size tiles, row by row (edge tiles are smaller).
std::vector<Tile> make_tiles(int width, int height, int size);

// Called by the calling thread's OpenMP master after each tile it finishes, with the number of
// tiles this process has finished so far.
using TileProgress = std::function<void(int tiles_done)>;

// Renders tiles[ids[i]] into `image` (full size) with `threads` OpenMP threads and a dynamic
// schedule: channels 0-2 hold the pixel mean, and when the image has 6 channels, 3-5 hold the
// variance of that mean. Pixels outside the tiles are left untouched.
void render_tiles(const Scene& scene, const std::vector<Tile>& tiles, std::span<const int> ids,
                  Image& image, int threads, const TileProgress& progress = {});

// The mean radiance of one pixel over the scene's spp samples (for tests and tools).
glm::vec3 render_pixel(const Scene& scene, int x, int y);

}  // namespace dray
