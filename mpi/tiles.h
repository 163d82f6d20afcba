#pragma once
// An image rendered by every rank: the scene's integrator's image pass (renderer/integrators/pass.h)
// over the ranks' shares of its work (mpi/rank_comm.h), the image assembled on rank 0.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mpi/context.h"
#include "mpi/rank_comm.h"
#include "renderer/integrators/render_tiles.h"

namespace dray::mpi {

// Parses "static" or "dynamic"; throws std::invalid_argument otherwise.
Distribution parse_distribution(const std::string& name);

struct RenderJob {
  std::optional<Shot> shot;  // the view: its sensor and seed (default: the scene's own, Scene::shot)
  int tile_size = 16;  // the largest tile edge: smaller when the image has fewer tiles than ranks
  std::optional<Tile> crop;  // render only this window (the image keeps its full size)
  int threads = 1;
  Distribution distribution = Distribution::static_interleaved;
  RenderOutputs outputs;  // variance, derivatives: the channels that travel with the values
  // Rank 0 only: called with the fraction of the image done (approximate for static).
  std::function<void(double)> progress;
};

// The tile ids of `rank` under static interleaved distribution.
std::vector<int> static_tiles(int n_tiles, int rank, int size);

// Per-rank rendering time of a render (on rank 0; empty elsewhere).
struct RenderStats {
  std::vector<double> busy_seconds;  // time each rank spent rendering its tiles, in rank order
  double imbalance() const;          // max / mean of busy_seconds
  long nonfinite_samples = 0;        // samples dropped as NaN or Inf, over all ranks
  // With derivatives: the boundary (edge) term.
  long boundary_samples = 0;         // samples drawn (all ranks)
  long boundary_hits = 0;            // of which landed on an edge with a radiance step
  long boundary_nonfinite = 0;       // boundary samples or splats dropped as NaN or Inf
  double boundary_seconds = 0;       // rank 0's time computing its share
  double boundary_mpi_seconds = 0;   // the exact reduction of the splats to rank 0
};

// Collective. Renders the scene (or job.crop of it) with every rank; returns the full image on
// rank 0 (other ranks return their partial image; outside a crop the pixels are 0) with
// job.outputs.channels() channels. Derivative channels include the boundary term: each rank
// draws its share of the boundary samples, whose splats are reduced exactly to rank 0. Bitwise
// identical for any rank and thread count. An exception on any rank (in its kernel, say) is agreed on and thrown
// as AgreedError on every rank.
Image render_image(const Context& ctx, const Scene& scene, const RenderJob& job, RenderStats* stats = nullptr);

}  // namespace dray::mpi
