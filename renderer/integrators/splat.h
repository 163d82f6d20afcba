#pragma once
// Mitsuba's splatting film (render.splat; hdrfilm's): each camera sample is drawn uniformly in its
// own pixel and its value spread over every pixel whose filter reaches it, each pixel divided by
// the filter weights it received: pixel p = Σ w(x_i - c_p) L_i / Σ w(x_i - c_p) over the samples of
// the pixels around it. For the Gaussian (σ 0.5) its variance is 1/π of filter importance
// sampling's at the same spp (pixel_filter.h), as Mitsuba's images and losses have it.
//
// A pixel is still a function of (scene, seed, its neighbourhood, sample indices): a tile renders
// the samples of the pixels within the filter's reach of it again (those of its neighbours' tiles),
// and sums them in raster order of the sampled pixels, so that images, derivative images and
// gradients stay bitwise the same for any tiling, thread and rank count (DESIGN invariant 3).
// Reverse mode gives each sample the adjoint Σ δ_p w(x_i - c_p) / W_p of the pixels it reaches.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/core/tile.h"
#include "renderer/scene.h"

namespace dray {

// The random stream of pixel (x, y)'s samples. Splatting samples pixels outside the film too (its
// border, with sample_border): their streams are numbered on the film widened by the filter's reach.
inline uint64_t sample_stream(const Scene& scene, const Shot& shot, int x, int y) {
  const int w = scene.camera(shot).width;
  if (!scene.render.splat) return uint64_t(y) * uint64_t(w) + uint64_t(x);
  const int r = scene.render.filter.reach();
  return uint64_t(y + r) * uint64_t(w + 2 * r) + uint64_t(x + r);
}

// Camera sample s of pixel (x, y) of the shot: its numbers from the scene's sampler over the
// pixel's stream, from the shot's seed (every pass that traces the camera's paths draws them so:
// images, derivatives, replay).
inline Sampler camera_sampler(const Scene& scene, const Shot& shot, int x, int y, int s) {
  return Sampler(SamplePattern(scene.render.sampler, scene.render.spp), shot.seed, sample_stream(scene, shot, x, y), uint64_t(s));
}

// The pixels whose samples reach `tile`'s: the tile widened by the filter's reach, cut to the
// film (its crop) unless sample_border (Mitsuba's hdrfilm samples only inside it).
inline Tile splat_sources(const Scene& scene, const Shot& shot, const Tile& tile) {
  // A sample anywhere in pixel q reaches pixel p's centre when |p - q| < radius + 1/2: reach().
  const int r = scene.render.filter.reach();
  Tile w{tile.x0 - r, tile.y0 - r, tile.x1 + r, tile.y1 + r};
  if (scene.render.sample_border) return w;
  const Tile film = scene.render.crop.value_or(Tile{0, 0, scene.camera(shot).width, scene.camera(shot).height});
  return {std::max(w.x0, film.x0), std::max(w.y0, film.y0), std::min(w.x1, film.x1), std::min(w.y1, film.y1)};
}

// Film point x's filter weights on the pixels of `window`: body(px, py, w(x - c)), unnormalized
// (the pixel divides by the sum it receives, unless 0, as Mitsuba's develop).
template <class Body>
void for_each_splat_pixel(const PixelFilter& f, float x, float y, const Tile& window, Body&& body) {
  const int i0 = std::max(window.x0, int(std::floor(double(x) - 0.5 - f.radius))),
            i1 = std::min(window.x1 - 1, int(std::ceil(double(x) - 0.5 + f.radius)));
  const int j0 = std::max(window.y0, int(std::floor(double(y) - 0.5 - f.radius))),
            j1 = std::min(window.y1 - 1, int(std::ceil(double(y) - 0.5 + f.radius)));
  constexpr int kMaxSpan = 64;
  double wxs[kMaxSpan];
  for (int i = i0; i <= i1 && i - i0 < kMaxSpan; ++i) wxs[i - i0] = f.eval(double(x) - (i + 0.5));
  for (int j = j0; j <= j1; ++j) {
    const double wy = f.eval(double(y) - (j + 0.5));
    if (wy == 0.0) continue;  // a negative lobe's weight counts, as in Mitsuba's film
    for (int i = i0; i <= i1 && i - i0 < kMaxSpan; ++i)
      if (wxs[i - i0] != 0.0) body(i, j, wxs[i - i0] * wy);
  }
}

// A camera sample's adjoint ∂loss/∂L: its pixel's ∂loss/∂pixel / spp (`own`), or with the
// splatting film Σ_p g_p w(x - c_p) over the pixels of `window` its film point reaches, g_p =
// ∂loss/∂pixel_p / W_p (splat_adjoints).
struct SampleAdjoint {
  glm::dvec3 own{0.0};
  const std::vector<glm::dvec3>* per_weight = nullptr;  // g over `window`, row-major
  Tile window{0, 0, 0, 0};
  const PixelFilter* filter = nullptr;
  glm::vec3 at(const FilmSample& f) const {
    if (!per_weight) return glm::vec3(own);
    glm::dvec3 sum(0.0);
    for_each_splat_pixel(*filter, f.x, f.y, window, [&](int x, int y, double w) {
      sum += w * (*per_weight)[size_t(y - window.y0) * size_t(window.x1 - window.x0) + size_t(x - window.x0)];
    });
    return glm::vec3(sum);
  }
};

// g_p = dloss(p) / W_p for the pixels of `window` (W_p: the filter weights p receives from the
// film positions of the shot's samples, summed in the order splat_estimates sums them; g = 0
// where no sample reaches).
std::vector<glm::dvec3> splat_adjoints(const Scene& scene, const Shot& shot, const Tile& window,
                                       const std::function<glm::dvec3(int, int)>& dloss);

}  // namespace dray
