#include "mpi/rank_comm.h"

#include <algorithm>
#include <exception>

#include "mpi/collectives.h"
#include "mpi/comm.h"
#include "mpi/errors.h"
#include "mpi/tiles.h"

namespace dray::mpi {

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

void RankComm::agreed(const std::function<void()>& step) const { run_agreed(ctx_, step); }

void RankComm::for_my_tiles(int count, int batch, const TileRender& render, const std::function<void(double)>& progress) const {
  if (distribution_ == Distribution::static_interleaved || ctx_.size() == 1) return PassComm::for_my_tiles(count, batch, render, progress);
  // The counter's window is created and freed by every rank; a failure stops this rank's batches
  // and is rethrown once the window is freed.
  TileCounter counter(ctx_);
  std::exception_ptr failure;
  for (;;) {
    const int first = counter.fetch_add(batch);
    if (first >= count) break;
    std::vector<int> ids;
    for (int i = first; i < std::min(count, first + batch); ++i) ids.push_back(i);
    try {
      render(ids, {});
    } catch (...) {
      failure = std::current_exception();
      break;
    }
    if (ctx_.is_root() && progress) progress(double(std::min(count, first + batch)) / count);
  }
  counter.close();
  if (failure) std::rethrow_exception(failure);
}

void RankComm::sum_all(std::span<ad::FixedSum> sums) const { allreduce_sum(ctx_, sums); }
void RankComm::sum_to_root(std::span<ad::FixedSum> sums) const { reduce_sum(ctx_, sums); }

double RankComm::sum_all(double value) const {
  allreduce_sum(ctx_, std::span<double>(&value, 1));
  return value;
}

std::vector<double> RankComm::gather(double value) const { return mpi::gather(ctx_, std::span<const double>(&value, 1)); }

void RankComm::gather_tiles(const std::vector<Tile>& tiles, const std::vector<int>& ids, Image& image) const {
  const Context& ctx = ctx_;
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

void RankComm::share_interleaved_tiles(const std::vector<Tile>& tiles, Image& image) const {
  const Context& ctx = ctx_;
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

}  // namespace dray::mpi
