#include "renderer/integrators/ptracer.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <omp.h>

#include "renderer/core/parallel.h"
#include "renderer/integrators/light_sample.h"
#include "renderer/integrators/pixel_estimate.h"
#include "renderer/integrators/ptracer_path.h"

namespace dray {

namespace {

// One rank's accumulators for the window, shared by the threads: each thread adds into its own
// copy (exact integer sums, so the merge order does not matter).
struct Film : ParticleFilm {
  int channels;  // per pixel: the image's 3, then 3 per derivative image (their passes: ptracer_derivatives.cpp)
  std::vector<std::vector<ad::FixedSum>> per_thread;
  std::vector<long> dropped;

  Film(const Scene& s, const Shot& shot, const Tile& w, long n, int threads, int channels_)
      : ParticleFilm(s, shot, w, n),
        channels(channels_),
        per_thread(size_t(threads), std::vector<ad::FixedSum>(size_t(w.x1 - w.x0) * size_t(w.y1 - w.y0) * size_t(channels))),
        dropped(size_t(threads), 0) {}

  // Radiance-like `value` (already times the point's cosine) arriving at the camera from p: the
  // pixels of its film point's footprint get value × importance × filter weight / n.
  void splat(int thread, const CameraLink& link, const glm::vec3& value) {
    const glm::dvec3 v = glm::dvec3(value) * (double(link.importance) * scale);
    for_each_footprint_pixel(scene.render.filter, link.film, masses, [&](int px, int py, double w) {
      const size_t at = pixel_index(px, py) * size_t(channels);
      for (int c = 0; c < 3; ++c)
        if (!per_thread[size_t(thread)][at + size_t(c)].add(v[c] * w)) ++dropped[size_t(thread)];
    });
  }
};

}  // namespace

long particle_count(const Scene& scene, const Tile& w) {
  return long(scene.render.spp) * long(w.x1 - w.x0) * long(w.y1 - w.y0);
}

std::optional<std::string> particle_tracer_refusal(const Scene& scene) {
  if (integrator_traits(scene.render).media || !scene.media.empty()) return "integrator ptracer: media are not supported (as in Mitsuba)";
  return std::nullopt;
}

ParticleSplat trace_particles(const Scene& scene, const Shot& shot, const Tile& window, long n, int first, int stride, int threads,
                              const RenderOutputs& outputs) {
  if (auto why = particle_tracer_refusal(scene)) throw std::runtime_error(*why);
  if (outputs.variance || outputs.aovs) throw std::runtime_error(kPtracerOutputs);
  if (auto why = particle_derivative_refusal(scene, shot, outputs.wrt)) throw std::runtime_error(*why);
  Film film(scene, shot, window, n, threads, outputs.channels());
  const ParamView<float> P(scene.params);
  for_each_light_path(scene, shot.seed, n, first, stride, threads, [&](int thread, Sampler& s, const Light& light, float pick) {
    auto splat = [&](const CameraLink& link, const glm::vec3& value) { film.splat(thread, link, value); };
    trace_particle(film, P, film.frame, light, pick, s, splat,
                   [&](const CameraLink& link, const LinkT<float>&, const Vec3<float>& value) { splat(link, to_glm(value)); });
  });
  ParticleSplat out;
  out.channels = film.channels;
  out.sums = std::move(film.per_thread[0]);
  for (size_t t = 1; t < film.per_thread.size(); ++t)
    for (size_t i = 0; i < out.sums.size(); ++i) out.sums[i] += film.per_thread[t][i];
  for (long d : film.dropped) out.nonfinite += d;
  if (!outputs.wrt.empty()) out.nonfinite += add_particle_tangents(scene, shot, window, n, first, stride, threads, outputs, out);
  return out;
}

void write_particle_splat(Image& image, const Tile& w, const ParticleSplat& splat) {
  for (int y = w.y0; y < w.y1; ++y)
    for (int x = w.x0; x < w.x1; ++x)
      for (int c = 0; c < splat.channels; ++c)
        image.pixel(x, y)[c] = to_image_float(
            splat.sums[(size_t(y - w.y0) * size_t(w.x1 - w.x0) + size_t(x - w.x0)) * size_t(splat.channels) + size_t(c)].value());
}

}  // namespace dray
