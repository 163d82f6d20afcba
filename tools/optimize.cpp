// dray optimize JOB: inverse rendering. Every iteration renders the scene, its loss against the
// target and the gradient (every rank its tiles, the exact sums reduce-scattered); every rank
// owns a shard of each block (tools/job_shard.h), steps it and allgathers its new values; rank 0
// owns the output files.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "mpi/collectives.h"
#include "mpi/gradient.h"
#include "mpi/tiles.h"
#include "renderer/core/atomic_file.h"
#include "renderer/io/json_reader.h"
#include "renderer/io/scene_loader.h"
#include "tools/cli.h"
#include "tools/job_shard.h"
#include "tools/optimize_job.h"
#include "tools/optimizer.h"
#include "tools/optimize_output.h"
#include "tools/optimize_report.h"
#include "tools/optimize_targets.h"
#include "tools/progress.h"

namespace fs = std::filesystem;

namespace dray::cli {

CLI::App* add_optimize_command(CLI::App& app, OptimizeArgs& a) {
  CLI::App* cmd = app.add_subcommand("optimize", "Run an inverse-rendering job (JSON): recover scene parameters from a target image");
  cmd->add_option("JOB", a.job, "Job file (JSON)")->required();
  add_scene_edits(cmd, a.sets, a.defines_given);
  cmd->add_option("-o,--output", a.output, "Output folder (default: the job's \"output\", relative to the job file)");
  cmd->add_flag("--resume", a.resume, "Continue from the job's last checkpoint (same result as an uninterrupted run)");
  cmd->add_flag("--force", a.force,
                "Start again in an output folder that holds an earlier run: its files (progress.csv, snapshots, checkpoint, "
                "report, final scene) are removed first; without --force or --resume such a folder is an error");
  add_threads_option(cmd, a.threads);
  cmd->add_flag("-q,--quiet", a.quiet, "No per-iteration lines and no progress bar");
  cmd->add_flag("--progress", a.progress, "Draw the progress bar even when stderr is not a terminal (as under mpirun)");
  return cmd;
}

namespace {

// Tiles of the gradient pass: small, so that static interleaving balances uneven images.
constexpr int kTileSize = 8;

// The views of iteration `it` as gradient passes: their cameras, targets, weights and seeds
// (the render seed of view v at iteration it: seed + 2 (it V + v), the adjoint's the next one
// for independent samples; a single view keeps seed + 2 it).
std::vector<mpi::ViewPass> view_passes(const Job& job, const std::vector<Image>& targets, const std::vector<Image>& masks,
                                       int it) {
  std::vector<mpi::ViewPass> passes;
  const uint64_t n = job.views.size();
  for (int v : batch_views(job, it)) {
    const View& view = job.views[size_t(v)];
    const uint64_t seed = job.seed + 2 * (uint64_t(it) * n + uint64_t(v));
    // A single view renders with the scene's camera as the job leaves it (its parameters may be
    // optimised); a view of "views" with its sensor.
    passes.push_back({view.sensor, &targets[size_t(v)], view.weight, seed, job.independent ? seed + 1 : seed,
                      view.mask.empty() ? nullptr : &masks[size_t(v)], job.spp_grad > 0 ? job.spp_grad_at(it) : 0});
  }
  return passes;
}


// The job's scalars as the gradient pass and the step see them: the blocks' slots in order, and
// which of them progress.csv lists one by one. Taken at the start and after an upsampling.
struct Scalars {
  std::vector<Slot> slots;
  std::vector<size_t> listed;
  void take(const Job& job) {
    listed.clear();
    for (const auto& l : job.listed_scalars()) listed.push_back(l.second);
    slots.clear();
    slots.reserve(job.scalar_count());
    for (const Block& b : job.blocks)
      for (size_t i = 0; i < b.size; ++i) slots.push_back(b.slot + Slot(i));
  }
  std::vector<double> listed_values(const ParamTable& params) const {  // as the scene holds them
    std::vector<double> out;
    for (size_t k : listed) out.push_back(double(params.get(slots[k])));
    return out;
  }
};

// The job's values, shapes and this rank's shard of the optimizer state from the checkpoint in
// `out` (collective: every rank reads the values, its own pieces of the moments).
mpi::Status resume_from_checkpoint(const mpi::Context& ctx, Job& job, const json& settings, const fs::path& out, Scene& scene,
                                   Shard& shard, State& state) {
  return mpi::agree_on(ctx, [&] {
    Checkpoint c = read_checkpoint(job, settings, out);
    // The blocks at their shape after the checkpoint's iteration, upsampled as the run did;
    // then the checkpoint's blocks must be the job's.
    for (int k = 1; k <= c.iteration; ++k) upsample_blocks(job, scene, k);
    check_checkpoint_blocks(job, c, out);
    for (const Block& b : job.blocks)
      for (size_t i = 0; i < b.size; ++i) scene.params.set(b.slot + Slot(i), c.values[b.first + i]);
    c.values = {};
    shard = make_shard(job, ctx.rank(), ctx.size());
    read_checkpoint_state(c, job, shard, state);
  });
}

// The job parsed and checked before any work: its memory against the ranks', its output folder
// (fresh, emptied with --force, or resumed) writable.
mpi::Status load_job(const mpi::Context& ctx, const OptimizeArgs& a, Scene& scene, json& scene_doc, Job& job) {
  return mpi::agree_on(ctx, [&] {
    job = parse_job(a.job, scene, scene_doc, {a.sets, parse_defines(a.defines_given), a.output});
    // The targets, the primal, its gather buffer and the snapshot's copy.
    int w = 0, h = 0;
    for (const View& v : job.views) w = std::max(w, v.camera.width), h = std::max(h, v.camera.height);
    check_image_memory(ctx, job.scene_path, w, h, 3, 3.0 + 2.0 * double(job.views.size()));
    check_block_memory(ctx, job);
    if (!ctx.is_root()) return;
    try {
      if (!a.resume) prepare_output_folder(job.output, a.force);
      check_writable(fs::path(job.output) / "progress.csv");
    } catch (const LoadError& e) {
      throw LoadError(job.file + ": /output: " + e.what());
    }
  });
}

void print_view_groups(const mpi::Context& ctx, const Job& job, const mpi::ViewGroups& groups, int per_iteration) {
  const int lo = ctx.size() / groups.count, hi = lo + (ctx.size() % groups.count ? 1 : 0);
  const std::string ranks = lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  std::printf("dray optimize: %zu views, %d per iteration, on %d view group%s of %s rank%s\n", job.views.size(), per_iteration,
              groups.count, groups.count == 1 ? "" : "s", ranks.c_str(), hi == 1 ? "" : "s");
}

// This rank's shard of the optimizer state before the first step.
State fresh_state(const Shard& shard) {
  State state;
  state.m.assign(shard.size, 0.0);
  state.v.assign(shard.size, 0.0);
  state.seen.assign(shard.size, 0);
  return state;
}

// The blocks the job upsamples after iteration k, with the scalars, the shards of the state and
// the large-steps systems that follow their new sizes (every rank alike). Whether any changed.
bool upsample_after(const mpi::Context& ctx, const OptimizeArgs& a, Job& job, Scene& scene, int k, Scalars& scalars, Shard& shard,
                    State& state, std::vector<SmoothingSystem>& smoothing) {
  std::vector<size_t> sizes;  // the blocks' before the upsampling
  for (const Block& b : job.blocks) sizes.push_back(b.size);
  const std::vector<std::string> upsampled = upsample_blocks(job, scene, k);
  if (upsampled.empty()) return false;
  scalars.take(job);
  const Shard before = std::move(shard);
  shard = make_shard(job, ctx.rank(), ctx.size());
  reshard_state(before, sizes, shard, job, state);
  if (ctx.is_root()) smoothing = smoothing_systems(job, scene);
  for (const std::string& line : upsampled)
    if (ctx.is_root() && !a.quiet) std::printf("upsampled %s after iteration %d\n", line.c_str(), k);
  return true;
}

// Rank 0's record of the run: progress.csv, report.html (with media grids' slices beside the
// truth's: the first view's target scene, when it has one), snapshots and the console.
struct RunRecord {
  const Job& job;
  const fs::path out;
  const bool quiet;
  const int ranks, threads;
  Report page;
  std::ofstream csv;
  std::optional<Scene> truth;
  ProgressBar bar;

