#pragma once
// What the tests of light paths through scenes/lens.json and scenes/lens-heightmap.json share:
// the scene at a small size, a ramp-weighted loss whose sum holds every moving edge of the
// caustic, and the particle tracer's reverse-mode gradient of it.
#include <string>
#include <vector>

#include "renderer/integrators/ptracer.h"
#include "renderer/io/scene_loader.h"

namespace dray {

inline constexpr int kSize = 24;

// scenes/FILE at kSize², spp samples, seed, and the given --set edits.
inline Scene lens_scene(const std::string& file, int spp, uint64_t seed, std::vector<std::string> more) {
  more.insert(more.end(), {"camera.width=" + std::to_string(kSize), "camera.height=" + std::to_string(kSize),
                           "render.spp=" + std::to_string(spp), "render.seed=" + std::to_string(seed)});
  return load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/" + file, more);
}

inline std::vector<Slot> slots_of(const Scene& s, const std::vector<std::string>& names) {
  std::vector<Slot> out;
  for (const auto& p : resolve_scalars(s.params, names)) out.push_back(p.slot);
  return out;
}

// The loss's weights: a ramp across the image (x) plus a little of y, per channel.
inline Image ramp() {
  Image g(kSize, kSize, 3);
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x)
      for (int c = 0; c < 3; ++c) g.pixel(x, y)[c] = float((x + 0.5) / kSize + 0.25 * (y + 0.5) / kSize + 0.1 * c);
  return g;
}

// Σ_p g_p · channels [first, first + 3) of pixel p.
inline double weighted(const Image& image, const Image& g, int first = 0) {
  double sum = 0;
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x)
      for (int c = 0; c < 3; ++c) sum += double(g.pixel(x, y)[c]) * image.pixel(x, y)[first + c];
  return sum;
}

inline std::vector<double> reverse(const Scene& s, const Image& g, const std::vector<Slot>& slots, int threads) {
  const Tile window{0, 0, kSize, kSize};
  ParticleGradient r = particle_gradient(s, s.shot(), window, g, slots, particle_count(s, window), 0, 1, threads);
  fold_lifted(r);  // every path is this process's
  std::vector<double> out;
  for (const ad::FixedSum& sum : r.sums) out.push_back(sum.value());
  return out;
}

}  // namespace dray
