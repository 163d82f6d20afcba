#pragma once
// Rank 0's optimizer: Adam or SGD over a job's scalars, with bounds, and the large-steps
// preconditioner for mesh vertex blocks and texture blocks.
#include <vector>

#include "renderer/shapes/smoothing.h"
#include "renderer/scene.h"
#include "tools/optimize_job.h"

namespace dray::cli {

// The smoothing systems of the job's large-steps blocks (renderer/shapes/smoothing.h), in the
// order of job.large_steps: a mesh's vertices over its edges, a texture's texels over the grid.
std::vector<SmoothingSystem> smoothing_systems(const Job& job, const Scene& scene);

// Rank 0's step of iteration `it` (from 0) on the gradient g: Adam (ad/adam.h, Python's too) or SGD, each value clamped
// to its bounds and rounded to float (as the scene stores it). Non-finite gradient entries never
// reach a parameter. A large-steps block (Nicolet et al. 2021) steps in u = M x: its gradient is
// M⁻¹ g, Adam's second moment is the block's largest (their uniform Adam, so that the step keeps
// M⁻¹'s smoothness), and x moves by M⁻¹ of u's step. The values are the scene's (`params`).
// Returns the next values (in g's memory: no other array of the scalars' size); `norm2` gets
// the squared norm of the finite entries of g.
std::vector<double> optimizer_step(const Job& job, const std::vector<SmoothingSystem>& smoothing, State& state,
                                   const ParamTable& params, std::vector<double> g, int it, double& norm2);

}  // namespace dray::cli