  RunRecord(const mpi::Context& ctx, const OptimizeArgs& a, const Job& job, const Scene& scene, int iteration, int thread_count)
      : job(job), out(job.output), quiet(a.quiet), ranks(ctx.size()), threads(thread_count),
        page(job, ctx.is_root() ? known_truth(job) : std::vector<double>{}), bar("optimize", ctx.is_root() && !a.quiet, a.progress) {
    if (!ctx.is_root()) return;
    std::vector<std::string> kept_rows;
    csv = open_progress_csv(job, scene.params, out, a.resume, iteration, kept_rows);
    const bool grids = std::any_of(job.entries.begin(), job.entries.end(), is_media_block);
    if (grids && !job.views.empty() && !job.views[0].target_scene.empty()) try {
        truth = load_scene(job.views[0].target_scene, {}, false);
      } catch (const std::exception&) {  // no truth to show: the current slices alone
      }
    page.add_csv_lines(kept_rows);
    for (int k = 1; k <= iteration; ++k)  // a resumed run's earlier snapshots
      if (fs::exists(out / snapshot_name(k))) page.add_snapshot(k, batch_views(job, k - 1)[0], out / snapshot_name(k));
  }
  static std::string snapshot_name(int k) {
    char name[64];
    std::snprintf(name, sizeof name, "snapshot-%04d.png", k);
    return name;
  }
  void set_slices(const Scene& scene) {
    for (const std::string& name : job.entries)
      if (is_media_block(name)) page.set_grid_slices(name, scene.params, truth ? &truth->params : nullptr);
  }
  RunFacts facts(double seconds, double mpi_seconds, RunFacts::Status status) const { return {ranks, threads, seconds, mpi_seconds, status}; }

