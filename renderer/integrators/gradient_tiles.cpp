#include "renderer/integrators/gradient_tiles.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <omp.h>

#include "ad/exact_gradient.h"
#include "ad/var.h"
#include "renderer/core/parallel.h"
#include "renderer/integrators/pass_lift.h"
#include "renderer/integrators/pixel_estimate.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/prb.h"
#include "renderer/integrators/render_tiles.h"

namespace dray {

namespace {

// One thread's working memory for the adjoint of its pixels: O(path length) (invariant 4), the
// recorded primal paths bounded by RecordedPaths::max_vertices.
struct alignas(64) AdjointScratch {  // a cache line of its own: threads write their vectors' ends
  RecordedPaths primal;                          // the pixel's paths from its primal pass
  std::vector<VertexRecord> path;                // a path traced again for replay
  std::vector<FlightStep> path_flights;          // and its flights
  std::vector<std::pair<int, float>> sample;     // one sample's adjoints, staged once known finite
};

// Where a pixel's adjoints go: lifted entries to their per-pixel stage, parameters to the
// thread's gradient stage. finish() chains the lifted ones to parameters and commits the pixel.
struct PixelAdjoints {
  ad::ThreadGradient& acc;
  LiftedAdjoints& lifted;
  void stage(int g, float adj) {
    if (!lifted.take(g, double(adj))) acc.stage(size_t(g), double(adj));
  }
  bool finish() {
    lifted.chain([&](size_t g, double adj) { acc.stage(g, adj); });
    return acc.commit();
  }
};

// The reference: each sample replayed in the Var kernel on one whole-path tape (traversal
// included), seeded with its adjoint (d loss / d pixel / spp, or the splatting film's). Returns
// the samples dropped (their gradient not finite).
long adjoint_pixel_whole_path(const Scene& scene, const Shot& samples, const ParamView<ad::Var>& P, int x, int y,
                              const SampleAdjoint& adjoint, PixelAdjoints& out) {
  ad::Tape& tape = ad::Tape::local();
  const int n = scene.render.spp;
  long dropped = 0;
  for (int s = 0; s < n; ++s) {
    tape.clear();
    Sampler sampler = camera_sampler(scene, samples, x, y, s);
    const FilmSample film = film_sample(scene, samples, sampler, x, y);
    const RayT<ad::Var> ray = camera_ray(camera_frame(scene.camera(samples), P), film);
    Vec3<ad::Var> L = radiance(scene, P, camera_path<ad::Var>(scene, samples, ray), sampler);
    tape.begin_adjoints();
    const glm::vec3 dL = adjoint.at(film);
    for (int c = 0; c < 3; ++c) tape.seed(L[c].i, dL[c]);
    if (!tape.backward_to([&](int g, float adj) { out.stage(g, adj); })) ++dropped;
  }
  tape.clear();
  if (!out.finish()) ++dropped;
  return dropped;
}

// Path replay: each sample's path, recorded by the pixel's primal pass (same samples) or traced
// again in float (independent samples, or past the recording bound), replayed vertex by vertex
// (renderer/integrators/prb.h). The same derivative as the whole-path tape.
long adjoint_pixel_replay(const Scene& scene, const Shot& samples, const ParamView<float>& Pf, const CameraFrame<float>& frame,
                          const ParamView<ad::Var>& P, const ReplaySetup& rs, bool recorded, int x, int y,
                          bool flight_log, const SampleAdjoint& adjoint, AdjointScratch& scratch, PixelAdjoints& out) {
  const int n = scene.render.spp;
  long dropped = 0;
  for (int s = 0; s < n; ++s) {
    std::span<const VertexRecord> path;
    std::span<const FlightStep> flights;
    FilmSample film;
    if (recorded && size_t(s) < scratch.primal.samples.size()) {
      path = scratch.primal.path(size_t(s));
      flights = scratch.primal.flights;
      film = scratch.primal.samples[size_t(s)].film;
    } else {
      Sampler sampler = camera_sampler(scene, samples, x, y, s);
      film = film_sample(scene, samples, sampler, x, y);
      scratch.path.clear();
      scratch.path_flights.clear();
      {
        const RecordFlights record(&scratch.path_flights);
        radiance(scene, Pf, camera_path<float>(scene, samples, camera_ray(frame, film)), sampler, &scratch.path);
      }
      path = scratch.path;
      flights = scratch.path_flights;
    }
    if (!flight_log) flights = {};
    scratch.sample.clear();
    auto sink = [&](int g, float adj) { scratch.sample.push_back({g, adj}); };
    const glm::vec3 dL = adjoint.at(film);
    if (!(rs.geometry ? replay_path<ad::Var>(scene, P, rs, path, flights, film, dL, sink)
                      : replay_path<float>(scene, P, rs, path, flights, film, dL, sink))) {
      ++dropped;
      continue;
    }
    for (const auto& [g, adj] : scratch.sample) out.stage(g, adj);
  }
  if (!out.finish()) ++dropped;
  return dropped;
}

// Whether a seeded parameter can move rays, points or normals (not only weigh paths): the
// camera's, the geometry's, a mesh's shading normals (the carried cosines' normal turns with
// them), a smooth dielectric's IOR (it bends refracted rays). O(objects), not
// O(parameters): a texture's million texels are not visited.
bool moves_rays(const Scene& scene, const ParamView<ad::Var>& P, const PassLift& lift) {
  if (!lift.blocks.empty()) return true;  // the camera or a mesh transform
  for (const Shape& s : scene.shapes)
    if (shape_seeded(scene, P, s)) return true;
  for (const Bsdf& b : scene.bsdfs)
    if (const auto* d = std::get_if<DielectricBsdf>(&b); d && (P.active(d->int_ior, 1) || P.active(d->ext_ior, 1)))
      return true;
  return false;
}

}  // namespace

GradientResult gradient_tiles(const Scene& scene, const Shot& shot, const std::vector<Tile>& tiles, std::span<const int> ids,
                              const Image& target, Loss loss, double normaliser, std::span<const Slot> params,
                              int threads, Image& primal, uint64_t adjoint_seed, GradientMode mode, const Image* mask) {
  if (!integrator_traits(scene.render).camera_tiles)
    throw std::logic_error("gradient_tiles: integrator " + std::string(integrator_traits(scene.render).name) + " differentiates through its own passes");
  const Seeds seeds(scene.params.values().size(), params);
  const ParamView<float> Pf(scene.params);
  // The camera frame, moving meshes' transforms and (where the image's samples outnumber them two
  // to one) their world vertices: lifted once, chained per pixel.
  size_t samples = 0;  // the whole image's camera samples: every rank lifts the same
  for (const Tile& t : tiles) samples += size_t(t.x1 - t.x0) * size_t(t.y1 - t.y0) * size_t(scene.render.spp);
  const PassLift lift = lift_pass(scene, shot, seeds.index(), int(params.size()) + 1, samples);
  ParamView<ad::Var> Pv(scene.params, seeds);
  Pv.lifted_blocks = &lift.blocks;
  std::vector<LiftedAdjoints> lifted(size_t(threads), LiftedAdjoints{lift});
  const Camera& camera = scene.camera(shot);
  const ReplaySetup rs{int(params.size()) + 1 + int(lift.size()), moves_rays(scene, Pv, lift),
                        mode.one_type || geometry_seeded(scene, shot, Pv), &camera};
  // With the primal's samples, the primal pass records the paths that replay walks back.
  const bool replay = !mode.whole_path_tape, recorded = replay && adjoint_seed == shot.seed && !params.empty();
  const Shot adjoint_samples{shot.sensor, adjoint_seed};
  std::vector<AdjointScratch> scratch(static_cast<size_t>(threads));
  const CameraFrame<float> frame = camera_frame(camera, Pf);
  for (AdjointScratch& a : scratch) a.primal.max_vertices = mode.record_vertices;
  // Per thread: the gradient, the loss (a sum of its own: a pixel's loss commits no unit and
  // takes no lock), and drop counts.
  if (!mode.add_into.empty() && (mode.add_into.size() != params.size() || !mode.sums_only || mode.plain_sums))
    throw std::logic_error("gradient_tiles: add_into takes one sum per parameter, with sums_only");
  ad::ExactGradient acc(threads, params.size(), mode.plain_sums, mode.add_into);
  // A cache line each: threads writing neighbouring counters per pixel would trade the line.
  struct alignas(64) ThreadTotals {
    ad::FixedSum loss_sum;
    double loss_plain = 0.0;
    long dropped_samples = 0, dropped_pixels = 0;
  };
  std::vector<ThreadTotals> totals(static_cast<size_t>(threads));
  // The splatting film's adjoints reach a sample from every pixel its filter does: known without
  // the primal for the losses whose derivative does not depend on it (jobs render without it).
  const bool splat = scene.render.splat;
  if (splat && loss != Loss::adjoint && loss != Loss::mean)
    throw std::logic_error("gradient_tiles: the splatting film takes an adjoint image or the mean loss");
  const PixelLoss pixel_loss{loss, &target, mask, normaliser};
  auto pixel_dloss = [&](int x, int y) { return pixel_loss.derivative_at_zero(x, y); };
  parallel_for(int(ids.size()), threads, [&](int i) {
    inject_fault(ids[size_t(i)]);
    const int me = omp_get_thread_num();
    ad::ThreadGradient& mine = acc.thread(me);
    const Tile& t = tiles[size_t(ids[size_t(i)])];
    // With the splatting film: g_p = ∂loss/∂pixel_p / W_p around the tile (splat.h).
    const int reach = scene.render.filter.reach();
    const Tile film = scene.render.crop.value_or(Tile{0, 0, camera.width, camera.height});
    const Tile around{std::max(film.x0, t.x0 - reach), std::max(film.y0, t.y0 - reach), std::min(film.x1, t.x1 + reach),
                      std::min(film.y1, t.y1 + reach)};
    const std::vector<glm::dvec3> per_weight =
        splat && !params.empty() ? splat_adjoints(scene, adjoint_samples, around, pixel_dloss) : std::vector<glm::dvec3>{};
    for (int y = t.y0; y < t.y1; ++y)
      for (int x = t.x0; x < t.x1; ++x) {
        if (x == t.x0 && g_render_cancel.load(std::memory_order_relaxed)) throw RenderCancelled();  // at each row
        RecordedPaths* record = recorded ? &scratch[size_t(me)].primal : nullptr;
        if (record) record->clear();
        const glm::dvec3 mean = pixel_estimate(scene, shot, Pf, x, y, record).mean;
        float* px = primal.pixel(x, y);
        for (int c = 0; c < 3; ++c) px[c] = to_image_float(mean[c]);  // the loss sees the pixel as an image holds it
        const double l = pixel_loss.term(px, x, y);
        const glm::dvec3 dloss = pixel_loss.derivative(px, x, y);
        // A non-finite pixel (or one the exact sum refuses): no loss, no gradient.
        ThreadTotals& my_totals = totals[size_t(me)];
        if (!std::isfinite(l) || (!mode.plain_sums && !my_totals.loss_sum.add(l))) {
          ++my_totals.dropped_pixels;
          continue;
        }
        my_totals.loss_plain += l;
        if (params.empty()) continue;
        PixelAdjoints out{mine, lifted[size_t(me)]};
        const SampleAdjoint adjoint = splat ? SampleAdjoint{glm::dvec3(0.0), &per_weight, around, &scene.render.filter}
                                            : SampleAdjoint{dloss / double(scene.render.spp)};
        my_totals.dropped_samples +=
            replay ? adjoint_pixel_replay(scene, adjoint_samples, Pf, frame, Pv, rs, recorded, x, y, mode.flight_log, adjoint,
                                          scratch[size_t(me)], out)
                   : adjoint_pixel_whole_path(scene, adjoint_samples, Pv, x, y, adjoint, out);
      }
  });
  GradientResult out;
  if (mode.plain_sums) {
    out.gradient = acc.plain_total();
    for (const ThreadTotals& t : totals) out.loss += t.loss_plain;
  } else {
    for (const ThreadTotals& t : totals) out.loss_sum += t.loss_sum;
    if (mode.add_into.empty()) out.gradient_sums = acc.take_sums();
    else acc.merge_into(mode.add_into);
    out.loss = out.loss_sum.value();
    if (!mode.sums_only) {
      out.gradient.resize(out.gradient_sums.size());  // at once: growing by doubling held 1.5x the doubles
      for (size_t k = 0; k < out.gradient.size(); ++k) out.gradient[k] = out.gradient_sums[k].value();
    }
  }
  for (const ThreadTotals& t : totals) {
    out.dropped_samples += t.dropped_samples;
    out.dropped_pixels += t.dropped_pixels;
  }
  return out;
}

}  // namespace dray
