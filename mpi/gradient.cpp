#include "mpi/gradient.h"

#include "mpi/collectives.h"
#include "mpi/errors.h"
#include "mpi/tiles.h"
#include "renderer/boundary.h"

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
  // The boundary term needs the whole primal on every rank (one allgather, which also serves a
  // requested primal); otherwise only a requested primal is gathered, to rank 0.
  const long n_boundary = moves_edges(scene, params) ? default_boundary_samples(scene, Tile{0, 0, w, h}) : 0;
  if (n_boundary > 0) allgather_static_tiles(ctx, tiles, image);
  else if (primal) gather_tiles(ctx, tiles, mine, image);
  out.mpi_seconds = out.boundary_mpi_seconds = ctx.seconds() - t0;
  if (n_boundary == 0) out.boundary_mpi_seconds = 0;
  // Exact sums, merged in one allreduce: the gradient (interior and boundary terms), the loss
  // and the drop counts. Integer sums: bitwise the same for any rank and thread count.
  std::vector<ad::FixedSum> sums = std::move(local.gradient_sums);
  const size_t n = params.size();
  sums.resize(n + 3);
  sums[n] = local.loss_sum;
  long dropped = local.dropped_samples;
  if (n_boundary > 0) {
    run_agreed(ctx, [&] {
      const double tb = ctx.seconds();
      const Image dloss = loss_adjoint_image(image, target, loss, 3.0 * w * h);
      dropped += boundary_gradient(scene, dloss, params, n_boundary, ctx.rank(), ctx.size(), threads,
                                   std::span<ad::FixedSum>(sums).first(n));
      out.boundary_seconds = ctx.seconds() - tb;
    });
    out.boundary_samples = n_boundary;
  }
  sums[n + 1].add(double(dropped));
  sums[n + 2].add(double(local.dropped_pixels));
  const double tr = ctx.seconds();
  allreduce_sum(ctx, std::span<ad::FixedSum>(sums));
  out.mpi_seconds += ctx.seconds() - tr;
  if (n_boundary > 0) out.boundary_mpi_seconds += ctx.seconds() - tr;
  for (size_t k = 0; k < n; ++k) out.gradient.push_back(sums[k].value());
  out.loss = sums[n].value();
  out.dropped_samples = long(sums[n + 1].value());
  out.dropped_pixels = long(sums[n + 2].value());
  if (primal && ctx.is_root()) *primal = std::move(image);
  return out;
}

}  // namespace dray::mpi
