// dray: the command line. One main, one subcommand per job; every subcommand works the same
// under `mpirun -n N`. Exit codes: 0 success, 1 a difference found, 2 bad input or usage.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "mpi/context.h"
#include "mpi/errors.h"
#include "mpi/tiles.h"
#include "renderer/image.h"
#include "renderer/scene_loader.h"
#include "tools/cli.h"
#include "tools/progress.h"

namespace fs = std::filesystem;
using namespace dray;

namespace {

using namespace dray::cli;

struct SceneArgs {
  std::string scene;
  std::vector<std::string> sets;
  int spp = 0;
  long seed = -1;

  void add_to(CLI::App* cmd) {
    cmd->add_option("SCENE", scene, "Scene file (JSON)")->required();
    cmd->add_option("--set", sets, "Override a scene value, KEY=VALUE (e.g. render.spp=4, "
                                   "shapes.ball.radius=2, materials.white.albedo[1]=0.5; KEY=null removes the key); repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--spp", spp, "Samples per pixel (same as --set render.spp=N)")->check(CLI::PositiveNumber);
    cmd->add_option("--seed", seed, "Random seed (same as --set render.seed=S)")->check(CLI::NonNegativeNumber);
  }
  std::vector<std::string> overrides() const {
    std::vector<std::string> o = sets;
    if (spp > 0) o.push_back("render.spp=" + std::to_string(spp));
    if (seed >= 0) o.push_back("render.seed=" + std::to_string(seed));
    return o;
  }
};

struct RenderArgs {
  SceneArgs scene;
  std::string output, variance;
  std::vector<std::string> wrt;
  int threads = 0;
  int tile_size = 16;
  std::string distribution = "static";
  bool quiet = false;
  bool progress = false;
  bool stats = false;
};

int run_render(const mpi::Context& ctx, const RenderArgs& args) {
  Scene scene;
  std::string out = args.output.empty() ? fs::path(args.scene.scene).stem().string() + ".png" : args.output;
  mpi::Distribution dist{};
  std::vector<ScalarParam> wrt;
  mpi::Status st = mpi::agree_on(ctx, [&] {
    if (!is_image_path(out)) throw LoadError(out + ": output must end in .png or .exr");
    if (!args.variance.empty() && fs::path(args.variance).extension() != ".exr")
      throw LoadError(args.variance + ": --variance must end in .exr");
    dist = mpi::parse_distribution(args.distribution);
    scene = load_scene(args.scene.scene, args.scene.overrides());
    if (!args.variance.empty() && scene.render.spp < 2)
      throw LoadError("--variance needs at least 2 samples per pixel, got " + std::to_string(scene.render.spp));
    wrt = resolve_scalars(scene.params, args.wrt);
    RenderOutputs outputs{!args.variance.empty(), std::vector<Slot>(wrt.size())};
    // The image, rank 0's gather buffer, and the 3-channel copy written out.
    check_image_memory(ctx, args.scene.scene, scene.camera.width, scene.camera.height, outputs.channels(),
                       2.0 + 3.0 / outputs.channels());
  });
  if (st.code) return report(ctx, st);

  // Rank 0 owns the output: make sure it can be written before spending time rendering.
  st = mpi::agree_on(ctx, [&] {
    if (!ctx.is_root()) return;
    for (const std::string& path : {out, args.variance}) {
      if (path.empty()) continue;
      fs::path dir = fs::path(path).parent_path();
      std::error_code ec;
      if (!dir.empty()) fs::create_directories(dir, ec);
      if (ec) throw LoadError(path + ": cannot create folder " + dir.string() + ": " + ec.message());
      std::ofstream probe(path, std::ios::app);
      if (!probe) throw LoadError(path + ": cannot open for writing");
    }
  });
  if (st.code) return report(ctx, st);

  mpi::RenderJob job;
  job.threads = resolve_threads(ctx, args.threads);
  job.tile_size = args.tile_size;
  job.distribution = dist;
  job.outputs.variance = !args.variance.empty();
  for (const ScalarParam& p : wrt) job.outputs.wrt.push_back(p.slot);
  ProgressBar bar("render", ctx.is_root() && !args.quiet, args.progress);
  job.progress = [&](double f) { bar.update(f); };

  ctx.barrier();
  double t0 = ctx.seconds();
  mpi::RenderStats stats;
  Image image = mpi::render_image(ctx, scene, job, &stats);
  double secs = ctx.seconds() - t0;
  bar.update(1.0);  // the last tile may have been finished by another thread
  bar.finish();

  st = mpi::agree_on(ctx, [&] {
    if (!ctx.is_root()) return;
    write_image(channels_of(image, 0, 3), out);
    if (job.outputs.variance) write_image(channels_of(image, 3, 3), args.variance);
    for (size_t k = 0; k < wrt.size(); ++k) {
      DerivativeFiles f = write_derivative(image, job.outputs.derivative_channel(k), out, wrt[k].name);
      if (!args.quiet) std::printf("dray: wrote %s and %s (colour scale +-%.4g)\n", f.exr.c_str(), f.png.c_str(), f.scale);
    }
  });
  if (st.code) return report(ctx, st);
  if (ctx.is_root() && !args.quiet) {
    double samples = double(scene.camera.width) * scene.camera.height * scene.render.spp;
    std::printf("dray: wrote %s (%dx%d, %d spp%s) in %.2f s, %.2f Msamples/s, %d ranks x %d threads, "
                "%ld non-finite samples dropped\n",
                out.c_str(), scene.camera.width, scene.camera.height, scene.render.spp,
                wrt.empty() ? "" : (", " + std::to_string(wrt.size()) + " derivatives").c_str(), secs,
                samples / secs * 1e-6, ctx.size(), job.threads, stats.nonfinite_samples);
  }
  if (ctx.is_root() && args.stats) {
    std::printf("dray: busy seconds per rank:");
    for (double b : stats.busy_seconds) std::printf(" %.3f", b);
    std::printf("; imbalance (max/mean) %.3f\n", stats.imbalance());
  }
  return 0;
}

int run_params(const mpi::Context& ctx, const SceneArgs& args) {
  Scene scene;
  mpi::Status st = mpi::agree_on(ctx, [&] { scene = load_scene(args.scene, args.overrides()); });
  if (st.code) return report(ctx, st);
  if (!ctx.is_root()) return 0;
  for (const ParamEntry& e : scene.params.entries()) {
    std::printf("%-40s", e.name.c_str());
    for (uint32_t i = 0; i < e.size; ++i) std::printf(" %g", scene.params.get(e.slot + i));
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  mpi::Context ctx(&argc, &argv);

  CLI::App app{"dray: a differentiable path tracer for CPU clusters"};
  app.require_subcommand(1);

  RenderArgs render;
  CLI::App* render_cmd = app.add_subcommand("render", "Render a scene to PNG (8-bit sRGB) or EXR (linear float)");
  render.scene.add_to(render_cmd);
  render_cmd->add_option("-o,--output", render.output, "Output image, .png or .exr (default: SCENE-stem.png)");
  render_cmd->add_option("--variance", render.variance,
                         "Also write the per-pixel variance of the pixel estimate (EXR; needs spp >= 2), for dray diff --ref-variance");
  render_cmd->add_option("--wrt", render.wrt,
                         "Also write the derivative image of each parameter named (dray params lists them; a "
                         "vector name gives its 3 components, NAME[i] one): OUT-stem.d.PARAM.exr and a .png");
  add_threads_option(render_cmd, render.threads);
  render_cmd->add_option("--tile-size", render.tile_size, "Tile edge in pixels")->check(CLI::Range(1, 4096));
  render_cmd->add_option("--distribution", render.distribution,
                         "How tiles are spread over ranks: static (interleaved) or dynamic (work queue)")
      ->check(CLI::IsMember({"static", "dynamic"}));
  render_cmd->add_flag("-q,--quiet", render.quiet, "No progress bar and no summary line");
  render_cmd->add_flag("--stats", render.stats, "Print each rank's rendering time and the imbalance (max/mean)");
  render_cmd->add_flag("--progress", render.progress,
                       "Draw the progress bar even when stderr is not a terminal (as under mpirun)");

  SceneArgs params;
  CLI::App* params_cmd = app.add_subcommand("params", "List the scene's differentiable parameters and their values");
  params.add_to(params_cmd);

  DiffArgs diff;
  CLI::App* diff_cmd = add_diff_command(app, diff);
  RegressArgs regress;
  CLI::App* regress_cmd = add_regress_command(app, regress);

  OptimizeArgs optimize;
  CLI::App* optimize_cmd = add_optimize_command(app, optimize);
  GradcheckArgs gradcheck;
  CLI::App* gradcheck_cmd = add_gradcheck_command(app, gradcheck);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = 0;
    if (ctx.is_root()) code = app.exit(e);
    else code = e.get_exit_code();
    return code == 0 ? 0 : kExitBadInput;
  }

  try {
    if (*render_cmd) return run_render(ctx, render);
    if (*params_cmd) return run_params(ctx, params);
    if (*diff_cmd) return run_diff(ctx, diff);
    if (*gradcheck_cmd) return run_gradcheck(ctx, gradcheck);
    if (*optimize_cmd) return run_optimize(ctx, optimize);
    if (*regress_cmd) return run_regress(ctx, regress);
  } catch (const mpi::AgreedError& e) {  // every rank is here, with the same status
    return report(ctx, e.status);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dray: internal error on rank %d: %s\n", ctx.rank(), e.what());
    return 3;
  }
  return 0;
}
