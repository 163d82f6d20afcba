#include "mpi/gradient.h"

#include "mpi/collectives.h"
#include "mpi/errors.h"
#include "mpi/tiles.h"
#include "renderer/boundary.h"

namespace dray::mpi {

namespace {

// The boundary term, from every rank's share of n samples; `image` is the primal, complete on
// every rank (each rank needs d loss / d pixel wherever its samples land).
void add_boundary_gradient(const Context& ctx, const Scene& scene, const Image& target, Loss loss,
                           std::span<const Slot> params, int threads, long n, const Image& image,
                           DistributedGradient& out) {
  const int w = scene.camera.width, h = scene.camera.height;
  // The gradient and, last, the dropped-sample count: one exact allreduce.
  std::vector<ad::FixedSum> sums(params.size() + 1);
  run_agreed(ctx, [&] {
    const double t0 = ctx.seconds();
    const Image dloss = loss_adjoint_image(image, target, loss, 3.0 * w * h);
    sums.back().add(double(boundary_gradient(scene, dloss, params, n, ctx.rank(), ctx.size(), threads,
                                             std::span<ad::FixedSum>(sums).first(params.size()))));
    out.boundary_seconds = ctx.seconds() - t0;
  });
  const double t0 = ctx.seconds();
  allreduce_sum(ctx, std::span<ad::FixedSum>(sums));
  out.boundary_mpi_seconds += ctx.seconds() - t0;
  out.mpi_seconds += ctx.seconds() - t0;
  for (size_t k = 0; k < params.size(); ++k) out.gradient[k] += sums[k].value();
  out.dropped_samples += long(sums.back().value());
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
  // The boundary term needs the whole primal on every rank (one allgather, which also serves a
  // requested primal); otherwise only a requested primal is gathered, to rank 0.
  const long n_boundary = moves_edges(scene, params) ? default_boundary_samples(scene, Tile{0, 0, w, h}) : 0;
  const double t_image = ctx.seconds();
  if (n_boundary > 0) allgather_static_tiles(ctx, tiles, image);
  else if (primal) gather_tiles(ctx, tiles, mine, image);
  if (n_boundary > 0) out.boundary_mpi_seconds = ctx.seconds() - t_image;
  out.mpi_seconds = ctx.seconds() - t0;
  out.loss = buf[0];
  out.dropped_samples = long(buf[1]);
  out.dropped_pixels = long(buf[2]);
  out.gradient.assign(buf.begin() + 3, buf.end());
  if (n_boundary > 0) add_boundary_gradient(ctx, scene, target, loss, params, threads, n_boundary, image, out);
  if (primal && ctx.is_root()) *primal = std::move(image);
  return out;
}

}  // namespace dray::mpi
