#include "tools/optimizer.h"

#include <algorithm>
#include <cmath>

#include "renderer/scene_params.h"

namespace dray::cli {

std::vector<SmoothingSystem> smoothing_systems(const Job& job, const Scene& scene) {
  std::vector<SmoothingSystem> out;
  for (const LargeSteps& l : job.large_steps) {
    const ParamEntry e = *scene.params.find(job.entries[size_t(l.entry)]);
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

std::vector<double> optimizer_step(const Job& job, const std::vector<SmoothingSystem>& smoothing, State& state,
                                   std::vector<double> g, int it, double& norm2) {
  norm2 = 0;
  for (size_t k = 0; k < g.size(); ++k) {
    if (std::isfinite(g[k])) norm2 += g[k] * g[k];
    else g[k] = NAN;
    if (std::isfinite(g[k]) && g[k] != 0) state.seen[k] = '1';
  }
  auto block = [&](const LargeSteps& l, const std::vector<double>& x) {
    return std::vector<double>(x.begin() + long(l.first), x.begin() + long(l.first + l.count));
  };
  auto put = [](const LargeSteps& l, const std::vector<double>& y, std::vector<double>& x) {
    std::copy(y.begin(), y.end(), x.begin() + long(l.first));
  };
  for (size_t b = 0; b < job.large_steps.size(); ++b) {  // in u: M⁻¹ g, non-finite entries as 0
    std::vector<double> gb = block(job.large_steps[b], g);
    for (double& x : gb) x = std::isfinite(x) ? x : 0.0;
    put(job.large_steps[b], smoothing[b].solve(gb), g);
  }
  const double schedule = std::pow(job.lr_decay, job.iterations > 1 ? double(it) / (job.iterations - 1) : 0.0);
  const double bias1 = 1 - std::pow(job.beta1, it + 1), bias2 = 1 - std::pow(job.beta2, it + 1);
  std::vector<double> second(g.size()), step(g.size(), 0.0);
  for (size_t k = 0; k < g.size(); ++k) {
    if (!std::isfinite(g[k])) continue;
    if (job.optimizer == "adam") {
      state.m[k] = job.beta1 * state.m[k] + (1 - job.beta1) * g[k];
      state.v[k] = job.beta2 * state.v[k] + (1 - job.beta2) * g[k] * g[k];
    }
    second[k] = state.v[k];
  }
  for (const LargeSteps& l : job.large_steps) {  // uniform: the block's largest second moment
    if (!l.uniform) continue;
    const std::vector<double> v = block(l, second);
    put(l, std::vector<double>(l.count, *std::max_element(v.begin(), v.end())), second);
  }
  for (size_t k = 0; k < g.size(); ++k)
    if (std::isfinite(g[k]))
      step[k] = job.optimizer == "adam"
                    ? schedule * job.scalars[k].lr * (state.m[k] / bias1) / (std::sqrt(second[k] / bias2) + job.epsilon)
                    : schedule * job.scalars[k].lr * g[k];
  for (size_t b = 0; b < job.large_steps.size(); ++b) put(job.large_steps[b], smoothing[b].solve(block(job.large_steps[b], step)), step);
  std::vector<double> next = state.value;
  for (size_t k = 0; k < next.size(); ++k) {
    const Scalar& s = job.scalars[k];
    next[k] = double(s.domain.project(std::clamp(next[k] - step[k], s.min, s.max)));
  }
  return next;
}

}  // namespace dray::cli
