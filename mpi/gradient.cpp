#include "mpi/gradient.h"

#include "mpi/collectives.h"
#include "mpi/errors.h"
#include "mpi/tiles.h"

namespace dray::mpi {

DistributedGradient gradient(const Context& ctx, const Scene& scene, const Image& target, Loss loss,
                             std::span<const Slot> params, int tile_size, int threads, uint64_t adjoint_seed,
                             Image* primal) {
  const int w = scene.camera.width, h = scene.camera.height;
  std::vector<Tile> tiles = make_tiles(w, h, fit_tile_size(Tile{0, 0, w, h}, tile_size, ctx.size() * threads));
  std::vector<int> mine = static_tiles(int(tiles.size()), ctx.rank(), ctx.size());
  Image image(w, h, 3);
  GradientResult local;
  run_agreed(ctx, [&] {
    local = gradient_tiles(scene, tiles, mine, target, loss, 3.0 * w * h, params, threads, image, adjoint_seed);
  });

  DistributedGradient out;
  const double tw = ctx.seconds();
  ctx.barrier();
  const double t0 = ctx.seconds();
  out.wait_seconds = t0 - tw;
  // One message: loss, drop counts and the gradient.
  std::vector<double> buf = {local.loss, double(local.dropped_samples), double(local.dropped_pixels)};
  buf.insert(buf.end(), local.gradient.begin(), local.gradient.end());
  allreduce_sum(ctx, buf);
  if (primal) {
    gather_tiles(ctx, tiles, mine, image);
    *primal = std::move(image);
  }
  out.mpi_seconds = ctx.seconds() - t0;
  out.loss = buf[0];
  out.dropped_samples = long(buf[1]);
  out.dropped_pixels = long(buf[2]);
  out.gradient.assign(buf.begin() + 3, buf.end());
  return out;
}

}  // namespace dray::mpi
