#pragma once
// The gradient pass: the loss of the rendered image against a target, and its gradient with
// respect to scene parameters by reverse mode. A primal pass renders the pixels and their loss;
// dLoss/dpixel then seeds the adjoint of the pixel's samples, by path replay (renderer/integrators/prb.h).
#include <span>
#include <string>
#include <vector>

#include "ad/fixed_sum.h"
#include "renderer/image/image.h"
#include "renderer/integrators/loss.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/scene.h"

namespace dray {

struct GradientResult {
  // This process's share, as exact fixed-point sums (order-independent: merge them across ranks
  // with mpi::allreduce_sum) and as their values.
  ad::FixedSum loss_sum;                     // the loss (already divided by `normaliser`)
  ad::FixedSums gradient_sums;               // d loss / d params[k]
  double loss = 0;
  std::vector<double> gradient;
  long dropped_samples = 0;       // samples whose gradient was not finite or out of range: dropped
  long dropped_pixels = 0;        // pixels whose value was not finite: no loss, no gradient
};

// Over tiles[ids]: renders each pixel (into `primal`, full size), adds its loss against `target`
// (full size) divided by `normaliser` (3 x the global pixel count for a mean), and accumulates
// the gradient with respect to the scalars at `params`. Each pixel's samples are summed in
// order, then committed to its thread's exact accumulators (ad/exact_gradient.h): the result is
// bitwise the same for any tiles, thread count or schedule, and memory is O(parameters) per
// thread, independent of the tiles.
//
// The adjoint pass replays the primal's samples (the exact gradient of this image's loss) when
// adjoint_seed equals the scene's seed. With another seed it replays a sample set of its own:
// dLoss/dpixel and dpixel/dparam are then independent estimates, and the gradient is unbiased
// (with shared samples, E[(I - T) dI] carries a Cov(I, dI) / spp bias).
//
// The adjoint is path replay (renderer/integrators/prb.h): with the primal's samples, the paths the primal
// pass recorded are walked back vertex by vertex without tracing again; with independent samples
// they are traced in float first.
struct GradientMode {
  // Sum in plain doubles instead (tools/bench only, to measure the exact sums' cost): the result
  // then has values but no exact sums, and depends on the schedule.
  bool plain_sums = false;
  // The reference adjoint instead of path replay: each sample replayed in the Var kernel on one
  // whole-path tape (tests, and `--whole-path-tape` of dray-bench-gradient).
  bool whole_path_tape = false;
  // The exact sums only, without their values in doubles (8 B a parameter less): the MPI pipeline
  // reduces the sums (mpi/gradient.cpp).
  bool sums_only = false;
  // With sums_only: the gradient's sums added into this span (one per parameter; the caller's
  // total over views) instead of GradientResult::gradient_sums, which stays empty: a large
  // parameter set's pass then holds no array of sums of its own (16 B a parameter less).
  std::span<ad::FixedSum> add_into = {};
  // The most path vertices a thread keeps from a pixel's primal pass for replay (240 B
  // each); samples past it are traced again in float (the same paths: the gradient is bitwise
  // the same for any bound).
  size_t record_vertices = size_t(1) << 14;
  // Replay medium flights from the float pass's flight log (renderer/media/flight_log.h); false:
  // track them again (tests: the log changes no bit).
  bool flight_log = true;
  // The replay on one scalar type (geometry in the adjoint type too) even where the pass seeds no
  // geometry: the reference of the two-type kernel (renderer/integrators/two_types.h), for tests
  // and `--one-type` of dray-bench-gradient.
  bool one_type = false;
};
// With `mask` (full size), each pixel's loss term (and its derivative) is weighted by
// mask_weight(mask, x, y).
GradientResult gradient_tiles(const Scene& scene, const Shot& shot, const std::vector<Tile>& tiles, std::span<const int> ids,
                              const Image& target, Loss loss, double normaliser, std::span<const Slot> params,
                              int threads, Image& primal, uint64_t adjoint_seed, GradientMode mode = {},
                              const Image* mask = nullptr);

}  // namespace dray
