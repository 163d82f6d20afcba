#pragma once
// Each rank's optimizer, over its shard (tools/job_shard.h): Adam or SGD over a job's scalars, with bounds, and the large-steps
// preconditioner for mesh vertex blocks and texture blocks.
#include <vector>

#include "renderer/shapes/smoothing.h"
#include "renderer/scene.h"
#include "tools/job_shard.h"
#include "tools/optimize_job.h"

namespace dray::cli {

// The smoothing systems of the job's large-steps blocks (renderer/shapes/smoothing.h), in the
// order of job.large_steps: a mesh's vertices over its edges, a texture's texels over the grid.
std::vector<SmoothingSystem> smoothing_systems(const Job& job, const Scene& scene);

// This rank's step of iteration `it` (from 0) on its shard's gradient g (tools/job_shard.h): Adam
// (ad/adam.h, Python's too) or SGD, each value clamped to its bounds and rounded to float (as the
// scene stores it). Non-finite gradient entries never reach a parameter. A large-steps block
// (Nicolet et al. 2021), rank 0's whole, steps in u = M x: its gradient is M⁻¹ g, Adam's second
// moment is the block's largest (their uniform Adam, so that the step keeps M⁻¹'s smoothness),
// and x moves by M⁻¹ of u's step. The values are the scene's (`params`). Returns the shard's
// next values (in g's memory: no other array of the scalars' size).
std::vector<double> optimizer_step(const Job& job, const Shard& shard, const std::vector<SmoothingSystem>& smoothing,
                                   State& state, const ParamTable& params, std::vector<double> g, int it);

}  // namespace dray::cli
