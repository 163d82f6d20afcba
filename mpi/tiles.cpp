#include "mpi/comm.h"
#include "mpi/tiles.h"

#include <exception>
#include <stdexcept>


#include "mpi/collectives.h"
#include "mpi/errors.h"
#include "renderer/integrators/boundary.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/ptracer.h"

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

namespace {

// A shared tile counter on rank 0, advanced with one-sided fetch-and-add.
class TileCounter {
 public:
  explicit TileCounter(const Context& ctx) {
    MPI_Aint bytes = 0;
    const int rank = ctx.rank();
    if (rank == 0) bytes = sizeof(int);
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, comm_of(ctx), &base_, &win_);
    if (rank == 0) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win_);
      *base_ = 0;
      MPI_Win_unlock(0, win_);
    }
    MPI_Barrier(comm_of(ctx));
  }
  ~TileCounter() { close(); }
  // Collective: frees the window (every rank, once it has stopped fetching).
  void close() {
    if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);
  }
  int fetch_add(int n) {
    int old = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win_);
    MPI_Fetch_and_op(&n, &old, MPI_INT, 0, 0, MPI_SUM, win_);
    MPI_Win_unlock(0, win_);
    return old;
  }

 private:
  int* base_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
};

}  // namespace

void gather_tiles(const Context& ctx, const std::vector<Tile>& tiles, const std::vector<int>& ids,
                  Image& image) {
  if (ctx.size() == 1) return;
  const int c = image.channels;
  // Pack this rank's tiles in id order.
  std::vector<float> mine;
  if (!ctx.is_root())
    for (int id : ids) {
      const Tile& t = tiles[id];
      for (int y = t.y0; y < t.y1; ++y)
        mine.insert(mine.end(), image.pixel(t.x0, y), image.pixel(t.x0, y) + (t.x1 - t.x0) * c);
    }
  int n_ids = ctx.is_root() ? 0 : int(ids.size());
  int n_floats = int(mine.size());
  std::vector<int> id_counts(ctx.size()), float_counts(ctx.size());
  MPI_Gather(&n_ids, 1, MPI_INT, id_counts.data(), 1, MPI_INT, 0, comm_of(ctx));
  MPI_Gather(&n_floats, 1, MPI_INT, float_counts.data(), 1, MPI_INT, 0, comm_of(ctx));
  std::vector<int> id_displs(ctx.size(), 0), float_displs(ctx.size(), 0);
  for (int r = 1; r < ctx.size(); ++r) {
    id_displs[r] = id_displs[r - 1] + id_counts[r - 1];
    float_displs[r] = float_displs[r - 1] + float_counts[r - 1];
  }
  std::vector<int> all_ids;
  std::vector<float> all_px;
  if (ctx.is_root()) {
    all_ids.resize(size_t(id_displs.back() + id_counts.back()));
    all_px.resize(size_t(float_displs.back() + float_counts.back()));
  }
  MPI_Gatherv(ctx.is_root() ? nullptr : ids.data(), n_ids, MPI_INT, all_ids.data(),
              id_counts.data(), id_displs.data(), MPI_INT, 0, comm_of(ctx));
  MPI_Gatherv(mine.data(), n_floats, MPI_FLOAT, all_px.data(), float_counts.data(),
              float_displs.data(), MPI_FLOAT, 0, comm_of(ctx));
  if (!ctx.is_root()) return;
  const float* src = all_px.data();
  for (int id : all_ids) {
    const Tile& t = tiles[id];
    for (int y = t.y0; y < t.y1; ++y) {
      std::copy(src, src + (t.x1 - t.x0) * c, image.pixel(t.x0, y));
      src += (t.x1 - t.x0) * c;
    }
  }
}

void allgather_static_tiles(const Context& ctx, const std::vector<Tile>& tiles, Image& image) {
  if (ctx.size() == 1) return;
  const int c = image.channels;
  auto floats = [&](int rank) {
    long n = 0;
    for (int id : static_tiles(int(tiles.size()), rank, ctx.size()))
      n += long(tiles[size_t(id)].x1 - tiles[size_t(id)].x0) * (tiles[size_t(id)].y1 - tiles[size_t(id)].y0) * c;
    return int(n);
  };
  auto for_each_row = [&](int rank, auto&& f) {
    for (int id : static_tiles(int(tiles.size()), rank, ctx.size())) {
      const Tile& t = tiles[size_t(id)];
      for (int y = t.y0; y < t.y1; ++y) f(image.pixel(t.x0, y), (t.x1 - t.x0) * c);
    }
  };
  std::vector<float> mine;
  mine.reserve(size_t(floats(ctx.rank())));
  for_each_row(ctx.rank(), [&](const float* row, int n) { mine.insert(mine.end(), row, row + n); });
  std::vector<int> counts(size_t(ctx.size())), displs(size_t(ctx.size()), 0);
  for (int r = 0; r < ctx.size(); ++r) counts[size_t(r)] = floats(r);
  for (int r = 1; r < ctx.size(); ++r) displs[size_t(r)] = displs[size_t(r - 1)] + counts[size_t(r - 1)];
  std::vector<float> all(size_t(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), int(mine.size()), MPI_FLOAT, all.data(), counts.data(), displs.data(), MPI_FLOAT,
                 comm_of(ctx));
  for (int r = 0; r < ctx.size(); ++r) {
    const float* src = all.data() + displs[size_t(r)];
    for_each_row(r, [&](float* row, int n) {
      std::copy(src, src + n, row);
      src += n;
    });
  }
}

