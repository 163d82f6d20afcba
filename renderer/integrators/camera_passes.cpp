#include "renderer/integrators/camera_passes.h"

#include <algorithm>
#include <utility>

#include "renderer/core/load_error.h"
#include "renderer/integrators/boundary.h"
#include "renderer/integrators/gradient_tiles.h"
#include "renderer/integrators/render_tiles.h"

namespace dray {

Image tile_image(const Scene& scene, const ImageRequest& rq, const PassComm& comm, PassFigures& figures,
                 const TileShareRender& render_share) {
  const std::vector<Tile> tiles = make_tiles(rq.window, fit_tile_size(rq.window, rq.tile_size, comm.size() * rq.threads));
  Image image(scene.camera(rq.shot).width, scene.camera(rq.shot).height, rq.outputs.channels());
  image.spp = scene.render.spp;
  std::vector<int> done;  // the tiles this process rendered
  // Batches of a few tiles per thread when the processes take them as they go: small enough to
  // balance, large enough to keep the traffic negligible. A failure on one process is agreed on
  // before the gather, so that no process waits for one that has given up.
  comm.agreed([&] {
    comm.for_my_tiles(int(tiles.size()), std::max(1, 2 * rq.threads), [&](const std::vector<int>& ids, const std::function<void(int)>& tile_done) {
      const double t0 = comm.seconds();
      figures.nonfinite += render_share(tiles, ids, image, tile_done);
      figures.busy_seconds += comm.seconds() - t0;
      done.insert(done.end(), ids.begin(), ids.end());
    }, rq.progress);
  });
  comm.gather_tiles(tiles, done, image);
  return image;
}

Image CameraTilePasses::image_pass(const Scene& scene, const ImageRequest& rq, const PassComm& comm, PassFigures& figures) {
  Image image = tile_image(scene, rq, comm, figures, [&](const std::vector<Tile>& tiles, const std::vector<int>& ids, Image& into,
                                                          const std::function<void(int)>& tile_done) {
    return render_tiles(scene, rq.shot, tiles, ids, into, rq.threads, rq.outputs, tile_done);
  });
  if (rq.outputs.wrt.empty()) return image;
  // The boundary term of the derivatives: samples interleaved over the processes, splats summed exactly.
  BoundarySplat splat;
  comm.agreed([&] {
    const double t0 = comm.seconds();
    splat = boundary_splat(scene, rq.shot, rq.outputs.wrt, rq.window, default_boundary_samples(scene, rq.window), comm.rank(),
                           comm.size(), rq.threads);
    figures.boundary_seconds = comm.seconds() - t0;
  });
  const double t_reduce = comm.seconds();
  comm.sum_to_root(splat.sums);
  if (comm.is_root()) add_boundary_splat(image, rq.outputs, rq.window, splat);
  figures.boundary_mpi_seconds = comm.seconds() - t_reduce;
  figures.boundary_hits = splat.samples;
  figures.boundary_nonfinite = splat.nonfinite;
  figures.boundary_samples = splat.drawn;
  return image;
}

std::optional<std::string> CameraTilePasses::refusal(const PassAsk& ask) {
  if (ask.own_adjoint_samples)
    return "a gradient pass with its own samples needs a particle tracer (integrator ptracer): a path "
           "integrator's gradient pass renders the image it differentiates, with spp";
  if (ask.loss == Loss::scale_independent_l2)
    return "scale_independent_l2 needs the whole image before its adjoint pass: a particle tracer's (integrator "
           "ptracer); the path integrators' adjoint runs tile by tile";
  return std::nullopt;
}

void CameraTilePasses::gradient_pass(const Scene& scene, const GradientRequest& rq, const PassComm& comm, GradientSums& sums,
                                     PassFigures& figures) {
  comm.agreed([&] {
    const bool own_samples = rq.adjoint_spp > 0 && rq.adjoint_spp != scene.render.spp;
    if (auto why = refusal(PassAsk::gradient(rq.loss.loss, own_samples))) throw LoadError(*why);
  });
  const int w = scene.camera(rq.shot).width, h = scene.camera(rq.shot).height;
  const Tile film{0, 0, w, h};
  const std::vector<Tile> tiles = make_tiles(film, fit_tile_size(film, rq.tile_size, comm.size() * rq.threads));
  const std::vector<int> mine = comm.interleaved(int(tiles.size()));
  Image image(w, h, 3);
  GradientResult local;
  comm.agreed([&] {
    const double t0 = comm.seconds();
    GradientMode mode;
    mode.sums_only = true;  // reduced as exact sums by the caller, this pass's added into the total
    mode.add_into = sums.gradient();
    local = gradient_tiles(scene, rq.shot, tiles, mine, *rq.loss.target, rq.loss.loss, rq.loss.normaliser, rq.params, rq.threads,
                           image, rq.adjoint_seed, mode, rq.loss.mask);
    figures.busy_seconds += comm.seconds() - t0;
  });
  const double t_wait = comm.seconds();
  comm.barrier();
  const double t0 = comm.seconds();
  figures.wait_seconds += t0 - t_wait;
  // The boundary term needs the whole primal on every process (one exchange, which also serves a
  // requested primal); otherwise only a requested primal is gathered, to the first.
  const long n_boundary = moves_edges(scene, rq.shot, rq.params) ? default_boundary_samples(scene, film) : 0;
  if (n_boundary > 0) comm.share_interleaved_tiles(tiles, image);
  else if (rq.primal) comm.gather_tiles(tiles, mine, image);
  figures.mpi_seconds += comm.seconds() - t0;
  if (n_boundary > 0) figures.boundary_mpi_seconds += comm.seconds() - t0;
  sums.loss() += local.loss_sum;
  long dropped = local.dropped_samples;
  if (n_boundary > 0) {
    comm.agreed([&] {
      const double t_boundary = comm.seconds();
      const Image dloss = loss_adjoint_image(image, rq.loss);
      dropped += boundary_gradient(scene, rq.shot, dloss, rq.params, n_boundary, comm.rank(), comm.size(), rq.threads, sums.gradient());
      figures.boundary_seconds += comm.seconds() - t_boundary;
    });
    figures.boundary_samples += n_boundary;
  }
  sums.dropped_samples().add(double(dropped));
  sums.dropped_pixels().add(double(local.dropped_pixels));
  if (rq.primal && comm.is_root()) *rq.primal = std::move(image);
}

}  // namespace dray
