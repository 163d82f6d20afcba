// A job's texture blocks doubled in resolution on a schedule (tools/optimize_job.h: Upsampling),
// as Mitsuba's caustics tutorial grows its heightmap.
#include <algorithm>
#include <cmath>

#include "renderer/scene_reshape.h"
#include "tools/optimize_job.h"

namespace dray::cli {

namespace {

// An H×W×C block resampled to 2H×2W×C: bilinear, each output texel's centre mapped back to the
// input's (x + 0.5) / 2 - 0.5, clamped to its first and last texel centres.
std::vector<float> doubled(const std::vector<float>& in, uint32_t h, uint32_t w, uint32_t c) {
  auto source = [](uint32_t i, uint32_t n, uint32_t& i0, uint32_t& i1, float& f) {
    const float x = std::max(0.f, (float(i) + 0.5f) * 0.5f - 0.5f);
    i0 = std::min(uint32_t(x), n - 1);
    i1 = std::min(i0 + 1, n - 1);
    f = x - float(i0);
  };
  std::vector<float> out(size_t(4) * h * w * c);
  for (uint32_t y = 0; y < 2 * h; ++y) {
    uint32_t y0, y1;
    float fy;
    source(y, h, y0, y1, fy);
    for (uint32_t x = 0; x < 2 * w; ++x) {
      uint32_t x0, x1;
      float fx;
      source(x, w, x0, x1, fx);
      for (uint32_t k = 0; k < c; ++k) {
        auto at = [&](uint32_t i, uint32_t j) { return in[(size_t(i) * w + j) * c + k]; };
        const float top = at(y0, x0) * (1.f - fx) + at(y0, x1) * fx, bottom = at(y1, x0) * (1.f - fx) + at(y1, x1) * fx;
        out[(size_t(y) * 2 * w + x) * c + k] = top * (1.f - fy) + bottom * fy;
      }
    }
  }
  return out;
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
    const std::vector<float> old(scene.params.values().begin() + e.slot, scene.params.values().begin() + e.slot + e.size);
    reshape_blocks(scene, {{b.key, doubled(old, e.shape[0], e.shape[1], e.shape[2]), {2 * e.shape[0], 2 * e.shape[1], e.shape[2]}}}, {});
    done.push_back(b.key + " to " + std::to_string(2 * e.shape[1]) + "x" + std::to_string(2 * e.shape[0]));
    // The block at its new slots and size, its bounds kept; the blocks after it move along.
    const ParamEntry grown = *scene.params.find(b.key);
    b.slot = grown.slot;
    b.size = grown.size;
    job.number_blocks();
  }
  return done;
}

}  // namespace dray::cli
