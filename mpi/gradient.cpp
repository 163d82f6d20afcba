#include "mpi/gradient.h"

#include "mpi/collectives.h"
#include "mpi/errors.h"
#include "mpi/tiles.h"
#include "renderer/boundary.h"

namespace dray::mpi {

namespace {

// The boundary term: every rank needs d loss / d pixel wherever its samples land.
void add_boundary_gradient(const Context& ctx, const Scene& scene, const Image& target, Loss loss,
                           std::span<const Slot> params, int threads, const std::vector<Tile>& tiles, Image& image,
                           DistributedGradient& out) {
  const int w = scene.camera.width, h = scene.camera.height;
  const long n = default_boundary_samples(scene, Tile{0, 0, w, h});
  if (params.empty() || n == 0) return;
  double t0 = ctx.seconds();
  allgather_static_tiles(ctx, tiles, image);
  out.boundary_mpi_seconds += ctx.seconds() - t0;
  std::vector<ad::FixedSum> sums(params.size());
  long dropped = 0;
  run_agreed(ctx, [&] {
    t0 = ctx.seconds();
    const Image dloss = loss_adjoint_image(image, target, loss, 3.0 * w * h);
    dropped = boundary_gradient(scene, dloss, params, n, ctx.rank(), ctx.size(), threads, sums);
    out.boundary_seconds = ctx.seconds() - t0;
  });
  t0 = ctx.seconds();
  allreduce_sum(ctx, std::span<ad::FixedSum>(sums));
  double d = double(dropped);
  allreduce_sum(ctx, std::span<double>(&d, 1));
  out.boundary_mpi_seconds += ctx.seconds() - t0;
  for (size_t k = 0; k < params.size(); ++k) out.gradient[k] += sums[k].value();
  out.dropped_samples += long(d);
  out.boundary_samples = n;
}

}  // namespace

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
    if (ctx.is_root()) *primal = image;
  }
  out.mpi_seconds = ctx.seconds() - t0;
  out.loss = buf[0];
  out.dropped_samples = long(buf[1]);
  out.dropped_pixels = long(buf[2]);
  out.gradient.assign(buf.begin() + 3, buf.end());
  add_boundary_gradient(ctx, scene, target, loss, params, threads, tiles, image, out);
  return out;
}

}  // namespace dray::mpi
