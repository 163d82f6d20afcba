#pragma once
// How the processes sharing a pass meet. An integrator's pass (renderer/integrators/pass.h) is one
// process's share of the work; it calls these where its shares must meet, and every process of
// the pass reaches every call in the same order. The defaults are one process alone (the one-rank
// render: the same pass with one share); mpi/rank_comm.h gives the ranks': the work split over
// them, the exact sums reduced, a failure agreed on before the next meeting.
#include <functional>
#include <span>
#include <vector>

#include "ad/fixed_sum.h"
#include "renderer/core/tile.h"
#include "renderer/image/image.h"

namespace dray {

class PassComm {
 public:
  virtual ~PassComm() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  bool is_root() const { return rank() == 0; }
  virtual double seconds() const;  // wall clock

  // Runs `step`; an exception on any process is thrown on every one.
  virtual void agreed(const std::function<void()>& step) const { step(); }
  // Waits for every process.
  virtual void barrier() const {}

  // The work split: calls `render` with this process's tiles of `count` (one call with tiles
  // rank, rank + size, ...; or, dynamically, batches of `batch` tiles as the processes take them)
  // and a callback for the tiles it finishes (empty when the batches report), and on the first
  // process `progress` with the fraction of the tiles done.
  using TileRender = std::function<void(const std::vector<int>& ids, const std::function<void(int done)>& tile_done)>;
  virtual void for_my_tiles(int count, int batch, const TileRender& render, const std::function<void(double)>& progress) const;
  // The tiles rank, rank + size, ... of `count`: the interleaved share.
  std::vector<int> interleaved(int count) const;

  // The reductions, in place and exact: the sums over the processes on every one, or on the first.
  virtual void sum_all(std::span<ad::FixedSum>) const {}
  virtual void sum_to_root(std::span<ad::FixedSum>) const {}
  // Counts and timings: a value summed over the processes (on every one), and every process's in
  // order (on the first; empty elsewhere).
  virtual double sum_all(double value) const { return value; }
  virtual std::vector<double> gather(double value) const { return {value}; }

  // The image: every process's interleaved tiles (interleaved(count)) copied into every process's
  // `image`, or the tiles `ids` of each process into the first's.
  virtual void share_interleaved_tiles(const std::vector<Tile>&, Image&) const {}
  virtual void gather_tiles(const std::vector<Tile>&, const std::vector<int>&, Image&) const {}
};

}  // namespace dray
