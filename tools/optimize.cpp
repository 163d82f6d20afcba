// dray optimize JOB: inverse rendering. Every iteration renders the scene, its loss against the
// target and the gradient (every rank its tiles, gradients allreduced); rank 0 owns the
// optimizer state, takes the step and broadcasts the parameters.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "mpi/collectives.h"
#include "mpi/gradient.h"
#include "mpi/tiles.h"
#include "renderer/atomic_file.h"
#include "renderer/json_reader.h"
#include "renderer/scene_loader.h"
#include "tools/cli.h"
#include "tools/progress.h"

namespace fs = std::filesystem;

namespace dray::cli {

CLI::App* add_optimize_command(CLI::App& app, OptimizeArgs& a) {
  CLI::App* cmd = app.add_subcommand("optimize", "Run an inverse-rendering job (JSON): recover scene parameters from a target image");
  cmd->add_option("JOB", a.job, "Job file (JSON)")->required();
  cmd->add_flag("--resume", a.resume, "Continue from the job's last checkpoint (same result as an uninterrupted run)");
  add_threads_option(cmd, a.threads);
  cmd->add_flag("-q,--quiet", a.quiet, "No per-iteration lines and no progress bar");
  cmd->add_flag("--progress", a.progress, "Draw the progress bar even when stderr is not a terminal (as under mpirun)");
  return cmd;
}

namespace {

// Tiles of the gradient pass: small, so that static interleaving balances uneven images.
constexpr int kTileSize = 8;

struct Scalar {
  std::string name;  // materials.white.albedo[1]
  Slot slot;
  double lr, min, max;
};

struct Job {
  std::string file;
  fs::path dir;
  std::string scene_path, target_image, target_scene, output;
  int target_spp = 256, spp = 8, iterations = 100, snapshot_every = 10, checkpoint_every = 10;
  std::string optimizer = "adam";
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double lr_decay = 1.0;  // the learning rates' factor at the last iteration (exponential schedule)
  Loss loss = Loss::l2;
  uint64_t seed = 0;
  bool independent = true;   // adjoint samples independent of the primal's
  std::vector<std::string> entries;  // the parameter names as given (vectors whole)
  std::vector<Scalar> scalars;
};

fs::path relative_to(const fs::path& dir, const std::string& p) { return fs::path(p).is_absolute() ? fs::path(p) : dir / p; }

// The key under which a parameter is written back into the scene JSON (--set syntax).
std::string scene_key(const json& doc, const std::string& name, const JsonReader& rd, const std::string& where) {
  std::string key = name;
  auto dot1 = name.find('.'), dot2 = name.rfind('.');
  std::string group = name.substr(0, dot1), object = name.substr(dot1 + 1, dot2 - dot1 - 1), field = name.substr(dot2 + 1);
  if (group == "materials" && !(doc.contains("materials") && doc["materials"].contains(object)))
    rd.fail(where, "\"" + name + "\" comes from an OBJ file and cannot be written back to the scene; map the OBJ "
                   "material to a scene material (the mesh's \"materials\")");
  if (group == "shapes" && (field == "scale" || field == "translate" || field.rfind("rotate_", 0) == 0))
    key = "shapes." + object + ".transform." + field;
  return key;
}

Job parse_job(const std::string& path, Scene& scene, json& scene_doc) {
  JsonReader rd(path);
  json j = read_json_file(path);
  rd.object(j, "", {"scene", "target", "params", "optimizer", "loss", "spp", "output", "snapshot_every", "checkpoint_every",
                    "seed", "gradient_samples"},
            {"scene", "target", "params", "output"});
  Job job;
  job.file = path;
  job.dir = fs::path(path).parent_path();
  job.scene_path = relative_to(job.dir, rd.string(j["scene"], "/scene")).string();
  job.output = relative_to(job.dir, rd.string(j["output"], "/output")).lexically_normal().string();
  const json& t = j["target"];
  rd.object(t, "/target", {"image", "scene", "spp"});
  if (t.contains("image") == t.contains("scene")) rd.fail("/target", "give either \"image\" or \"scene\"");
  if (t.contains("image")) job.target_image = relative_to(job.dir, rd.string(t["image"], "/target/image")).string();
  if (t.contains("scene")) job.target_scene = relative_to(job.dir, rd.string(t["scene"], "/target/scene")).string();
  if (t.contains("spp")) job.target_spp = int(rd.integer(t["spp"], "/target/spp", 1, 1 << 20));
  if (j.contains("optimizer")) {
    const json& o = j["optimizer"];
    rd.object(o, "/optimizer", {"type", "iterations", "beta1", "beta2", "epsilon", "lr_decay"});
    if (o.contains("type")) job.optimizer = rd.string(o["type"], "/optimizer/type");
    if (job.optimizer != "adam" && job.optimizer != "sgd")
      rd.fail("/optimizer/type", "unknown optimizer \"" + job.optimizer + "\" (expected adam or sgd)");
    if (o.contains("iterations")) job.iterations = int(rd.integer(o["iterations"], "/optimizer/iterations", 1, 1 << 24));
    if (o.contains("beta1")) job.beta1 = rd.number(o["beta1"], "/optimizer/beta1");
    if (o.contains("beta2")) job.beta2 = rd.number(o["beta2"], "/optimizer/beta2");
    if (o.contains("epsilon")) job.epsilon = rd.positive(o["epsilon"], "/optimizer/epsilon");
    if (o.contains("lr_decay")) job.lr_decay = rd.positive(o["lr_decay"], "/optimizer/lr_decay");
    if (job.lr_decay > 1) rd.fail("/optimizer/lr_decay", "must be in (0, 1]");
    if (!(job.beta1 >= 0 && job.beta1 < 1)) rd.fail("/optimizer/beta1", "must be in [0, 1)");
    if (!(job.beta2 >= 0 && job.beta2 < 1)) rd.fail("/optimizer/beta2", "must be in [0, 1)");
  }
  if (j.contains("loss")) {
    std::string l = rd.string(j["loss"], "/loss");
    if (l != "l1" && l != "l2" && l != "relative_l2") rd.fail("/loss", "unknown loss \"" + l + "\" (expected l1, l2 or relative_l2)");
    job.loss = parse_loss(l);
  }
  if (j.contains("spp")) job.spp = int(rd.integer(j["spp"], "/spp", 1, 1 << 20));
  if (j.contains("snapshot_every")) job.snapshot_every = int(rd.integer(j["snapshot_every"], "/snapshot_every", 0, 1 << 24));
  if (j.contains("checkpoint_every")) job.checkpoint_every = int(rd.integer(j["checkpoint_every"], "/checkpoint_every", 0, 1 << 24));
  if (j.contains("seed")) job.seed = uint64_t(rd.integer(j["seed"], "/seed", 0, 1L << 40));
  if (j.contains("gradient_samples")) {
    std::string g = rd.string(j["gradient_samples"], "/gradient_samples");
    if (g != "independent" && g != "same") rd.fail("/gradient_samples", "must be \"independent\" or \"same\"");
    job.independent = g == "independent";
  }

  // The scene, and the parameters in it.
  scene_doc = read_json_file(job.scene_path);
  scene = load_scene(scene_doc, job.scene_path);
  const json& ps = j["params"];
  if (!ps.is_object() || ps.empty()) rd.fail("/params", "must be an object naming at least one parameter");
  for (auto it = ps.begin(); it != ps.end(); ++it) {
    const std::string where = "/params/" + it.key();
    rd.object(it.value(), where, {"lr", "min", "max"}, {"lr"});
    double lr = rd.positive(it.value()["lr"], where + "/lr");
    double lo = it.value().contains("min") ? rd.number(it.value()["min"], where + "/min") : -INFINITY;
    double hi = it.value().contains("max") ? rd.number(it.value()["max"], where + "/max") : INFINITY;
    if (!(lo < hi)) rd.fail(where, "min must be below max");
    std::vector<ScalarParam> sc;
    try {
      sc = resolve_scalars(scene.params, {it.key()});
    } catch (const std::runtime_error& e) {
      rd.fail(where, e.what());
    }
    if (it.key().find('[') != std::string::npos) rd.fail(where, "name a whole parameter (the vector), not one component");
    scene_key(scene_doc, it.key(), rd, where);
    job.entries.push_back(it.key());
    for (const auto& s : sc) job.scalars.push_back({s.name, s.slot, lr, lo, hi});
  }
  return job;
}

// The optimizer's state, on rank 0.
struct State {
  int iteration = 0;               // the next iteration to run
  std::vector<double> value, m, v;  // per scalar
};

json state_json(const Job& job, const State& s) {
  json names = json::array();
  for (const auto& sc : job.scalars) names.push_back(sc.name);
  return {{"iteration", s.iteration}, {"params", names}, {"value", s.value}, {"m", s.m}, {"v", s.v}};
}

State read_checkpoint(const Job& job, const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw LoadError(path.string() + ": no checkpoint to resume from (run without --resume first)");
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw LoadError(path.string() + ": not a valid checkpoint");
  State s;
  std::vector<std::string> names;
  try {
    s.iteration = j.at("iteration");
    s.value = j.at("value").get<std::vector<double>>();
    s.m = j.at("m").get<std::vector<double>>();
    s.v = j.at("v").get<std::vector<double>>();
    names = j.at("params").get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    throw LoadError(path.string() + ": not a valid checkpoint (" + e.what() + ")");
  }
  if (s.m.size() != s.value.size() || s.v.size() != s.value.size() || s.iteration < 0)
    throw LoadError(path.string() + ": not a valid checkpoint (inconsistent sizes)");
  if (names.size() != job.scalars.size() || s.value.size() != job.scalars.size())
    throw LoadError(path.string() + ": the checkpoint is of a job with other parameters");
  for (size_t k = 0; k < names.size(); ++k)
    if (names[k] != job.scalars[k].name)
      throw LoadError(path.string() + ": the checkpoint is of a job with other parameters (" + names[k] + ")");
  return s;
}

// The scene with the optimized values, its file paths made relative to `out_dir`.
json final_scene(const Job& job, json doc, const Scene& scene, const fs::path& out_dir) {
  JsonReader rd(job.file);
  for (const std::string& name : job.entries) {
    auto e = *scene.params.find(name);
    json value = json::array();
    for (uint32_t i = 0; i < e.size; ++i) value.push_back(scene.params.get(e.slot + i));
    apply_override(doc, scene_key(doc, name, rd, "/params/" + name) + "=" + (e.size == 1 ? value[0] : value).dump());
  }
  const fs::path scene_dir = fs::path(job.scene_path).parent_path();
  if (doc.contains("shapes"))
    for (auto& s : doc["shapes"])
      if (s.contains("file") && s["file"].is_string()) {
        fs::path f = relative_to(scene_dir, s["file"]);
        s["file"] = fs::relative(fs::absolute(f), fs::absolute(out_dir)).string();
      }
  return doc;
}

}  // namespace

int run_optimize(const mpi::Context& ctx, const OptimizeArgs& a) {
  Scene scene;
  json scene_doc;
  Job job;
  Image target;
  mpi::Status st = mpi::agree_on(ctx, [&] {
    job = parse_job(a.job, scene, scene_doc);
    if (!job.target_image.empty()) {
      target = read_image(job.target_image);
      if (target.width != scene.camera.width || target.height != scene.camera.height)
        throw LoadError(job.target_image + ": the target is " + std::to_string(target.width) + "x" +
                        std::to_string(target.height) + " but the scene renders " + std::to_string(scene.camera.width) +
                        "x" + std::to_string(scene.camera.height));
    }
    // The target, the primal, its gather buffer and the snapshot's copy.
    check_image_memory(ctx, job.scene_path, scene.camera.width, scene.camera.height, 3, 4.0);
    if (ctx.is_root()) {
      fs::create_directories(job.output);
      std::ofstream probe(fs::path(job.output) / "progress.csv", std::ios::app);
      if (!probe) throw LoadError(job.output + ": cannot write there");
    }
  });
  if (st.code) return report(ctx, st);
  const fs::path out = job.output;
  const int threads = resolve_threads(ctx, a.threads);
  const size_t n = job.scalars.size();
  std::vector<Slot> slots;
  for (const auto& s : job.scalars) slots.push_back(s.slot);
  scene.render.spp = job.spp;

  // The target: an image, or a scene rendered first (every rank gets it in full).
  if (!job.target_scene.empty()) {
    Scene truth;
    st = mpi::agree_on(ctx, [&] {
      truth = load_scene(job.target_scene, {"render.spp=" + std::to_string(job.target_spp), "render.seed=1000003"});
      if (truth.camera.width != scene.camera.width || truth.camera.height != scene.camera.height)
        throw LoadError(job.target_scene + ": renders at another size than " + job.scene_path);
    });
    if (st.code) return report(ctx, st);
    mpi::RenderJob rj;
    rj.threads = threads;
    target = mpi::render_image(ctx, truth, rj);
    std::vector<double> px(target.data.begin(), target.data.end());
    mpi::broadcast(ctx, px);
    target.data.assign(px.begin(), px.end());
    st = mpi::agree_on(ctx, [&] {
      if (ctx.is_root()) write_image(target, (out / "target.exr").string());
    });
    if (st.code) return report(ctx, st);
  }

  // Rank 0's optimizer state: fresh, or from the checkpoint.
  State state;
  state.value.resize(n);
  for (size_t k = 0; k < n; ++k) state.value[k] = scene.params.get(job.scalars[k].slot);
  state.m.assign(n, 0.0);
  state.v.assign(n, 0.0);
  if (a.resume) {
    st = mpi::agree_on(ctx, [&] {
      if (ctx.is_root()) state = read_checkpoint(job, out / "checkpoint.json");
    });
    if (st.code) return report(ctx, st);
  }
  // Every rank starts from rank 0's iteration and values.
  std::vector<double> shared = state.value;
  shared.push_back(state.iteration);
  mpi::broadcast(ctx, shared);
  state.iteration = int(shared.back());
  shared.pop_back();
  const bool moves_geometry =
      std::any_of(job.scalars.begin(), job.scalars.end(), [&](const Scalar& s) { return scene.moves_geometry(s.slot); });
  auto set_params = [&](const std::vector<double>& values) {
    for (size_t k = 0; k < n; ++k) scene.params.set(job.scalars[k].slot, float(values[k]));
    if (moves_geometry) scene.build_geometry();
  };
  set_params(shared);

  // progress.csv: kept up to the iteration we continue from.
  std::ofstream csv;
  if (ctx.is_root()) {
    std::vector<std::string> keep;
    if (a.resume) {
      // The header, then complete rows 0, 1, ... up to the checkpoint: a run killed while
      // writing may have left a partial last row.
      std::ifstream old(out / "progress.csv");
      std::string line;
      if (std::getline(old, line)) keep.push_back(line);
      const auto fields = std::count(line.begin(), line.end(), ',');
      for (int expected = 0; expected < state.iteration && std::getline(old, line); ++expected) {
        if (std::count(line.begin(), line.end(), ',') != fields || std::atoi(line.c_str()) != expected) break;
        keep.push_back(line);
      }
    }
    csv.open(out / "progress.csv", std::ios::trunc);
    if (keep.empty()) {
      csv << "iteration,loss,gradient_norm,dropped_samples";
      for (const auto& s : job.scalars) csv << "," << s.name;
      csv << ",seconds\n";
    }
    for (const auto& line : keep) csv << line << "\n";
    csv.flush();
  }

  ProgressBar bar("optimize", ctx.is_root() && !a.quiet, a.progress);
  const int first_iteration = state.iteration;
  double mpi_seconds = 0, wait_seconds = 0, total_seconds = 0;
  st = {};
  for (int it = state.iteration; it < job.iterations && st.code == 0; ++it) {
    const double t0 = ctx.seconds();
    scene.render.seed = job.seed + 2 * uint64_t(it);
    const uint64_t adjoint_seed = job.independent ? scene.render.seed + 1 : scene.render.seed;
    const bool snapshot = job.snapshot_every > 0 && (it % job.snapshot_every == 0 || it + 1 == job.iterations);
    Image primal;
    mpi::DistributedGradient g =
        mpi::gradient(ctx, scene, target, job.loss, slots, kTileSize, threads, adjoint_seed, snapshot ? &primal : nullptr);
    mpi_seconds += g.mpi_seconds;
    wait_seconds += g.wait_seconds;

    // Rank 0: the step. Non-finite gradient entries never reach a parameter.
    std::vector<double> next = state.value;
    double norm2 = 0;
    if (ctx.is_root()) {
      const double schedule = std::pow(job.lr_decay, job.iterations > 1 ? double(it) / (job.iterations - 1) : 0.0);
      for (size_t k = 0; k < n; ++k) {
        double gk = g.gradient[k];
        if (!std::isfinite(gk)) continue;
        norm2 += gk * gk;
        const Scalar& s = job.scalars[k];
        if (job.optimizer == "adam") {
          state.m[k] = job.beta1 * state.m[k] + (1 - job.beta1) * gk;
          state.v[k] = job.beta2 * state.v[k] + (1 - job.beta2) * gk * gk;
          double mhat = state.m[k] / (1 - std::pow(job.beta1, it + 1));
          double vhat = state.v[k] / (1 - std::pow(job.beta2, it + 1));
          next[k] -= schedule * s.lr * mhat / (std::sqrt(vhat) + job.epsilon);
        } else {
          next[k] -= schedule * s.lr * gk;
        }
        // As the scene stores it (float), within the bounds.
        next[k] = double(float(std::clamp(next[k], s.min, s.max)));
      }
    }
    const double t1 = ctx.seconds();
    mpi::broadcast(ctx, next);
    mpi_seconds += ctx.seconds() - t1;
    const double secs = ctx.seconds() - t0;
    total_seconds += secs;

    st = mpi::agree_on(ctx, [&] {
      if (!ctx.is_root()) return;
      csv << it << "," << g.loss << "," << std::sqrt(norm2) << "," << g.dropped_samples;
      char buf[32];
      for (size_t k = 0; k < n; ++k) {
        std::snprintf(buf, sizeof buf, "%.9g", state.value[k]);
        csv << "," << buf;
      }
      csv << "," << secs << "\n";
      csv.flush();
      if (snapshot) {
        char name[64];
        std::snprintf(name, sizeof name, "snapshot-%04d.png", it);
        write_image(primal, (out / name).string());
      }
      if (!a.quiet) {
        bar.finish();
        std::printf("iter %5d/%d  loss %.6e  |grad| %.3e  dropped %ld  %.2f s\n", it + 1, job.iterations, g.loss,
                    std::sqrt(norm2), g.dropped_samples, secs);
        std::fflush(stdout);
        bar.update(double(it + 1) / job.iterations);
      }
    });
    state.value = next;
    set_params(state.value);
    state.iteration = it + 1;
    if (st.code == 0 && job.checkpoint_every > 0 && (state.iteration % job.checkpoint_every == 0 || state.iteration == job.iterations))
      st = mpi::agree_on(ctx, [&] {
        if (ctx.is_root()) write_text_file(out / "checkpoint.json", state_json(job, state).dump(1) + "\n");
      });
  }
  bar.finish();
  if (st.code) return report(ctx, st);

  st = mpi::agree_on(ctx, [&] {
    if (!ctx.is_root()) return;
    write_text_file(out / "final-scene.json", final_scene(job, scene_doc, scene, out).dump(2) + "\n");
    write_text_file(out / "checkpoint.json", state_json(job, state).dump(1) + "\n");
    if (!a.quiet) {
      const double share = total_seconds > 0 ? 100 / total_seconds : 0.0;
      std::printf("dray optimize: %d iterations, %.2f s; MPI communication %.2f%% of it, waiting for other ranks "
                  "%.2f%%; %d ranks x %d threads\n",
                  job.iterations - first_iteration, total_seconds, share * mpi_seconds, share * wait_seconds, ctx.size(), threads);
      for (size_t k = 0; k < n; ++k) std::printf("  %-36s %.6g\n", job.scalars[k].name.c_str(), state.value[k]);
      std::printf("wrote %s\n", (out / "final-scene.json").c_str());
    }
  });
  return report(ctx, st);
}

}  // namespace dray::cli
