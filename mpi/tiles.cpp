#include "mpi/tiles.h"

#include <algorithm>
#include <stdexcept>

#include "renderer/integrators/pass.h"

namespace dray::mpi {

Distribution parse_distribution(const std::string& name) {
  if (name == "static") return Distribution::static_interleaved;
  if (name == "dynamic") return Distribution::dynamic;
  throw std::invalid_argument("unknown tile distribution \"" + name + "\" (expected static or dynamic)");
}

std::vector<int> static_tiles(int n_tiles, int rank, int size) {
  std::vector<int> ids;
  for (int i = rank; i < n_tiles; i += size) ids.push_back(i);
  return ids;
}

double RenderStats::imbalance() const {
  if (busy_seconds.empty()) return 1.0;
  double mx = 0, sum = 0;
  for (double b : busy_seconds) mx = std::max(mx, b), sum += b;
  return sum > 0 ? mx / (sum / double(busy_seconds.size())) : 1.0;
}

Image render_image(const Context& ctx, const Scene& scene, const RenderJob& job, RenderStats* stats) {
  const RankComm comm(ctx, job.distribution);
  ImageRequest request;
  request.shot = job.shot.value_or(scene.shot());
  const Camera& camera = scene.camera(request.shot);
  request.window = job.crop.value_or(Tile{0, 0, camera.width, camera.height});
  request.outputs = job.outputs;
  request.tile_size = job.tile_size;
  request.threads = job.threads;
  request.progress = job.progress;
  PassFigures figures;
  Image image = image_pass(scene, request, comm, &figures);
  if (stats) {
    stats->busy_seconds = comm.gather(figures.busy_seconds);
    stats->nonfinite_samples = long(comm.sum_all(double(figures.nonfinite)));
    stats->boundary_hits = long(comm.sum_all(double(figures.boundary_hits)));
    stats->boundary_nonfinite = long(comm.sum_all(double(figures.boundary_nonfinite)));
    stats->boundary_samples = long(comm.sum_all(double(figures.boundary_samples)));
    stats->boundary_seconds = figures.boundary_seconds;
    stats->boundary_mpi_seconds = figures.boundary_mpi_seconds;
  }
  return image;
}

}  // namespace dray::mpi
