#pragma once
// A pixel's estimate in any scalar type: the mean of its spp samples (or, with the splatting film,
// the weighted mean of its neighbourhood's), the variance of that mean and (for a dual type) its
// derivatives.
#include <array>
#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/common.hpp>
#include <glm/vec3.hpp>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/prb.h"
#include "renderer/integrators/splat.h"

namespace dray {

template <class T>
struct PixelEstimate {
  static constexpr int N = ad::tangent_count<T>::value;
  glm::dvec3 mean{0.0}, variance{0.0};  // variance of the mean (not of one sample)
  std::array<glm::dvec3, N> tangent{};  // derivative of the mean, per seeded input
  int nonfinite = 0;  // samples whose value (or, in a dual type, a derivative) was NaN or Inf
};

// A finite double as an image stores it: beyond float's range it becomes the largest float, so
// that no Inf reaches an image.
inline float to_image_float(double v) {
  constexpr double top = std::numeric_limits<float>::max();
  return float(std::clamp(v, -top, top));
}

// Pixel (x, y)'s camera sample from the sampler's next numbers: the film jitter (uniform in the
// pixel when the film splats, renderer/integrators/splat.h), then the aperture sample (a thin
// lens's point, a distant sensor's disk point, an irradiance meter's direction), then a meter's
// surface point (other cameras draw no more, so their random streams are unchanged).
inline FilmSample film_sample(const Scene& scene, const Shot& shot, Sampler& sampler, int x, int y) {
  glm::vec2 j;
  if (scene.render.splat) {
    j = sampler.next_2d();
  } else {
    const std::optional<Tile> film = filter_film(scene, shot);  // the film the filter is cut to
    j = film_jitter(scene.render.filter, sampler, x, y, film ? &*film : nullptr);
  }
  FilmSample s{float(x) + j.x, float(y) + j.y};
  const SensorModel& sensor = scene.camera(shot).model;
  if (draws_aperture(sensor)) {
    const glm::vec2 u = sampler.next_2d();
    s.lens = concentric_disk(u.x, u.y);
  }
  if (draws_position(sensor)) s.position = sampler.next_2d();
  return s;
}

// Camera sample s of pixel (x, y): its film point and radiance (recorded for path replay with
// `record`, float only).
template <class T, class G>
Vec3<T> camera_sample(const Scene& scene, const Shot& shot, const ParamView<T>& P, const CameraFrame<G>& frame, int x, int y,
                      int s, FilmSample& film, RecordedPaths* record) {
  Sampler sampler = camera_sampler(scene, shot, x, y, s);
  film = film_sample(scene, shot, sampler, x, y);
  const PathState<G, T> start = camera_path<T>(scene, shot, camera_ray(frame, film));
  if constexpr (std::is_same_v<T, float>) {
    std::vector<VertexRecord>* into = record ? record->begin_sample(film) : nullptr;
    const RecordFlights flights(into ? &record->flights : nullptr);
    const Vec3<T> L = radiance(scene, P, start, sampler, into);
    if (into) record->end_sample();
    return L;
  } else {
    return radiance(scene, P, start, sampler);
  }
}

// The pixel estimate: the mean of spp camera-path samples, its variance and (for a dual type)
// its derivatives, accumulated in double in a fixed order so that the result is bitwise
// reproducible. A sample whose value is not finite is dropped (it adds zero, as in pbrt) and
// counted; so is a non-finite derivative, on its own, so that the values of a dual render stay
// bitwise equal to the float render. With `record` (float only), the paths are recorded for
// path replay (renderer/integrators/prb.h), as many as its bound allows. G is the geometry type
// (renderer/integrators/two_types.h): float when the pass seeds no geometry.
template <class T, class G = T>
PixelEstimate<T> pixel_estimate(const Scene& scene, const Shot& shot, const ParamView<T>& P, int x, int y,
                                RecordedPaths* record = nullptr) {
  constexpr int N = PixelEstimate<T>::N;
  const int n = scene.render.spp;
  PixelEstimate<T> e;
  glm::dvec3 sum(0.0), sum_sq(0.0);
  const CameraFrame<G> frame = camera_frame(scene.camera(shot), geometry_view<G>(P));
  for (int s = 0; s < n; ++s) {
    FilmSample film;
    const Vec3<T> L = camera_sample(scene, shot, P, frame, x, y, s, film, record);
    const glm::dvec3 v(value(L));
    if (!all_finite(v)) {
      ++e.nonfinite;
      continue;
    }
    sum += v;
    sum_sq += v * v;
    if constexpr (N > 0)
      for (int k = 0; k < N; ++k) {
        const glm::dvec3 d(ad::tangent(L.x, k), ad::tangent(L.y, k), ad::tangent(L.z, k));
        if (all_finite(d)) e.tangent[k] += d;
        else ++e.nonfinite;
      }
  }
  e.mean = sum / double(n);
  // Unbiased sample variance, divided by n for the variance of the mean.
  e.variance = n > 1 ? glm::max(sum_sq - sum * e.mean, 0.0) / (double(n - 1) * n) : glm::dvec3(0.0);
  for (auto& t : e.tangent) t /= double(n);
  return e;
}

// The splatting film's estimates of `tile`'s pixels (row-major), from the samples of every pixel
// whose filter reaches them (splat.h), summed in the sampled pixels' raster order: values, their
// derivatives (a dual T), and the variance of the weighted mean (Σ w² (L - mean)² / W²). A
// non-finite sample is dropped, as in pixel_estimate; a pixel no sample reaches is 0. Each sample
// is sample(qx, qy, s, film): pixel (qx, qy)'s sample s and its film point (the radiance for the
// overload below; another integrator's value for its own).
template <class T, class Sample>
std::vector<PixelEstimate<T>> splat_estimates(const Scene& scene, const Shot& shot, const Tile& tile, Sample&& sample) {
  constexpr int N = PixelEstimate<T>::N;
  const int tile_w = tile.x1 - tile.x0, tile_h = tile.y1 - tile.y0;
  struct Sums {
    glm::dvec3 value{0.0}, value_sq{0.0}, value_w2{0.0};  // Σ w L, Σ w² L², Σ w² L
    double weight = 0.0, weight_sq = 0.0;               // Σ w, Σ w²
  };
  std::vector<Sums> sums(size_t(tile_w) * size_t(tile_h));
  std::vector<PixelEstimate<T>> out(sums.size());
  const Tile sources = splat_sources(scene, shot, tile);
  for (int qy = sources.y0; qy < sources.y1; ++qy)
    for (int qx = sources.x0; qx < sources.x1; ++qx)
      for (int s = 0; s < scene.render.spp; ++s) {
        FilmSample film;
        const Vec3<T> L = sample(qx, qy, s, film);
        const glm::dvec3 v(value(L));
        const bool finite = all_finite(v);
        for_each_splat_pixel(scene.render.filter, film.x, film.y, tile, [&](int px, int py, double w) {
          const size_t k = size_t(py - tile.y0) * size_t(tile_w) + size_t(px - tile.x0);
          PixelEstimate<T>& e = out[k];
          Sums& a = sums[k];
          a.weight += w;  // a dropped sample's weight counts: its pixel's share of the film
          a.weight_sq += w * w;
          if (!finite) {
            if (qx == px && qy == py) ++e.nonfinite;
            return;
          }
          a.value += w * v;
          a.value_sq += w * w * v * v;
          a.value_w2 += w * w * v;
          if constexpr (N > 0)
            for (int t = 0; t < N; ++t) {
              const glm::dvec3 d(ad::tangent(L.x, t), ad::tangent(L.y, t), ad::tangent(L.z, t));
              if (all_finite(d)) e.tangent[t] += w * d;
              else if (qx == px && qy == py) ++e.nonfinite;
            }
        });
      }
  for (size_t k = 0; k < out.size(); ++k) {
    const Sums& a = sums[k];
    if (a.weight == 0.0) continue;  // Mitsuba divides by any weight but 0 (negative lobes)
    PixelEstimate<T>& e = out[k];
    e.mean = a.value / a.weight;
    e.variance = glm::max(a.value_sq - 2.0 * e.mean * a.value_w2 + e.mean * e.mean * a.weight_sq, 0.0) / (a.weight * a.weight);
    for (auto& t : e.tangent) t /= a.weight;
  }
  return out;
}

template <class T, class G = T>
std::vector<PixelEstimate<T>> splat_estimates(const Scene& scene, const Shot& shot, const ParamView<T>& P, const Tile& tile) {
  const CameraFrame<G> frame = camera_frame(scene.camera(shot), geometry_view<G>(P));
  return splat_estimates<T>(scene, shot, tile, [&](int qx, int qy, int s, FilmSample& film) {
    return camera_sample(scene, shot, P, frame, qx, qy, s, film, nullptr);
  });
}

}  // namespace dray
