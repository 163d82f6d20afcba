#pragma once
// A job's targets: its views' (read, or rendered from a truth scene), and its held-out views'
// comparison with the final values.
#include <vector>

#include "mpi/collectives.h"
#include "renderer/image/image.h"
#include "tools/optimize_job.h"

namespace dray {
struct Scene;
}

namespace dray::cli {

// Every view's target (of the job's views, or of its held-out ones), full size on every rank:
// read from its image (checked against the view's size), or its scene rendered first with the
// view's camera (written to the output folder: target.exr, or target-N.exr for view N of a
// multi-view job, held-out-target-N.exr for held-out view N). Collective.
mpi::Status load_targets(const mpi::Context& ctx, const Job& job, bool held_out, int threads, std::vector<Image>& targets,
                         std::vector<Image>& masks);

// The held-out views, once the run has ended: the scene (its final values) rendered from each at
// the view's spp with the scene's seed (the target's is its own; `targets` from load_targets),
// written as held-out-N.exr; rank 0 prints each one's PSNR, RMSE and NCC against its target.
// Collective.
mpi::Status evaluate_held_out(const mpi::Context& ctx, const Job& job, const std::vector<Image>& targets, Scene& scene,
                              int threads);

}  // namespace dray::cli