  // Iteration `it`'s row, report row, snapshot (`primal`, when taken) and console line.
  void record(const Scene& scene, int it, IterationFacts f, const Image* primal, const std::vector<Image>& targets,
              double total_seconds, double mpi_seconds) {
    write_progress_row(csv, job, scene.params, f);
    page.add({f.iteration, f.loss, f.gradient_norm, f.seconds, f.listed_values});
    if (primal) {
      const fs::path png = out / snapshot_name(f.iteration);
      write_image(*primal, png.string());
      const int view = batch_views(job, it)[0];  // the batch's first: the view `primal` shows
      page.add_snapshot(f.iteration, view, png);
      page.set_images(view, targets[size_t(view)], *primal);
      set_slices(scene);
      page.write(out / "report.html", facts(total_seconds, mpi_seconds, RunFacts::Status::running));
    }
    // What a signal leaves: the page as it stands, saying where the run stopped.
    on_interrupt_write(out / "report.html", page.html(facts(total_seconds, mpi_seconds, RunFacts::Status::interrupted)));
    if (quiet) return;
    bar.finish();
    std::string batch;  // a mini-batch's views
    if (job.batch > 0)
      for (int v : batch_views(job, it)) batch += (batch.empty() ? "  views " : ",") + std::to_string(v);
    std::printf("iter %5d/%d  loss %.6e  |grad| %.3e  dropped %ld  %.2f s%s\n", f.iteration, job.iterations, f.loss,
                f.gradient_norm, f.dropped_samples, f.seconds, batch.c_str());
    std::fflush(stdout);
    bar.update(double(it + 1) / job.iterations);
  }

