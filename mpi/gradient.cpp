#include "mpi/gradient.h"

#include <cmath>

#include "mpi/collectives.h"
#include "mpi/errors.h"
#include "mpi/tiles.h"
#include "renderer/core/load_error.h"
#include "renderer/integrators/boundary.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/ptracer.h"

namespace dray::mpi {

namespace {

// The adjoint pass's samples: its seed, and its samples per pixel (0: the scene's; a particle
// tracer's gradient pass may trace fewer light paths than its primal, as Mitsuba's spp_grad).
struct AdjointSamples {
  uint64_t seed = 0;
  int spp = 0;
};

// The particle tracer's view: each rank traces its share of the light paths for the image, whose
// sums every rank then holds (the loss's adjoint image needs all of it), and its share again,
// with the adjoint seed (and its spp), for the gradient; the loss is counted once, by rank 0. As add_view.
void add_particle_view(const Context& ctx, const Scene& scene, const Image& target, const Image* mask, Loss loss,
                       double normaliser, std::span<const Slot> params, int threads, AdjointSamples adjoint,
                       std::span<ad::FixedSum> sums, Image* primal) {
  const int w = scene.camera().width, h = scene.camera().height;
  const Tile window{0, 0, w, h};
  const long n = particle_count(scene, window);
  ParticleSplat splat;
  run_agreed(ctx, [&] { splat = trace_particles(scene, window, n, ctx.rank(), ctx.size(), threads); });
  allreduce_sum(ctx, std::span<ad::FixedSum>(splat.sums));
  Image image(w, h, 3);
  image.spp = scene.render.spp;
  write_particle_splat(image, window, splat);
  const size_t k = params.size();
  Image loss_image = image, loss_target = target;  // scaled by their means for the scale-independent loss
  double adjoint_scale = 1;
  run_agreed(ctx, [&] { adjoint_scale = scale_for_loss(loss, loss_image, loss_target); });
  if (ctx.is_root())
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double term = 0;
        for (int c = 0; c < 3; ++c) term += loss_term(loss, loss_image.pixel(x, y)[c], loss_target.pixel(x, y)[c]);
        term *= (mask ? mask_weight(*mask, x, y) : 1.0) / normaliser;
        if (!std::isfinite(term) || !sums[k].add(term)) sums[k + 2].add(1.0);  // a pixel without loss or gradient
      }
  ParticleGradient g;
  run_agreed(ctx, [&] {
    if (k == 0) return;
    const long n_adjoint = adjoint.spp > 0 ? long(adjoint.spp) * w * h : n;
    g = particle_gradient(scene, window, loss_adjoint_image(loss_image, loss_target, loss, normaliser / adjoint_scale, mask), params,
                          n_adjoint, ctx.rank(), ctx.size(), threads, adjoint.seed);
  });
  // A displaced mesh's lifted adjoints, complete over the ranks' paths, chained once (rank 0).
  allreduce_sum(ctx, std::span<ad::FixedSum>(g.lifted));
  if (ctx.is_root()) fold_lifted(g);
  for (size_t i = 0; i < g.sums.size(); ++i) sums[i] += g.sums[i];
  sums[k + 1].add(double(g.dropped + splat.nonfinite));
  if (primal && ctx.is_root()) *primal = std::move(image);
}

// One view's pass on this rank: its share of the loss, gradient and drop counts added to `sums`
// (n + 3 entries: gradient, loss, dropped samples, dropped pixels), exactly; its loss divided by
// `normaliser`. Collective (the boundary term's allgather, or the primal's gather).
void add_view(const Context& ctx, const Scene& scene, const Image& target, const Image* mask, Loss loss,
              double normaliser, std::span<const Slot> params, int tile_size, int threads, AdjointSamples adjoint,
              std::span<ad::FixedSum> sums, DistributedGradient& out, Image* primal) {
  if (integrator_traits(scene.render).particles)
    return add_particle_view(ctx, scene, target, mask, loss, normaliser, params, threads, adjoint, sums, primal);
  const uint64_t adjoint_seed = adjoint.seed;
  run_agreed(ctx, [&] {
    if (adjoint.spp > 0 && adjoint.spp != scene.render.spp)
      throw LoadError("a gradient pass with its own samples (spp_grad) needs a particle tracer (integrator ptracer)");
    if (loss == Loss::scale_independent_l2)
      throw LoadError("the scale_independent_l2 loss needs the whole image before its adjoint pass: a particle tracer's "
                      "(integrator ptracer); the path integrators' adjoint runs tile by tile");
  });
  const int w = scene.camera().width, h = scene.camera().height;
  std::vector<Tile> tiles = make_tiles(w, h, fit_tile_size(Tile{0, 0, w, h}, tile_size, ctx.size() * threads));
  std::vector<int> mine = static_tiles(int(tiles.size()), ctx.rank(), ctx.size());
  Image image(w, h, 3);
  GradientResult local;
  run_agreed(ctx, [&] {
    GradientMode mode;
    mode.sums_only = true;  // reduced as exact sums below, the pass's added into the total
    mode.add_into = sums.first(params.size());
    local = gradient_tiles(scene, tiles, mine, target, loss, normaliser, params, threads, image, adjoint_seed, mode, mask);
  });
  const double tw = ctx.seconds();
  ctx.barrier();
  const double t0 = ctx.seconds();
  out.wait_seconds += t0 - tw;
  // The boundary term needs the whole primal on every rank (one allgather, which also serves a
  // requested primal); otherwise only a requested primal is gathered, to rank 0.
  const long n_boundary = moves_edges(scene, params) ? default_boundary_samples(scene, Tile{0, 0, w, h}) : 0;
  if (n_boundary > 0) allgather_static_tiles(ctx, tiles, image);
  else if (primal) gather_tiles(ctx, tiles, mine, image);
  out.mpi_seconds += ctx.seconds() - t0;
  if (n_boundary > 0) out.boundary_mpi_seconds += ctx.seconds() - t0;
  const size_t n = params.size();
  sums[n] += local.loss_sum;
  long dropped = local.dropped_samples;
  if (n_boundary > 0) {
    run_agreed(ctx, [&] {
      const double tb = ctx.seconds();
      const Image dloss = loss_adjoint_image(image, target, loss, normaliser, mask);
      dropped += boundary_gradient(scene, dloss, params, n_boundary, ctx.rank(), ctx.size(), threads, sums.first(n));
      out.boundary_seconds += ctx.seconds() - tb;
    });
    out.boundary_samples += n_boundary;
  }
  sums[n + 1].add(double(dropped));
  sums[n + 2].add(double(local.dropped_pixels));
  if (primal && ctx.is_root()) *primal = std::move(image);
}

// The one exact allreduce of the aggregated sums, and their values; with `owners`, each
// segment's sums reduced to its owner instead (runs of small segments allreduced together: one
// collective, not one per scalar parameter), and this rank's segments' values.
void reduce(const Context& ctx, std::span<ad::FixedSum> sums, size_t n, DistributedGradient& out,
            std::span<const GradientSegment> owners = {}) {
  const double tr = ctx.seconds();
  if (owners.empty()) {
    allreduce_sum(ctx, sums);
  } else {
    allreduce_sum(ctx, sums.subspan(n));  // loss and drop counts
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
  out.loss = sums[n].value();
  out.dropped_samples = long(sums[n + 1].value());
  out.dropped_pixels = long(sums[n + 2].value());
}

}  // namespace

DistributedGradient gradient(const Context& ctx, const Scene& scene, const Image& target, Loss loss,
                             std::span<const Slot> params, int tile_size, int threads, uint64_t adjoint_seed,
                             Image* primal, double normaliser) {
  DistributedGradient out;
  ad::FixedSums sums(params.size() + 3);
  if (normaliser == 0) normaliser = 3.0 * scene.camera().width * scene.camera().height;
  add_view(ctx, scene, target, nullptr, loss, normaliser, params, tile_size, threads, {adjoint_seed, 0}, sums, out, primal);
  reduce(ctx, sums, params.size(), out);
  return out;
}

DistributedGradient gradient(const Context& ctx, const ViewGroups& groups, Scene& scene, std::span<const ViewPass> views,
                             Loss loss, std::span<const Slot> params, int tile_size, int threads, Image* primal,
                             std::span<const GradientSegment> owners) {
  DistributedGradient out;
  ad::FixedSums sums(params.size() + 3);
  double total_weight = 0;
  for (const ViewPass& v : views) total_weight += v.weight;
  const int own_sensor = scene.sensor;
  const uint64_t own_seed = scene.render.seed;
  // This rank's group renders its views (collectives within the group); a failure in any group
  // is agreed over all ranks before the one allreduce.
  const Status st = agree_on(ctx, [&] {
    for (size_t i = size_t(groups.index); i < views.size(); i += size_t(groups.count)) {
      const ViewPass& v = views[i];
      if (v.sensor < 0 || size_t(v.sensor) >= scene.sensors.size())
        throw LoadError("view " + std::to_string(i) + ": no sensor " + std::to_string(v.sensor));
      scene.sensor = v.sensor;
      scene.render.seed = v.seed;
      // The view's mean loss (over its mask's weight, when it has one), weighted: its pixels'
      // terms divided by 3 (pixels or mask sum) total / w_v.
      const double area = v.mask ? mask_sum(*v.mask) : double(scene.camera().width) * scene.camera().height;
      const double normaliser = 3.0 * area * total_weight / v.weight;
      add_view(groups.group, scene, *v.target, v.mask, loss, normaliser, params, tile_size, threads, {v.adjoint_seed, v.adjoint_spp},
               sums, out, i == 0 ? primal : nullptr);  // view 0: group 0, whose first rank is rank 0
    }
  });
  scene.sensor = own_sensor;
  scene.render.seed = own_seed;
  if (st.code) throw AgreedError(st);
  const double tw = ctx.seconds();
  ctx.barrier();  // groups with more views or fewer ranks finish last
  out.wait_seconds += ctx.seconds() - tw;
  reduce(ctx, sums, params.size(), out, owners);
  return out;
}

}  // namespace dray::mpi
