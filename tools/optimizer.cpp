#include "tools/optimizer.h"

#include <algorithm>
#include <cmath>

#include "ad/adam.h"
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

namespace {

// The job's scalars cut into Adam's blocks: each uniform large-steps block one block, every
// other run of scalars (one Adam second moment per scalar) one.
struct AdamRange {
  size_t first, count;
  bool uniform;
};

std::vector<AdamRange> adam_ranges(const Job& job, size_t scalars) {
  // Blocks of their own: each uniform large-steps block, and each upsampled block (its step
  // count restarts with its new shape).
  std::vector<AdamRange> own;
  for (const LargeSteps& l : job.large_steps)
    if (l.uniform) own.push_back({l.first, l.count, true});
  for (const Upsampling& u : job.upsampling) {
    auto in = [&](const Scalar& s) { return s.block == u.entry; };
    const size_t first = size_t(std::find_if(job.scalars.begin(), job.scalars.end(), in) - job.scalars.begin());
    own.push_back({first, size_t(std::count_if(job.scalars.begin(), job.scalars.end(), in)), false});
  }
  std::sort(own.begin(), own.end(), [](const AdamRange& a, const AdamRange& b) { return a.first < b.first; });
  std::vector<AdamRange> out;
  size_t at = 0;
  for (const AdamRange& r : own) {
    if (r.first > at) out.push_back({at, r.first - at, false});
    out.push_back(r);
    at = r.first + r.count;
  }
  if (scalars > at) out.push_back({at, scalars - at, false});
  return out;
}

}  // namespace

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
  const double schedule = job.lr_factor(it) * std::pow(job.lr_decay, job.iterations > 1 ? double(it) / (job.iterations - 1) : 0.0);
  std::vector<double> step(g.size(), 0.0);
  if (job.optimizer == "adam") {
    for (const AdamRange& r : adam_ranges(job, g.size())) {
      const ad::AdamSettings settings{job.beta1, job.beta2, job.epsilon, r.uniform};
      const long t = it + 1 - (r.count > 0 ? job.adam_restart(r.first, it) : 0);
      ad::adam_step(std::span<const double>(g).subspan(r.first, r.count), std::span(state.m).subspan(r.first, r.count),
                    std::span(state.v).subspan(r.first, r.count), t, settings, std::span(step).subspan(r.first, r.count));
    }
  } else {
    for (size_t k = 0; k < g.size(); ++k) step[k] = std::isfinite(g[k]) ? g[k] : 0.0;
  }
  for (size_t k = 0; k < g.size(); ++k) step[k] *= schedule * job.scalars[k].lr;
  for (size_t b = 0; b < job.large_steps.size(); ++b) put(job.large_steps[b], smoothing[b].solve(block(job.large_steps[b], step)), step);
  std::vector<double> next = state.value;
  for (size_t k = 0; k < next.size(); ++k) {
    const Scalar& s = job.scalars[k];
    next[k] = double(s.domain.project(std::clamp(next[k] - step[k], s.min, s.max)));
  }
  return next;
}

}  // namespace dray::cli
