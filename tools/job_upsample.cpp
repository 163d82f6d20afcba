// A job's texture and grid blocks doubled in resolution on a schedule (tools/optimize_job.h:
// Upsampling), as Mitsuba's caustics tutorial grows its heightmap and its volume tutorial its grid.
#include <algorithm>
#include <cmath>

#include "renderer/io/scene_reshape.h"
#include "tools/optimize_job.h"

namespace dray::cli {

namespace {

// A block of shape dims doubled along `axis`: linear, each output centre mapped back to the
// input's (x + 0.5) / 2 - 0.5, clamped to its first and last centres.
std::vector<float> doubled_along(const std::vector<float>& in, std::vector<uint32_t>& dims, size_t axis) {
  size_t inner = 1, outer = 1;
  for (size_t a = axis + 1; a < dims.size(); ++a) inner *= dims[a];
  for (size_t a = 0; a < axis; ++a) outer *= dims[a];
  const uint32_t n = dims[axis];
  std::vector<float> out(in.size() * 2);
  for (uint32_t i = 0; i < 2 * n; ++i) {
    const float x = std::max(0.f, (float(i) + 0.5f) * 0.5f - 0.5f);
    const uint32_t i0 = std::min(uint32_t(x), n - 1), i1 = std::min(i0 + 1, n - 1);
    const float f = x - float(i0);
    for (size_t o = 0; o < outer; ++o)
      for (size_t k = 0; k < inner; ++k)
        out[(o * 2 * n + i) * inner + k] = in[(o * n + i0) * inner + k] * (1.f - f) + in[(o * n + i1) * inner + k] * f;
  }
  dims[axis] *= 2;
  return out;
}

// A texture's H×W×C block to 2H×2W×C (bilinear), a grid's Z×Y×X×C to 2Z×2Y×2X×C (trilinear):
// separable, x first (torch's and Dr.Jit's linear upsampling, half-texel centres, edges clamped).
std::vector<float> doubled(std::vector<float> values, std::vector<uint32_t>& dims) {
  for (size_t axis = dims.size() - 1; axis-- > 0;) values = doubled_along(values, dims, axis);
  return values;
}

}  // namespace

int Job::adam_restart(size_t b, int it) const {
  int restart = 0;
  for (const Upsampling& u : upsampling)
    if (u.block == int(b))
      for (int after : u.after)
        if (after <= it) restart = after;
  return restart;
}

std::vector<std::string> upsample_blocks(Job& job, Scene& scene, int k) {
  std::vector<std::string> done;
  for (const Upsampling& u : job.upsampling) {
    if (std::find(u.after.begin(), u.after.end(), k) == u.after.end()) continue;
    Block& b = job.blocks[size_t(u.block)];
    const ParamEntry e = *scene.params.find(b.key);
    std::vector<uint32_t> dims = e.shape;
    std::vector<float> grown_values =
        doubled({scene.params.values().begin() + e.slot, scene.params.values().begin() + e.slot + e.size}, dims);
    reshape_blocks(scene, {{b.key, std::move(grown_values), dims}}, {});
    std::string size;  // x first: "32x32" (a texture's width x height), "32x32x32" (a grid's)
    for (size_t a = dims.size() - 1; a-- > 0;) size += (size.empty() ? "" : "x") + std::to_string(dims[a]);
    done.push_back(b.key + " to " + size);
    // The block at its new slots and size, its bounds kept; the blocks after it move along.
    const ParamEntry grown = *scene.params.find(b.key);
    b.slot = grown.slot;
    b.size = grown.size;
    job.number_blocks();
  }
  return done;
}

}  // namespace dray::cli
