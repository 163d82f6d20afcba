#include "renderer/integrators/depth.h"

#include <algorithm>
#include <atomic>

#include <omp.h>

#include "renderer/core/load_error.h"
#include "renderer/core/parallel.h"
#include "renderer/integrators/camera_passes.h"
#include "renderer/integrators/pixel_estimate.h"
#include "renderer/integrators/render_tiles.h"

namespace dray {

namespace {

constexpr const char* kNoDerivatives =
    "integrator depth has no derivatives (Mitsuba's depth is a debugging integrator): use path or volpath";

// Camera sample s of pixel (x, y): the first hit's distance from the camera (a near clip's offset
// added back; 0 where the ray meets nothing) in every channel, and its film point.
Vec3<float> depth_sample(const Scene& scene, const Shot& shot, const CameraFrame<float>& frame, int x, int y, int s,
                         FilmSample& film) {
  Sampler sampler = camera_sampler(scene, shot, x, y, s);
  film = film_sample(scene, shot, sampler, x, y);
  const RayT<float> ray = camera_ray(frame, film);
  const float shift = frame.near_clip > 0.f ? frame.near_clip / glm::dot(to_glm(ray.d), to_glm(frame.forward)) : 0.f;
  Hit hit;
  const float d = scene.bvh.intersect(ray.detached(), hit) ? hit.t + shift : 0.f;
  return Vec3<float>{d, d, d};
}

// Pixel (x, y): the mean of its samples and the variance of that mean.
PixelEstimate<float> depth_pixel(const Scene& scene, const Shot& shot, const CameraFrame<float>& frame, int x, int y) {
  const int n = scene.render.spp;
  double sum = 0, sum_sq = 0;
  for (int s = 0; s < n; ++s) {
    FilmSample film;
    const double d = depth_sample(scene, shot, frame, x, y, s, film).x;
    sum += d;
    sum_sq += d * d;
  }
  PixelEstimate<float> e;
  e.mean = glm::dvec3(sum / n);
  e.variance = glm::dvec3(n > 1 ? std::max(sum_sq - sum * (sum / n), 0.0) / (double(n - 1) * n) : 0.0);
  return e;
}

void store_depth(const PixelEstimate<float>& e, bool variance, float* px) {
  for (int c = 0; c < 3; ++c) px[c] = to_image_float(e.mean[c]);
  if (variance)
    for (int c = 0; c < 3; ++c) px[3 + c] = to_image_float(e.variance[c]);
}

}  // namespace

std::optional<std::string> DepthIntegrator::refusal(const PassAsk& ask) {
  if (ask.aovs || ask.alpha) return "integrator depth renders the distance only (no AOVs, no alpha): use path or volpath";
  if (ask.loss || ask.own_adjoint_samples) return kNoDerivatives;
  return std::nullopt;
}

Image DepthIntegrator::image_pass(const Scene& scene, const ImageRequest& rq, const PassComm& comm, PassFigures& figures) {
  comm.agreed([&] {
    if (!rq.outputs.wrt.empty()) throw LoadError(kNoDerivatives);
    if (rq.outputs.aovs) throw LoadError(*refusal(PassAsk::film(true, false)));
  });
  const CameraFrame<float> frame = camera_frame(scene.camera(rq.shot), ParamView<float>(scene.params));
  return tile_image(scene, rq, comm, figures, [&](const std::vector<Tile>& tiles, const std::vector<int>& ids, Image& image,
                                                  const std::function<void(int)>& tile_done) {
    std::atomic<int> done{0};
    parallel_for(int(ids.size()), rq.threads, [&](int i) {
      const Tile& t = tiles[size_t(ids[size_t(i)])];
      if (g_render_cancel.load(std::memory_order_relaxed)) throw RenderCancelled();
      if (scene.render.splat) {  // the splatting film: the weighted mean of the neighbourhood's samples
        const std::vector<PixelEstimate<float>> estimates = splat_estimates<float>(
            scene, rq.shot, t, [&](int qx, int qy, int s, FilmSample& film) { return depth_sample(scene, rq.shot, frame, qx, qy, s, film); });
        size_t k = 0;
        for (int y = t.y0; y < t.y1; ++y)
          for (int x = t.x0; x < t.x1; ++x) store_depth(estimates[k++], rq.outputs.variance, image.pixel(x, y));
      } else {
        for (int y = t.y0; y < t.y1; ++y) {
          if (g_render_cancel.load(std::memory_order_relaxed)) throw RenderCancelled();
          for (int x = t.x0; x < t.x1; ++x) store_depth(depth_pixel(scene, rq.shot, frame, x, y), rq.outputs.variance, image.pixel(x, y));
        }
      }
      const int d = ++done;
      if (tile_done && omp_get_thread_num() == 0) tile_done(d);
    });
    return 0L;
  });
}

void DepthIntegrator::gradient_pass(const Scene&, const GradientRequest&, const PassComm& comm, GradientSums&, PassFigures&) {
  comm.agreed([] { throw LoadError(kNoDerivatives); });
}

}  // namespace dray
