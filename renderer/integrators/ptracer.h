#pragma once
// Mitsuba's particle tracer (`ptracer`): paths start on the lights, and every surface vertex (and
// the light's own point, for emitters the camera sees) is connected to the camera and splatted to
// the film through the pixel filter. An estimator independent of `path`'s: the same images, from
// the other end; no media, as Mitsuba's. Its derivatives (forward and reverse mode,
// ptracer_derivatives.cpp) are those of the surfaces light paths meet, as Mitsuba's: their
// geometry moves later vertices and the film point each connection lands on, whose motion the
// pixel filter's slope carries (a smooth filter: Mitsuba's caustics tutorial); an emitter's and
// the camera's own parameters, and edges crossing the film (no boundary term), are not
// differentiated: they are refused.
//
// A particle's weight β is flux: at a vertex x reached along -ω_l it stands for the incident
// radiance times |cos| of the geometric normal. It leaves toward the camera as
//   β f(ω_c ← ω_l) |cos_s ω_l| / |cos_g ω_l|  (radiance, the shading-normal correction),
// which lands on film pixels with the Jacobian |cos_g ω_c| / (d² cos³θ a) of a pinhole whose pixel
// spans a at unit depth (|cos_g ω_c| / a for an orthographic camera's pixel of world area a; through
// a thin lens, the pinhole's from an aperture point drawn per connection).
// The light paths are numbered: path k's random numbers depend on (seed, k) alone, and the
// splats sum exactly (ad::FixedSum), so any split over ranks and threads gives the same bits.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ad/fixed_sum.h"
#include "renderer/core/tile.h"
#include "renderer/integrators/displaced_lift.h"
#include "renderer/image/image.h"
#include "renderer/integrators/mitsuba_integrator.h"
#include "renderer/integrators/pass.h"
#include "renderer/scene.h"
#include "renderer/sensors/film.h"

namespace dray {

// The plugin: images only, no media (Mitsuba's ptracer has none either).
struct ParticleTracer {
  static constexpr std::string_view kPlugins[] = {"ptracer"};
  static constexpr bool kMedia = false;
  static constexpr MitsubaIntegrator kMitsuba[] = {{"ptracer", -1, DepthKeys::take, false, true}};
  // Over light paths (ptracer_passes.cpp): the image's and the gradient's (renderer/integrators/pass.h).
  static Image image_pass(const Scene& scene, const ImageRequest& request, const PassComm& comm, PassFigures& figures);
  static void gradient_pass(const Scene& scene, const GradientRequest& request, const PassComm& comm, GradientSums& sums,
                            PassFigures& figures);
  static std::optional<std::string> refusal(const PassAsk& ask);
};

// What the particle tracer renders: images and derivative images, no variance or AOVs.
inline constexpr const char* kPtracerOutputs =
    "integrator ptracer: renders images and derivative images only (no variance, no AOVs): use path";

// The splats of a rank's share of the light paths: (pixel of the window, row by row) x channels
// (RGB, then RGB per derivative image).
struct ParticleSplat {
  std::vector<ad::FixedSum> sums;
  int channels = 3;
  long nonfinite = 0;  // contributions dropped as not finite
};

// Light paths for a window: spp per window pixel (Mitsuba: sample_count per pixel).
long particle_count(const Scene& scene, const Tile& window);

// Why `scene` cannot be rendered by the particle tracer (a medium, as in Mitsuba), or nothing.
std::optional<std::string> particle_tracer_refusal(const Scene& scene);

// Why the particle tracer cannot differentiate by `params` (an emitter's, the camera's, a medium's
// parameter), or nothing.
std::optional<std::string> particle_derivative_refusal(const Scene& scene, const Shot& shot, std::span<const Slot> params);

// Light paths first, first + stride, ... of n (drawn with the shot's seed), splatted into the shot's film's `window` pixels, each divided by
// n, with `threads` OpenMP threads; with outputs.wrt, the derivative images too (no variance, no
// AOVs).
ParticleSplat trace_particles(const Scene& scene, const Shot& shot, const Tile& window, long n, int first, int stride, int threads,
                              const RenderOutputs& outputs = {});

// Forward mode (ptracer_derivatives.cpp): the derivative images' channels of `splat` from the same
// light paths, in passes of at most kMaxTangents parameters; returns the contributions dropped.
long add_particle_tangents(const Scene& scene, const Shot& shot, const Tile& window, long n, int first, int stride, int threads,
                           const RenderOutputs& outputs, ParticleSplat& splat);

// Reverse mode: d loss / d params of the image, given d loss / d pixel (`adjoint`, full size, RGB),
// from this share of the light paths drawn with the shot's seed (the primal's: the same paths).
struct ParticleGradient {
  ad::FixedSums sums;              // one per parameter
  long dropped = 0;                // paths whose gradient was not finite
  // The adjoint sums of the pass's lifted inputs (a displaced mesh's positions and vertex normals:
  // integrators/displaced_lift.h), which reach the parameters only once summed over every light
  // path (over ranks too): then fold_lifted, once.
  std::vector<ad::FixedSum> lifted;
  std::shared_ptr<const DisplacedLift> lift;
};
ParticleGradient particle_gradient(const Scene& scene, const Shot& shot, const Tile& window, const Image& adjoint,
                                   std::span<const Slot> params, long n, int first, int stride, int threads);
// Adds the lifted sums, chained to the parameters, to `sums` (a sum refusing its addend counts as
// dropped), and empties `lifted`: after `lifted` holds every process's paths, on one process.
void fold_lifted(ParticleGradient& g);

// The splats (summed over ranks) as the image's RGB inside the window.
void write_particle_splat(Image& image, const Tile& window, const ParticleSplat& splat);

}  // namespace dray
