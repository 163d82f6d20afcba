#pragma once
// The ranks' PassComm (renderer/integrators/pass_comm.h): an integrator's pass split over the ranks
// of a context and its sums reduced exactly, a failure on any rank agreed on before the next
// collective. Tiles go to ranks interleaved (tile i to rank i mod size) or, with the dynamic
// distribution, in batches from a shared counter on rank 0.
#include "mpi/context.h"
#include "renderer/integrators/pass_comm.h"

namespace dray::mpi {

enum class Distribution {
  static_interleaved,  // tile i goes to rank i mod size
  dynamic,             // ranks take batches of tiles from a shared counter on rank 0
};

class RankComm : public PassComm {
 public:
  explicit RankComm(const Context& ctx, Distribution distribution = Distribution::static_interleaved)
      : ctx_(ctx), distribution_(distribution) {}
  int rank() const override { return ctx_.rank(); }
  int size() const override { return ctx_.size(); }
  double seconds() const override { return ctx_.seconds(); }
  void agreed(const std::function<void()>& step) const override;
  void barrier() const override { ctx_.barrier(); }
  void for_my_tiles(int count, int batch, const TileRender& render, const std::function<void(double)>& progress) const override;
  void sum_all(std::span<ad::FixedSum> sums) const override;
  void sum_to_root(std::span<ad::FixedSum> sums) const override;
  double sum_all(double value) const override;
  std::vector<double> gather(double value) const override;
  void share_interleaved_tiles(const std::vector<Tile>& tiles, Image& image) const override;
  void gather_tiles(const std::vector<Tile>& tiles, const std::vector<int>& ids, Image& image) const override;

 private:
  const Context& ctx_;
  Distribution distribution_;
};

}  // namespace dray::mpi
