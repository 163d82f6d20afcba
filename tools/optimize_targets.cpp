#include "tools/optimize_targets.h"

#include <cstdio>
#include <filesystem>
#include <string>

#include "mpi/tiles.h"
#include "renderer/image/image_compare.h"
#include "renderer/integrators/gradient_tiles.h"
#include "renderer/io/camera_reader.h"
#include "renderer/core/load_error.h"
#include "renderer/io/scene_loader.h"
#include "renderer/scene.h"

namespace fs = std::filesystem;

namespace dray::cli {

mpi::Status load_targets(const mpi::Context& ctx, const Job& job, bool held_out, int threads, std::vector<Image>& targets,
                         std::vector<Image>& masks) {
  const std::vector<View>& views = held_out ? job.held_out : job.views;
  const bool own_camera = job.multi_view || held_out;  // else the view is the scene's camera
  targets.assign(views.size(), Image{});
  masks.assign(views.size(), Image{});
  const fs::path out = job.output;
  for (size_t i = 0; i < views.size(); ++i) {
    const View& v = views[i];
    const std::string size = std::to_string(v.camera.width) + "x" + std::to_string(v.camera.height);
    const std::string which = held_out ? "held-out view " + std::to_string(i) : job.multi_view ? "view " + std::to_string(i) : "the scene";
    if (!v.mask.empty()) {
      mpi::Status status = mpi::agree_on(ctx, [&] {
        masks[i] = read_image(v.mask);
        if (masks[i].width != v.camera.width || masks[i].height != v.camera.height)
          throw LoadError(v.mask + ": the mask is " + std::to_string(masks[i].width) + "x" + std::to_string(masks[i].height) +
                          " but " + which + " renders " + size);
        if (!(mask_sum(masks[i]) > 0)) throw LoadError(v.mask + ": the mask is black (no pixel to compare)");
      });
      if (status.code) return status;
    }
    if (!v.target_image.empty()) {
      mpi::Status status = mpi::agree_on(ctx, [&] {
        targets[i] = read_image(v.target_image);
        // A photograph larger by whole factors is averaged over the factors' blocks (torch's area).
        const int fx = targets[i].width / v.camera.width, fy = targets[i].height / v.camera.height;
        if (fx < 1 || fy < 1 || targets[i].width != fx * v.camera.width || targets[i].height != fy * v.camera.height)
          throw LoadError(v.target_image + ": the target is " + std::to_string(targets[i].width) + "x" +
                          std::to_string(targets[i].height) + " but " + which + " renders " + size +
                          " (a target may be larger by whole factors: it is then averaged down)");
        if (fx > 1 || fy > 1) targets[i] = downsampled(targets[i], fx, fy);
      });
      if (status.code) return status;
      continue;
    }
    Scene truth;
    mpi::Status status = mpi::agree_on(ctx, [&] {
      truth = load_scene(v.target_scene, {"render.spp=" + std::to_string(v.target_spp), "render.seed=1000003"});
      if (!own_camera && (truth.own_camera().width != v.camera.width || truth.own_camera().height != v.camera.height))
        throw LoadError(v.target_scene + ": renders at another size than " + job.scene_path);
      if (own_camera) truth.sensor = add_sensor(truth, "view", v.camera);
    });
    if (status.code) return status;
    mpi::RenderJob rj;
    rj.threads = threads;
    targets[i] = mpi::render_image(ctx, truth, rj);
    std::vector<double> px(targets[i].data.begin(), targets[i].data.end());
    mpi::broadcast(ctx, px);
    targets[i].data.assign(px.begin(), px.end());
    const std::string name = held_out         ? "held-out-target-" + std::to_string(i) + ".exr"
                             : job.multi_view ? "target-" + std::to_string(i) + ".exr"
                                              : "target.exr";
    status = mpi::agree_on(ctx, [&] {
      if (ctx.is_root()) write_image(targets[i], (out / name).string());
    });
    if (status.code) return status;
  }
  return {};
}

mpi::Status evaluate_held_out(const mpi::Context& ctx, const Job& job, const std::vector<Image>& targets, Scene& scene,
                              int threads) {
  mpi::Status status;
  const int spp = scene.render.spp;
  for (size_t i = 0; i < job.held_out.size(); ++i) {
    const View& v = job.held_out[i];
    scene.render.spp = v.spp;
    mpi::RenderJob rj;
    rj.shot = Shot{v.sensor, scene.render.seed};
    rj.threads = threads;
    const Image fit = mpi::render_image(ctx, scene, rj);
    status = mpi::agree_on(ctx, [&] {
      if (!ctx.is_root()) return;
      const std::string name = "held-out-" + std::to_string(i) + ".exr";
      write_image(fit, (fs::path(job.output) / name).string());
      const DiffStats d = diff_images(fit, targets[i], 0.01);
      std::printf("  held-out view %zu: PSNR %.2f dB, RMSE %.6g, NCC %.4f (%s against held-out-target-%zu.exr, %d spp)\n", i,
                  d.psnr, d.rmse, d.ncc, name.c_str(), i, v.spp);
    });
    if (status.code) break;
  }
  scene.render.spp = spp;
  return status;
}

}  // namespace dray::cli