  // The final scene, the blocks' seen masks, the finished page and the result on the console.
  void finish(const Scene& scene, const json& scene_doc, const std::vector<uint8_t>& seen, const std::vector<double>& listed_values,
              int iterations_run, double total_seconds, double mpi_seconds, double wait_seconds) {
    write_text_file(out / "final-scene.json", final_scene(job, scene_doc, scene, out).dump(2) + "\n");
    write_seen_masks(job, scene, seen, out);
    set_slices(scene);  // the final values
    on_interrupt_write({}, {});  // the run is complete: a late signal leaves the final page
    page.write(out / "report.html", facts(total_seconds, mpi_seconds, RunFacts::Status::finished));
    if (!quiet) {
      const double share = total_seconds > 0 ? 100 / total_seconds : 0.0;
      std::printf("dray optimize: %d iterations, %.2f s; MPI communication %.2f%% of it, waiting for other ranks "
                  "%.2f%%; %d ranks x %d threads\n",
                  iterations_run, total_seconds, share * mpi_seconds, share * wait_seconds, ranks, threads);
    }
    // The result, also with --quiet.
    size_t i = 0;
    for (const auto& listed : job.listed_scalars()) std::printf("  %-36s %.6g\n", listed.first.c_str(), listed_values[i++]);
    for (const auto& b : block_means(job, scene.params))
      std::printf("  %-36s block, mean %.6g (written to %s)\n", b.first.c_str(), b.second, (out / block_file(b.first)).c_str());
    std::printf("wrote %s\n", (out / "final-scene.json").c_str());
  }
};

}  // namespace

int run_optimize(const mpi::Context& ctx, const OptimizeArgs& a) {
  Scene scene;
  json scene_doc;
  Job job;
  mpi::Status status = load_job(ctx, a, scene, scene_doc, job);
  if (status.code) return report(ctx, status);
  print_warnings(ctx, scene);
  const json settings = job_settings(job, scene_doc);
  const fs::path out = job.output;
  const int threads = resolve_threads(ctx, a.threads);
  Scalars scalars;
  scalars.take(job);
  Shard shard = make_shard(job, ctx.rank(), ctx.size());
  scene.render.spp = job.spp;
  if (job.boundary_samples >= 0) scene.render.boundary_samples = job.boundary_samples;

  std::vector<Image> targets, masks;
  status = load_targets(ctx, job, false, threads, targets, masks);
  if (status.code) return report(ctx, status);
  std::vector<Image> held_out_targets, unused_masks;  // read or rendered now: a bad one stops the job before it runs
  status = load_targets(ctx, job, true, threads, held_out_targets, unused_masks);
  if (status.code) return report(ctx, status);
  // Views side by side on groups of ranks (a collective split, once per run).
  const int per_iteration = job.batch > 0 ? job.batch : int(job.views.size());
  const mpi::ViewGroups groups =
      mpi::make_view_groups(ctx, job.view_groups > 0 ? job.view_groups : mpi::choose_view_groups(ctx.size(), per_iteration));
  if (ctx.is_root() && !a.quiet && job.multi_view) print_view_groups(ctx, job, groups, per_iteration);

  // Each rank's shard of the optimizer state: fresh, or from the checkpoint, whose values every rank reads.
  State state = fresh_state(shard);
  std::vector<SmoothingSystem> smoothing;
  const bool moves_geometry =
      std::any_of(job.blocks.begin(), job.blocks.end(), [&](const Block& b) { return scene.needs_rebuild(b.slot); });
  auto refresh = [&] {  // after the values changed
    if (moves_geometry) scene.build_geometry();
    else scene.refresh_tables();  // an environment map's sampling, a rough coating's table
  };
  if (a.resume) {
    status = resume_from_checkpoint(ctx, job, settings, out, scene, shard, state);
    if (status.code) return report(ctx, status);
    scalars.take(job);
    if (ctx.is_root() && !a.quiet)
      std::printf("dray optimize: resuming after iteration %d of %d (%s)\n", state.iteration, job.iterations,
                  (out / "checkpoint.json").c_str());
  }
  if (ctx.is_root()) smoothing = smoothing_systems(job, scene);  // the large-steps blocks are rank 0's
  refresh();

  RunRecord record(ctx, a, job, scene, state.iteration, threads);
  const int first_iteration = state.iteration;
  int checkpointed = a.resume ? state.iteration : 0;
  // Ctrl-C (SIGINT, or mpirun's SIGTERM): a message naming where --resume continues, exit 130.
  auto interrupt_message = [&](int completed) {
    std::string m = "dray optimize: interrupted after iteration " + std::to_string(completed) + " of " + std::to_string(job.iterations);
    if (checkpointed > 0)
      m += "; continue with --resume (from the checkpoint after iteration " + std::to_string(checkpointed) + ")";
    else
      m += job.checkpoint_every > 0 ? "; no checkpoint yet: run it again" : "; checkpoint_every is 0: run it again";
    on_interrupt_print(ctx, m);
  };
  interrupt_message(state.iteration);
  double mpi_seconds = 0, wait_seconds = 0, total_seconds = 0;
  status = {};
  for (int it = state.iteration; it < job.iterations && status.code == 0; ++it) {
    const double t0 = ctx.seconds();
    const int k = it + 1;  // iterations count from 1 everywhere: console, progress.csv, snapshots, checkpoint
    const bool snapshot = job.snapshot_every > 0 && (k == 1 || k % job.snapshot_every == 0 || k == job.iterations);
    Image primal;  // the batch's first view
    scene.render.spp = job.spp_at(it);
    const std::vector<mpi::ViewPass> passes = view_passes(job, targets, masks, it);
    mpi::DistributedGradient g = mpi::gradient(ctx, groups, scene, passes, job.loss, scalars.slots, kTileSize, threads,
                                               snapshot ? &primal : nullptr, shard.segments);
    mpi_seconds += g.mpi_seconds;
    wait_seconds += g.wait_seconds;
    double t1 = ctx.seconds();
    const double norm2 = gradient_norm2(ctx, g.gradient);
    mpi_seconds += ctx.seconds() - t1;
    std::vector<double> next = optimizer_step(job, shard, smoothing, state, scene.params, std::move(g.gradient), it);
    const double secs = ctx.seconds() - t0;
    total_seconds += secs;

    status = mpi::agree_on(ctx, [&] {
      if (!ctx.is_root()) return;
      record.record(scene, it, {k, g.loss, std::sqrt(norm2), secs, g.dropped_samples, scalars.listed_values(scene.params)},
                    snapshot ? &primal : nullptr, targets, total_seconds, mpi_seconds);
    });
    t1 = ctx.seconds();
    allgather_values(ctx, job, shard, next, scene.params);  // after the row above: it shows the values rendered
    mpi_seconds += ctx.seconds() - t1;
    next = {};
    refresh();
    state.iteration = k;
    if (const std::string change = schedule_change(job, k); !change.empty() && ctx.is_root() && !a.quiet)
      std::printf("schedule after iteration %d: %s\n", k, change.c_str());
    if (upsample_after(ctx, a, job, scene, k, scalars, shard, state, smoothing)) refresh();
    if (status.code == 0 && job.checkpoint_every > 0 && (k % job.checkpoint_every == 0 || k == job.iterations)) {
      status = mpi::agree_on(ctx, [&] { write_checkpoint(ctx, job, settings, state, shard, scene.params, out); });
      checkpointed = k;
    }
    interrupt_message(k);
  }
  record.bar.finish();
  if (status.code) return report(ctx, status);

  std::vector<uint8_t> seen;  // every shard's, on rank 0
  stream_to_root(ctx, job, shard, state.seen.data(), 1, [&](size_t, const void* bytes, size_t size) {
    seen.insert(seen.end(), static_cast<const uint8_t*>(bytes), static_cast<const uint8_t*>(bytes) + size);
  });
  status = mpi::agree_on(ctx, [&] {
    if (ctx.is_root())
      record.finish(scene, scene_doc, seen, scalars.listed_values(scene.params), job.iterations - first_iteration, total_seconds,
                    mpi_seconds, wait_seconds);
  });
  if (status.code == 0) status = evaluate_held_out(ctx, job, held_out_targets, scene, threads);
  return report(ctx, status);
}

}  // namespace dray::cli
