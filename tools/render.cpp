// dray render: the image, its variance and derivative images, of the whole frame or a window.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "mpi/tiles.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/scene_loader.h"
#include "renderer/sensors/film.h"
#include "tools/cli.h"
#include "tools/progress.h"

namespace fs = std::filesystem;

namespace dray::cli {

CLI::App* add_render_command(CLI::App& app, RenderArgs& a) {
  CLI::App* cmd = app.add_subcommand("render", "Render a scene to PNG (8-bit sRGB) or EXR (linear float)");
  a.scene.add_to(cmd);
  cmd->add_option("-o,--output", a.output, "Output image, .png or .exr (default: SCENE-stem.png)");
  cmd->add_option("--variance", a.variance,
                  "Also write the per-pixel variance of the pixel estimate (EXR; needs spp >= 2), for dray diff --ref-variance");
  cmd->add_option("--wrt", a.wrt,
                  "Also write the derivative image of a parameter (dray params lists them; a vector name gives its 3 "
                  "components, NAME[i] one), one per --wrt: OUT-stem.d.NAME.exr and .png, NAME[i] written NAME.i")
      ->allow_extra_args(false);
  cmd->add_option("--exposure", a.exposure, "PNG only: scale the image by 2^EV before 8-bit sRGB (EXR stays linear)")
      ->check(real_number(-64, true, 64))
      ->capture_default_str();
  cmd->add_option("--crop", a.crop, "Render only the window X0 Y0 X1 Y1 (pixels [X0, X1) x [Y0, Y1)); the output is "
                                    "that window, bitwise equal to the same pixels of the full image (default: the "
                                    "scene's render.crop, else the whole image)")
      ->expected(4)
      ->check(whole_number(0, 1 << 20));
  cmd->add_option("--sensor", a.sensor,
                  "Render with the scene's sensor I: its index (0, 1, ...) or name (a Mitsuba sensor's id; default: the "
                  "first; dray params lists each sensor's parameters)");
  add_threads_option(cmd, a.threads);
  cmd->add_option("--tile-size", a.tile_size,
                  "Largest tile edge in pixels (smaller when the image has fewer tiles than ranks x threads)")
      ->check(whole_number(1, 4096))
      ->capture_default_str();
  cmd->add_option("--distribution", a.distribution, "How tiles are spread over ranks: static (interleaved) or dynamic (work queue)")
      ->check(CLI::IsMember({"static", "dynamic"}))
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", a.quiet, "No progress bar and no summary line");
  cmd->add_flag("--stats", a.stats, "Also print each rank's rendering time and the imbalance (max/mean)");
  cmd->add_flag("--progress", a.progress, "Draw the progress bar even when stderr is not a terminal (as under mpirun)");
  return cmd;
}

namespace {

// The crop window, checked against the image.
Tile crop_window(const std::vector<int>& c, const Scene& scene) {
  const int w = scene.own_camera().width, h = scene.own_camera().height;
  if (!(c[0] < c[2] && c[1] < c[3] && c[2] <= w && c[3] <= h))
    throw LoadError("--crop " + std::to_string(c[0]) + " " + std::to_string(c[1]) + " " + std::to_string(c[2]) + " " +
                    std::to_string(c[3]) + ": need 0 <= X0 < X1 <= " + std::to_string(w) + " and 0 <= Y0 < Y1 <= " +
                    std::to_string(h) + " (the image is " + std::to_string(w) + "x" + std::to_string(h) + ")");
  return {c[0], c[1], c[2], c[3]};
}

}  // namespace

int run_render(const mpi::Context& ctx, const RenderArgs& args) {
  Scene scene;
  const std::string out = args.output.empty() ? fs::path(args.scene.scene).stem().string() + ".png" : args.output;
  mpi::Distribution dist{};
  std::vector<ScalarParam> wrt;
  std::optional<Tile> crop;
  RenderOutputs outputs;  // the channels beside the colour: variance, derivatives, the film's extra ones
  double load_seconds = 0;
  mpi::Status status = mpi::agree_on(ctx, [&] {
    if (!is_image_path(out)) throw LoadError(out + ": output must end in .png or .exr");
    if (!args.variance.empty() && fs::path(args.variance).extension() != ".exr")
      throw LoadError(args.variance + ": --variance must end in .exr");
    if (args.exposure != 0 && fs::path(out).extension() != ".png")
      throw LoadError("--exposure applies to PNG output only (EXR stays linear): " + out);
    dist = mpi::parse_distribution(args.distribution);
    const double t0 = ctx.seconds();
    scene = load_scene(args.scene.scene, args.scene.overrides(), true, args.scene.defines());
    load_seconds = ctx.seconds() - t0;
    if (!args.sensor.empty()) scene.sensor = sensor_index(scene, args.sensor);
    if (!args.variance.empty() && scene.render.spp < 2)
      throw LoadError("--variance needs at least 2 samples per pixel, got " + std::to_string(scene.render.spp));
    if (!args.crop.empty()) crop = crop_window(args.crop, scene);
    else crop = scene.render.crop;  // inside every sensor's film (the loader checks)
    wrt = resolve_per_image(scene, args.wrt, "--wrt");
    outputs.variance = !args.variance.empty();
    for (const ScalarParam& p : wrt) outputs.wrt.push_back(p.slot);
    outputs = with_aovs(outputs, scene);
    // The image, rank 0's gather buffer, and the 3-channel copy written out.
    check_image_memory(ctx, args.scene.scene, scene.own_camera().width, scene.own_camera().height, outputs.channels(),
                       2.0 + 3.0 / outputs.channels());
    // Rank 0 owns the outputs: distinct and writable before any time is spent rendering.
    if (!ctx.is_root()) return;
    std::vector<std::pair<std::string, std::string>> files = {{"-o", out}, {"--variance", args.variance}};
    for (const ScalarParam& p : wrt) {
      DerivativeFiles f = derivative_files(out, p.name);
      files.push_back({"--wrt " + p.name, f.exr});
      files.push_back({"--wrt " + p.name, f.png});
    }
    check_outputs(files);
  });
  if (status.code) return report(ctx, status);
  print_warnings(ctx, scene);
  on_interrupt_print(ctx, "dray render: interrupted; nothing was written");

  mpi::RenderJob job;
  job.threads = resolve_threads(ctx, args.threads);
  job.tile_size = args.tile_size;
  job.distribution = dist;
  job.crop = crop;
  job.outputs = outputs;
  const bool film_rgb = film_channel_names(scene.render.pixel_format, scene.render.aovs) == std::vector<std::string>{"R", "G", "B"};
  if (!film_rgb && fs::path(out).extension() != ".exr" && ctx.is_root())
    std::fprintf(stderr, "dray: warning: the film's channels (render.pixel_format, render.aovs) are written to EXR outputs only; "
                 "%s holds the RGB image\n", out.c_str());
  ProgressBar bar("render", ctx.is_root() && !args.quiet, args.progress);
  job.progress = [&](double f) { bar.update(f); };

  ctx.barrier();
  const double t0 = ctx.seconds();
  mpi::RenderStats stats;
  Image image = mpi::render_image(ctx, scene, job, &stats);
  const double secs = ctx.seconds() - t0;
  bar.update(1.0);  // the last tile may have been finished by another thread
  bar.finish();
  if (crop) image = region_of(image, crop->x0, crop->y0, crop->x1, crop->y1);

  status = mpi::agree_on(ctx, [&] {
    if (!ctx.is_root()) return;
    // An EXR holds the film's channels (the pixel format's colour and alpha, the AOVs), named.
    Image rgb = film_rgb || fs::path(out).extension() != ".exr" ? channels_of(image, 0, 3) : develop(image, job.outputs, scene.render.pixel_format, scene.render.aovs);
    write_image(args.exposure != 0 ? scaled(std::move(rgb), std::exp2(float(args.exposure))) : rgb, out);
    if (job.outputs.variance) write_image(channels_of(image, 3, 3), args.variance);
    for (size_t k = 0; k < wrt.size(); ++k) {
      DerivativeFiles f = write_derivative(image, job.outputs.derivative_channel(k), out, wrt[k].name);
      if (!args.quiet) std::printf("dray: wrote %s and %s (colour scale +-%.4g)\n", f.exr.c_str(), f.png.c_str(), f.scale);
    }
  });
  if (status.code) return report(ctx, status);
  if (ctx.is_root() && !args.quiet) {
    const double samples = double(image.width) * image.height * scene.render.spp;
    std::printf("dray: wrote %s (%dx%d, %d spp%s): loaded in %.2f s (BVH included), rendered in %.2f s, %.2f Msamples/s, "
                "%d ranks x %d threads, %ld non-finite samples dropped\n",
                out.c_str(), image.width, image.height, scene.render.spp,
                wrt.empty() ? "" : (", " + std::to_string(wrt.size()) + " derivatives").c_str(), load_seconds, secs,
                samples / secs * 1e-6, ctx.size(), job.threads, stats.nonfinite_samples);
  }
  if (ctx.is_root() && args.stats) {
    std::printf("dray: busy seconds per rank:");
    for (double b : stats.busy_seconds) std::printf(" %.3f", b);
    std::printf("; imbalance (max/mean) %.3f\n", stats.imbalance());
    if (!wrt.empty())
      std::printf("dray: boundary term: %ld edge samples (%ld on an edge with a radiance step, %ld non-finite dropped), "
                  "%.3f s on rank 0, %.3f s reducing the splats\n",
                  stats.boundary_samples, stats.boundary_hits, stats.boundary_nonfinite, stats.boundary_seconds,
                  stats.boundary_mpi_seconds);
  }
  return 0;
}

}  // namespace dray::cli
