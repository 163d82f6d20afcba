#pragma once
// A pixel's estimate in any scalar type: the mean of its spp samples, the variance of that mean
// and (for a dual type) its derivatives.
#include <array>
#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/common.hpp>
#include <glm/vec3.hpp>

#include "ad/dual.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/prb.h"

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

// Pixel (x, y)'s camera sample from the sampler's next numbers: the film jitter, then for a thin
// lens the aperture point (other cameras draw no more, so their random streams are unchanged).
inline FilmSample film_sample(const Scene& scene, Sampler& sampler, int x, int y) {
  const std::optional<Tile> film = filter_film(scene);  // the film the filter is cut to
  const glm::vec2 j = film_jitter(scene.render.filter, sampler, x, y, film ? &*film : nullptr);
  FilmSample s{float(x) + j.x, float(y) + j.y};
  if (scene.camera().kind == CameraKind::thinlens) {
    const float u = sampler.next(), v = sampler.next();
    s.lens = concentric_disk(u, v);
  }
  return s;
}

// The pixel estimate: the mean of spp camera-path samples, its variance and (for a dual type)
// its derivatives, accumulated in double in a fixed order so that the result is bitwise
// reproducible. A sample whose value is not finite is dropped (it adds zero, as in pbrt) and
// counted; so is a non-finite derivative, on its own, so that the values of a dual render stay
// bitwise equal to the float render. With `record` (float only), the paths are recorded for
// path replay (renderer/integrators/prb.h), as many as its bound allows. G is the geometry type
// (renderer/integrators/two_types.h): float when the pass seeds no geometry.
template <class T, class G = T>
PixelEstimate<T> pixel_estimate(const Scene& scene, const ParamView<T>& P, int x, int y, RecordedPaths* record = nullptr) {
  constexpr int N = PixelEstimate<T>::N;
  const uint64_t pixel = uint64_t(y) * uint64_t(scene.camera().width) + uint64_t(x);
  const int n = scene.render.spp;
  PixelEstimate<T> e;
  glm::dvec3 sum(0.0), sum_sq(0.0);
  const CameraFrame<G> frame = camera_frame(scene.camera(), geometry_view<G>(P));
  for (int s = 0; s < n; ++s) {
    Sampler sampler(scene.render.seed, pixel, uint64_t(s));
    const FilmSample film = film_sample(scene, sampler, x, y);
    RayT<G> ray = camera_ray(frame, film);
    Vec3<T> L;
    if constexpr (std::is_same_v<T, float>) {
      std::vector<VertexRecord>* into = record ? record->begin_sample(film) : nullptr;
      const RecordFlights flights(into ? &record->flights : nullptr);
      L = radiance(scene, P, ray, sampler, into);
      if (into) record->end_sample();
    } else {
      L = radiance(scene, P, ray, sampler);
    }
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

}  // namespace dray
