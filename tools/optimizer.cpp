#include "tools/optimizer.h"

#include <algorithm>
#include <cmath>

#include "ad/adam.h"
#include "renderer/scene_params.h"

namespace dray::cli {

std::vector<SmoothingSystem> smoothing_systems(const Job& job, const Scene& scene) {
  std::vector<SmoothingSystem> out;
  for (const LargeSteps& l : job.large_steps) {
    const ParamEntry e = *scene.params.find(job.entries[size_t(job.blocks[size_t(l.block)].entry)]);
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    size_t rows = 0;
    for (const Mesh& m : scene.meshes)
      if (m.vertices == e.slot) {  // a mesh's vertices: its edges
        for (const MeshEdge& me : m.edges) edges.push_back({me.v0, me.v1});
        rows = m.object_positions.size();
      }
    if (rows == 0 && e.shape.size() == 4) {  // a medium's grid (Z×Y×X×channels): the voxels' 6-neighbours
      const uint32_t d = e.shape[0], h = e.shape[1], w = e.shape[2];
      for (uint32_t z = 0; z < d; ++z)
        for (uint32_t i = 0; i < h; ++i)
          for (uint32_t j = 0; j < w; ++j) {
            const uint32_t v = (z * h + i) * w + j;
            if (j + 1 < w) edges.push_back({v, v + 1});
            if (i + 1 < h) edges.push_back({v, v + w});
            if (z + 1 < d) edges.push_back({v, v + h * w});
          }
      rows = size_t(d) * h * w;
    }
    if (rows == 0) {  // a texture's texels (H×W×3): the grid's 4-neighbours
      const uint32_t h = e.shape[0], w = e.shape[1];
      for (uint32_t i = 0; i < h; ++i)
        for (uint32_t j = 0; j < w; ++j) {
          if (j + 1 < w) edges.push_back({i * w + j, i * w + j + 1});
          if (i + 1 < h) edges.push_back({i * w + j, (i + 1) * w + j});
        }
      rows = size_t(h) * w;
    }
    out.emplace_back(rows, edges, l.lambda);
  }
  return out;
}

std::vector<double> optimizer_step(const Job& job, const Shard& shard, const std::vector<SmoothingSystem>& smoothing,
                                   State& state, const ParamTable& params, std::vector<double> g, int it) {
  for (size_t k = 0; k < g.size(); ++k) {
    if (!std::isfinite(g[k])) g[k] = NAN;
    if (std::isfinite(g[k]) && g[k] != 0) state.seen[k] = 1;
  }
  // A large-steps block's piece: the whole block on rank 0, nothing elsewhere (tools/job_shard.h).
  auto piece_of = [&](const LargeSteps& l, std::vector<double>& x) {
    const Piece& p = shard.pieces[size_t(l.block)];
    return std::span<double>(x).subspan(p.first, p.size());
  };
  auto solve_in_place = [&](size_t k, std::span<double> x) {
    if (x.empty()) return;
    const std::vector<double> y = smoothing[k].solve(x);
    std::copy(y.begin(), y.end(), x.begin());
  };
  for (size_t k = 0; k < job.large_steps.size(); ++k) {  // in u: M⁻¹ g, non-finite entries as 0
    std::span<double> gb = piece_of(job.large_steps[k], g);
    for (double& x : gb) x = std::isfinite(x) ? x : 0.0;
    solve_in_place(k, gb);
  }
  const double schedule = job.lr_factor(it) * std::pow(job.lr_decay, job.iterations > 1 ? double(it) / (job.iterations - 1) : 0.0);
  // The steps, each piece's in its gradient's place.
  for (const Piece& p : shard.pieces) {
    const Block& b = job.blocks[p.block];
    const std::span<double> step = std::span(g).subspan(p.first, p.size());
    if (job.optimizer == "adam") {
      // A uniform large-steps block (vertices) takes one second moment; an upsampled block's step
      // count restarts with its new shape.
      bool uniform = false;
      for (const LargeSteps& l : job.large_steps) uniform = uniform || (l.block == int(p.block) && l.uniform);
      const ad::AdamSettings settings{job.beta1, job.beta2, job.epsilon, uniform};
      const long t = it + 1 - job.adam_restart(p.block, it);
      ad::adam_step(step, std::span(state.m).subspan(p.first, p.size()), std::span(state.v).subspan(p.first, p.size()), t,
                    settings, step);
    } else {
      for (double& x : step) x = std::isfinite(x) ? x : 0.0;
    }
    for (double& x : step) x *= schedule * b.lr;
  }
  for (size_t k = 0; k < job.large_steps.size(); ++k) solve_in_place(k, piece_of(job.large_steps[k], g));
  // The next values, in the steps' place.
  for (const Piece& p : shard.pieces) {
    const Block& b = job.blocks[p.block];
    for (size_t i = 0; i < p.size(); ++i) {
      double& x = g[p.first + i];
      x = double(b.domain.project(std::clamp(double(params.get(b.slot + Slot(p.begin + i))) - x, b.min, b.max)));
    }
  }
  return g;
}

}  // namespace dray::cli
