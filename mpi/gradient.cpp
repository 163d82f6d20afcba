#include "mpi/gradient.h"

#include "mpi/collectives.h"
#include "mpi/errors.h"
#include "mpi/tiles.h"
#include "renderer/core/load_error.h"
#include "mpi/rank_comm.h"
#include "renderer/integrators/pass.h"

namespace dray::mpi {

namespace {

// The one exact allreduce of the aggregated sums, and their values; with `owners`, each
// segment's sums reduced to its owner instead (runs of small segments allreduced together: one
// collective, not one per scalar parameter), and this rank's segments' values.
void reduce(const Context& ctx, GradientSums& pass_sums, DistributedGradient& out,
            std::span<const GradientSegment> owners = {}) {
  const double tr = ctx.seconds();
  const std::span<ad::FixedSum> sums = pass_sums.gradient();
  const size_t n = pass_sums.parameters();
  if (owners.empty()) {
    allreduce_sum(ctx, pass_sums.all());
  } else {
    allreduce_sum(ctx, pass_sums.totals());
    constexpr size_t kSmall = 4096;
    for (size_t i = 0; i < owners.size();) {
      const GradientSegment& s = owners[i];
      if (s.end - s.begin >= kSmall) {
        reduce_sum_chunked(ctx, sums.subspan(s.begin, s.end - s.begin), s.owner);
        ++i;
        continue;
      }
      size_t j = i;
      while (j < owners.size() && owners[j].end - owners[j].begin < kSmall) ++j;
      if (owners[j - 1].end > s.begin) allreduce_sum(ctx, sums.subspan(s.begin, owners[j - 1].end - s.begin));
      i = j;
    }
  }
  out.mpi_seconds += ctx.seconds() - tr;
  if (out.boundary_samples > 0) out.boundary_mpi_seconds += ctx.seconds() - tr;
  size_t mine = owners.empty() ? n : 0;
  for (const GradientSegment& s : owners) mine += s.owner == ctx.rank() ? s.end - s.begin : 0;
  out.gradient.reserve(out.gradient.size() + mine);  // at once: growing by doubling held 1.5x the doubles
  if (owners.empty())
    for (size_t k = 0; k < n; ++k) out.gradient.push_back(sums[k].value());
  for (const GradientSegment& s : owners)
    if (s.owner == ctx.rank())
      for (size_t k = s.begin; k < s.end; ++k) out.gradient.push_back(sums[k].value());
  out.loss = pass_sums.loss().value();
  out.dropped_samples = long(pass_sums.dropped_samples().value());
  out.dropped_pixels = long(pass_sums.dropped_pixels().value());
}

// One view's pass on this rank's share (its group's), added into `sums`; its figures into `out`.
void add_view(const Context& ctx, const Scene& scene, const GradientRequest& request, GradientSums& sums,
              DistributedGradient& out) {
  PassFigures figures;
  gradient_pass(scene, request, RankComm(ctx), sums, figures);
  out.wait_seconds += figures.wait_seconds;
  out.mpi_seconds += figures.mpi_seconds;
  out.boundary_samples += figures.boundary_samples;
  out.boundary_seconds += figures.boundary_seconds;
  out.boundary_mpi_seconds += figures.boundary_mpi_seconds;
}

GradientRequest view_request(const Shot& shot, const PixelLoss& loss, std::span<const Slot> params, int tile_size, int threads,
                             uint64_t adjoint_seed, int adjoint_spp, Image* primal) {
  GradientRequest r;
  r.shot = shot;
  r.loss = loss;
  r.params = params;
  r.tile_size = tile_size;
  r.threads = threads;
  r.adjoint_seed = adjoint_seed;
  r.adjoint_spp = adjoint_spp;
  r.primal = primal;
  return r;
}

}  // namespace

DistributedGradient gradient(const Context& ctx, const Scene& scene, const Shot& shot, const Image& target, Loss loss,
                             std::span<const Slot> params, int tile_size, int threads, uint64_t adjoint_seed,
                             Image* primal, double normaliser) {
  DistributedGradient out;
  GradientSums sums(params.size());
  if (normaliser == 0) normaliser = 3.0 * scene.camera(shot).width * scene.camera(shot).height;
  add_view(ctx, scene,
           view_request(shot, {loss, &target, nullptr, normaliser}, params, tile_size, threads, adjoint_seed, 0, primal), sums,
           out);
  reduce(ctx, sums, out);
  return out;
}

DistributedGradient gradient(const Context& ctx, const ViewGroups& groups, const Scene& scene, std::span<const ViewPass> views,
                             Loss loss, std::span<const Slot> params, int tile_size, int threads, Image* primal,
                             std::span<const GradientSegment> owners) {
  DistributedGradient out;
  GradientSums sums(params.size());
  double total_weight = 0;
  for (const ViewPass& v : views) total_weight += v.weight;
  // This rank's group renders its views (collectives within the group); a failure in any group
  // is agreed over all ranks before the one allreduce.
  const Status status = agree_on(ctx, [&] {
    for (size_t i = size_t(groups.index); i < views.size(); i += size_t(groups.count)) {
      const ViewPass& v = views[i];
      if (v.sensor < 0 || size_t(v.sensor) >= scene.sensors.size())
        throw LoadError("view " + std::to_string(i) + ": no sensor " + std::to_string(v.sensor));
      const Shot shot{v.sensor, v.seed};
      // The view's mean loss (over its mask's weight, when it has one), weighted: its pixels'
      // terms divided by 3 (pixels or mask sum) total / w_v.
      const Camera& camera = scene.camera(shot);
      const double area = v.mask ? mask_sum(*v.mask) : double(camera.width) * camera.height;
      const double normaliser = 3.0 * area * total_weight / v.weight;
      // View 0: group 0, whose first rank is rank 0.
      add_view(groups.group, scene,
               view_request(shot, {loss, v.target, v.mask, normaliser}, params, tile_size, threads, v.adjoint_seed, v.adjoint_spp,
                            i == 0 ? primal : nullptr),
               sums, out);
    }
  });
  if (status.code) throw AgreedError(status);
  const double t_wait = ctx.seconds();
  ctx.barrier();  // groups with more views or fewer ranks finish last
  out.wait_seconds += ctx.seconds() - t_wait;
  reduce(ctx, sums, out, owners);
  return out;
}

}  // namespace dray::mpi