double RenderStats::imbalance() const {
  if (busy_seconds.empty()) return 1.0;
  double mx = 0, sum = 0;
  for (double b : busy_seconds) mx = std::max(mx, b), sum += b;
  return sum > 0 ? mx / (sum / double(busy_seconds.size())) : 1.0;
}

namespace {

// The particle tracer's image: every rank traces its share of the light paths (interleaved), the
// splats are summed exactly on rank 0.
Image particle_image(const Context& ctx, const Scene& scene, const RenderJob& job, const Tile& window, RenderStats* stats) {
  const int w = scene.camera().width, h = scene.camera().height;
  Image image(w, h, job.outputs.channels());
  image.spp = scene.render.spp;
  ParticleSplat splat;
  double busy = 0;
  run_agreed(ctx, [&] {
    const double t0 = ctx.seconds();
    splat = trace_particles(scene, window, particle_count(scene, window), ctx.rank(), ctx.size(), job.threads, job.outputs);
    busy = ctx.seconds() - t0;
  });
  reduce_sum(ctx, std::span<ad::FixedSum>(splat.sums));
  if (ctx.is_root()) write_particle_splat(image, window, splat);
  if (job.progress && ctx.is_root()) job.progress(1.0);
  if (stats) {
    stats->busy_seconds = gather(ctx, std::span<const double>(&busy, 1));
    double count = double(splat.nonfinite);
    allreduce_sum(ctx, std::span<double>(&count, 1));
    stats->nonfinite_samples = long(count);
  }
  return image;
}

}  // namespace

Image render_image(const Context& ctx, const Scene& scene, const RenderJob& job, RenderStats* stats) {
  const int w = scene.camera().width, h = scene.camera().height;
  const Tile window = job.crop.value_or(Tile{0, 0, w, h});
  if (integrator_traits(scene.render).particles) return particle_image(ctx, scene, job, window, stats);
  std::vector<Tile> tiles = make_tiles(window, fit_tile_size(window, job.tile_size, ctx.size() * job.threads));
  const int n = int(tiles.size());
  Image image(w, h, job.outputs.channels());
  image.spp = scene.render.spp;
  std::vector<int> done;  // the tiles this rank rendered
  double busy = 0;        // seconds in render_tiles

  long nonfinite = 0;
  // A failure on one rank (an exception in its kernel) is agreed on before the gather, so that
  // no rank waits in a collective for a rank that has given up.
  auto render = [&](const std::vector<int>& ids, const TileProgress& progress) {
    const double t0 = ctx.seconds();
    nonfinite += render_tiles(scene, tiles, ids, image, job.threads, job.outputs, progress);
    busy += ctx.seconds() - t0;
    done.insert(done.end(), ids.begin(), ids.end());
  };
  run_agreed(ctx, [&] {
    if (job.distribution == Distribution::static_interleaved || ctx.size() == 1) {
      const std::vector<int> ids = static_tiles(n, ctx.rank(), ctx.size());
      TileProgress progress;
      if (ctx.is_root() && job.progress)
        progress = [&](int d) { job.progress(double(d) / double(std::max<size_t>(1, ids.size()))); };
      render(ids, progress);
      return;
    }
    // Batches of a few tiles per thread: small enough to balance, large enough to keep the
    // one-sided traffic negligible. The counter's window is created and freed by every rank.
    TileCounter counter(ctx);
    const int batch = std::max(1, 2 * job.threads);
    std::exception_ptr failure;
    for (;;) {
      int first = counter.fetch_add(batch);
      if (first >= n) break;
      std::vector<int> ids;
      for (int i = first; i < std::min(n, first + batch); ++i) ids.push_back(i);
      try {
        render(ids, {});
      } catch (...) {
        failure = std::current_exception();
        break;
      }
      if (ctx.is_root() && job.progress) job.progress(double(std::min(n, first + batch)) / n);
    }
    counter.close();
    if (failure) std::rethrow_exception(failure);
  });
  // The boundary term of the derivatives: samples interleaved over ranks, splats summed exactly.
  BoundarySplat splat;
  double boundary_seconds = 0;
  if (!job.outputs.wrt.empty()) {
    run_agreed(ctx, [&] {
      const double t0 = ctx.seconds();
      splat = boundary_splat(scene, job.outputs.wrt, window, default_boundary_samples(scene, window), ctx.rank(),
                             ctx.size(), job.threads);
      boundary_seconds = ctx.seconds() - t0;
    });
  }
  gather_tiles(ctx, tiles, done, image);
  const double t_reduce = ctx.seconds();
  if (!job.outputs.wrt.empty()) {
    reduce_sum(ctx, std::span<ad::FixedSum>(splat.sums));
    if (ctx.is_root()) add_boundary_splat(image, job.outputs, window, splat);
  }
  const double boundary_mpi = ctx.seconds() - t_reduce;
  if (stats) {
    stats->busy_seconds = gather(ctx, std::span<const double>(&busy, 1));
    double count = double(nonfinite);
    allreduce_sum(ctx, std::span<double>(&count, 1));
    stats->nonfinite_samples = long(count);
    double b[3] = {double(splat.samples), double(splat.nonfinite), double(splat.drawn)};
    allreduce_sum(ctx, std::span<double>(b, 3));
    stats->boundary_hits = long(b[0]);
    stats->boundary_nonfinite = long(b[1]);
    stats->boundary_samples = long(b[2]);
    stats->boundary_seconds = boundary_seconds;
    stats->boundary_mpi_seconds = boundary_mpi;
  }
  return image;
}

}  // namespace dray::mpi
