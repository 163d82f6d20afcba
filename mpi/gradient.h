#pragma once
// The distributed gradient pass: tiles over ranks (static, interleaved), each rank's gradient
// summed exactly (fixed point) over its pixels and boundary samples, then one exact allreduce of
// loss, gradient and drop counts: bitwise the same for any rank count, thread count and tiles.
// A multi-view pass renders its views in turn, adds their sums on each rank (exactly, in any
// order) and reduces them in that one allreduce: one aggregated buffer per iteration.
#include <span>
#include <vector>

#include "mpi/context.h"
#include "mpi/views.h"
#include "renderer/integrators/gradient_tiles.h"

namespace dray::mpi {

struct DistributedGradient {
  double loss = 0;               // mean over all pixels and channels (multi-view: the views' weighted mean)
  std::vector<double> gradient;  // d loss / d params[k] (with owners: this rank's segments', in order)
  long dropped_samples = 0, dropped_pixels = 0;
  double wait_seconds = 0;       // waiting for the slowest rank (load imbalance), at a barrier
  double mpi_seconds = 0;        // then communicating: every collective, the boundary term's included
  // The boundary (edge) term: samples drawn, their time on this rank, and the part of
  // mpi_seconds spent while it is on (the image allgather and the one exact allreduce).
  long boundary_samples = 0;
  double boundary_seconds = 0, boundary_mpi_seconds = 0;
};

// Collective: the gradient of the shot's loss. `target` must be full size on every rank. The gradient includes the boundary
// term: the primal image is assembled on every rank (one allgather), its loss adjoint seeds each
// rank's share of the boundary samples, summed exactly (fixed point) over ranks. The adjoint pass uses `adjoint_seed`
// (see gradient_tiles). When `primal` is given, rank 0 receives the full rendered image in it (a
// gather: only ask on iterations that need it). An exception on any rank is agreed on and thrown
// as AgreedError on every rank.
// The loss's pixel terms are divided by `normaliser` (0: 3 x the pixel count, the mean).
DistributedGradient gradient(const Context& ctx, const Scene& scene, const Shot& shot, const Image& target, Loss loss,
                             std::span<const Slot> params, int tile_size, int threads, uint64_t adjoint_seed,
                             Image* primal = nullptr, double normaliser = 0);

// One view of a multi-view pass: the sensor it renders with (an index into scene.sensors), its
// target (full size on every rank), its weight in the loss, and its sample seeds (the primal's
// and the adjoint's).
struct ViewPass {
  int sensor = 0;
  const Image* target = nullptr;
  double weight = 1;
  uint64_t seed = 0, adjoint_seed = 0;
  const Image* mask = nullptr;  // per-pixel loss weights (full size), or none; its sum must be > 0
  int adjoint_spp = 0;  // the gradient pass's samples per pixel (0: the scene's); particle tracers only
};

// Which rank receives which of the gradient's entries: [begin, end) of the parameters to `owner`.
// A pass given segments (in order, covering every parameter) reduce-scatters its exact sums: each
// rank gets its segments' (still exact: the same bits for any rank count), and no rank holds the
// whole gradient in doubles (issue 78: the optimizer's state sharded over ranks).
struct GradientSegment {
  size_t begin = 0, end = 0;
  int owner = 0;
};

// Collective: the loss sum_v w_v L_v / sum_v w_v over `views` (L_v the view's mean loss, over its
// mask's weights when it has one: sum m l / (3 sum m)) and its
// gradient. View i is rendered by view group i mod groups.count (its tiles over the group's ranks;
// mpi/views.h) with its sensor and seed, as its pass's shot.
// `primal` receives view 0's image on rank 0.
DistributedGradient gradient(const Context& ctx, const ViewGroups& groups, const Scene& scene, std::span<const ViewPass> views,
                             Loss loss, std::span<const Slot> params, int tile_size, int threads, Image* primal = nullptr,
                             std::span<const GradientSegment> owners = {});

}  // namespace dray::mpi
