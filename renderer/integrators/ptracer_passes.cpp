// The particle tracer's passes: every process traces its share of the light paths (interleaved),
// the splats are summed exactly.
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "renderer/integrators/ptracer.h"

namespace dray {

namespace {

// A sensor no light path connects to (a distant sensor, which Mitsuba's ptracer cannot sample
// either; an irradiance meter, which Mitsuba's can, not dray's yet) is refused before any work, on
// every process alike.
void check_light_paths(const Scene& scene, const Shot& shot) {
  const SensorModel& sensor = scene.camera(shot).model;
  if (!reached_by_light_paths(sensor))
    throw std::runtime_error("the ptracer integrator cannot render through sensor type " + std::string(sensor_type(sensor)) +
                             " (light paths do not connect to it): use path or volpath");
}

}  // namespace

Image ParticleTracer::image_pass(const Scene& scene, const ImageRequest& rq, const PassComm& comm, PassFigures& figures) {
  check_light_paths(scene, rq.shot);
  Image image(scene.camera(rq.shot).width, scene.camera(rq.shot).height, rq.outputs.channels());
  image.spp = scene.render.spp;
  ParticleSplat splat;
  comm.agreed([&] {
    const double t0 = comm.seconds();
    splat = trace_particles(scene, rq.shot, rq.window, particle_count(scene, rq.window), comm.rank(), comm.size(), rq.threads,
                            rq.outputs);
    figures.busy_seconds += comm.seconds() - t0;
  });
  const double t0 = comm.seconds();
  comm.sum_to_root(splat.sums);
  figures.mpi_seconds += comm.seconds() - t0;
  if (comm.is_root()) write_particle_splat(image, rq.window, splat);
  if (rq.progress && comm.is_root()) rq.progress(1.0);
  figures.nonfinite += splat.nonfinite;
  return image;
}

// The image's splats are summed on every process (the loss's adjoint image needs all of it), then
// each traces its share again, with the adjoint seed (and spp), for the gradient; the loss is
// counted once, by the first process.
void ParticleTracer::gradient_pass(const Scene& scene, const GradientRequest& rq, const PassComm& comm, GradientSums& sums,
                                   PassFigures& figures) {
  check_light_paths(scene, rq.shot);
  const int w = scene.camera(rq.shot).width, h = scene.camera(rq.shot).height;
  const Tile window{0, 0, w, h};
  const long n = particle_count(scene, window);
  ParticleSplat splat;
  comm.agreed([&] {
    const double t0 = comm.seconds();
    splat = trace_particles(scene, rq.shot, window, n, comm.rank(), comm.size(), rq.threads);
    figures.busy_seconds += comm.seconds() - t0;
  });
  double t0 = comm.seconds();
  comm.sum_all(splat.sums);
  figures.mpi_seconds += comm.seconds() - t0;
  Image image(w, h, 3);
  image.spp = scene.render.spp;
  write_particle_splat(image, window, splat);
  // The scale-independent loss compares the images scaled by their means.
  Image loss_image = image, loss_target = *rq.loss.target;
  PixelLoss loss{rq.loss.loss, &loss_target, rq.loss.mask, rq.loss.normaliser};
  double adjoint_scale = 1;
  comm.agreed([&] { adjoint_scale = scale_for_loss(loss.loss, loss_image, loss_target); });
  if (comm.is_root())
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double term = loss.term(loss_image.pixel(x, y), x, y);
        if (!std::isfinite(term) || !sums.loss().add(term)) sums.dropped_pixels().add(1.0);  // no loss, no gradient
      }
  ParticleGradient g;
  comm.agreed([&] {
    if (rq.params.empty()) return;
    const double t_adjoint = comm.seconds();
    const long n_adjoint = rq.adjoint_spp > 0 ? long(rq.adjoint_spp) * w * h : n;
    PixelLoss adjoint = loss;
    adjoint.normaliser = loss.normaliser / adjoint_scale;
    g = particle_gradient(scene, Shot{rq.shot.sensor, rq.adjoint_seed}, window, loss_adjoint_image(loss_image, adjoint),
                          rq.params, n_adjoint, comm.rank(), comm.size(), rq.threads);
    figures.busy_seconds += comm.seconds() - t_adjoint;
  });
  // A displaced mesh's lifted adjoints, complete over the processes' paths, chained once (the first).
  t0 = comm.seconds();
  comm.sum_all(g.lifted);
  figures.mpi_seconds += comm.seconds() - t0;
  if (comm.is_root()) fold_lifted(g);
  const std::span<ad::FixedSum> gradient = sums.gradient();
  for (size_t i = 0; i < g.sums.size(); ++i) gradient[i] += g.sums[i];
  sums.dropped_samples().add(double(g.dropped + splat.nonfinite));
  figures.nonfinite += g.dropped + splat.nonfinite;
  if (rq.primal && comm.is_root()) *rq.primal = std::move(image);
}

std::optional<std::string> ParticleTracer::refusal(const PassAsk& ask) {
  if (ask.aovs) return "the ptracer integrator renders images only (no AOVs): use path or volpath";
  if (ask.alpha) return "the ptracer integrator renders images only (no alpha): use path or volpath";
  return std::nullopt;
}

}  // namespace dray
