// dray regress DIR: runs a regression suite with its cases spread over the ranks (each case
// rendered by one rank with its threads, costliest cases first to the least-loaded rank), gathers the results on rank 0, prints one table and
// writes a Markdown report with the heatmaps of failing cases.
//
// A suite folder holds cases/NAME.json (scenes, rendered at their own settings) and
// golden/NAME.exr + golden/NAME.var.exr (mean and variance, from dray regress DIR --update-goldens).
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "mpi/collectives.h"
#include "mpi/tiles.h"
#include "renderer/core/atomic_file.h"
#include "renderer/image/colormap.h"
#include "renderer/image/image.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tools/cli.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dray::cli {

CLI::App* add_regress_command(CLI::App& app, RegressArgs& a) {
  CLI::App* cmd = app.add_subcommand("regress", "Run a regression suite (DIR/cases/*.json against DIR/golden/), "
                                                "cases spread over the ranks; exit 1 if any case fails");
  cmd->add_option("DIR", a.dir, "Suite folder")->required();
  cmd->add_option("--report", a.report, "Folder for report.md and the heatmaps of failing cases")->capture_default_str();
  cmd->add_flag("--update-goldens", a.update_goldens,
                "Render the goldens instead: DIR/golden/NAME.exr and NAME.var.exr of every case (or of --case), at "
                "--golden-spp with their own seed, every rank sharing each image");
  cmd->add_option("--golden-spp", a.golden_spp, "Samples per pixel of the goldens")
      ->check(whole_number(2, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--case", a.cases, "Only this case (NAME of DIR/cases/NAME.json); one per --case")->allow_extra_args(false);
  add_threads_option(cmd, a.threads);
  add_ztest_options(cmd, a.z);
  return cmd;
}

namespace {

std::vector<std::string> list_cases(const std::string& dir, const std::vector<std::string>& only) {
  fs::path cases = fs::path(dir) / "cases";
  std::error_code ec;
  if (!fs::is_directory(cases, ec)) throw LoadError(dir + ": no cases/ folder (expected DIR/cases/NAME.json)");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(cases))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  if (names.empty()) throw LoadError(cases.string() + ": no .json cases");
  std::sort(names.begin(), names.end());
  if (only.empty()) return names;
  for (const std::string& n : only)
    if (!std::binary_search(names.begin(), names.end(), n)) throw LoadError("--case " + n + ": no " + (cases / (n + ".json")).string());
  return only;
}

// A cost estimate for balancing: pixels x samples, read from the case's JSON (0 if unreadable;
// the error is reported when the case runs).
double estimated_cost(const std::string& dir, const std::string& name) {
  std::ifstream in(fs::path(dir) / "cases" / (name + ".json"));
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return 0;
  auto get = [](const json& j, const char* obj, const char* key, double def) {
    return j.contains(obj) && j[obj].is_object() && j[obj].contains(key) && j[obj][key].is_number()
               ? j[obj][key].get<double>() : def;
  };
  return get(doc, "camera", "width", 320) * get(doc, "camera", "height", 240) * get(doc, "render", "spp", 16);
}

// Longest-processing-time-first: each case, the costliest first, goes to the rank with the
// least work so far. Deterministic, so every rank computes the same assignment.
std::vector<std::vector<size_t>> assign_cases(const std::string& dir, const std::vector<std::string>& names, int ranks) {
  std::vector<std::pair<double, size_t>> cost;
  for (size_t i = 0; i < names.size(); ++i) cost.push_back({estimated_cost(dir, names[i]), i});
  std::stable_sort(cost.begin(), cost.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::vector<size_t>> out(static_cast<size_t>(ranks));
  std::vector<double> load(size_t(ranks), 0.0);
  for (const auto& [c, i] : cost) {
    size_t r = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    out[r].push_back(i);
    load[r] += c;
  }
  return out;
}

// Renders one case on this rank and tests it against its golden mean and variance.
json run_case(const std::string& dir, const std::string& name, int threads, const ZTestOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  json r = {{"case", name}, {"passed", false}};
  try {
    Scene scene = load_scene((fs::path(dir) / "cases" / (name + ".json")).string());
    const int w = scene.own_camera().width, h = scene.own_camera().height;
    Image img = render_local(scene, threads);
    std::string golden = (fs::path(dir) / "golden" / name).string();
    Image ref = read_image(golden + ".exr"), var = read_image(golden + ".var.exr");
    if (ref.width != w || ref.height != h || var.width != w || var.height != h)
      throw std::runtime_error(golden + ".exr: size differs from the case; run dray regress " + dir + " --update-goldens --case " + name);
    if (var.spp <= 0) throw std::runtime_error(golden + ".var.exr: no sample count in the header");
    ZTestResult z = z_test(img, scene.render.spp, ref, var, var.spp, opt);
    r["passed"] = z.passed;
    r["fail_share"] = z.fail_share;
    r["global_z"] = z.global_z;
    r["block_z"] = z.block_z_max;
    r["failed_blocks"] = z.failed_blocks;
    r["z_critical"] = z.z_critical;
    r["width"] = w;
    r["height"] = h;
    if (!z.passed) r["pixel_z"] = z.pixel_z;
  } catch (const std::exception& e) {
    r["error"] = e.what();
  }
  r["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string metric(const json& r) {
  if (r.contains("error")) return "error";
  char buf[128];
  std::snprintf(buf, sizeof buf, "failing %.3f%%, global z %+.2f, block |z| %.2f", 100 * r["fail_share"].get<double>(),
                r["global_z"].get<double>(), r["block_z"].get<double>());
  return buf;
}

// Seed of the goldens: independent of the cases' own seeds.
constexpr uint64_t kGoldenSeed = 1000003;

// --update-goldens: each case rendered by every rank in turn; rank 0 writes its mean and variance.
int update_goldens(const mpi::Context& ctx, const RegressArgs& a, const std::vector<std::string>& names) {
  mpi::RenderJob job;
  job.threads = resolve_threads(ctx, a.threads);
  job.outputs.variance = true;
  for (const std::string& name : names) {
    const std::string golden = (fs::path(a.dir) / "golden" / name).string();
    Scene scene;
    mpi::Status status = mpi::agree_on(ctx, [&] {
      scene = load_scene((fs::path(a.dir) / "cases" / (name + ".json")).string(),
                         {"render.spp=" + std::to_string(a.golden_spp), "render.seed=" + std::to_string(kGoldenSeed)});
      if (ctx.is_root()) check_outputs({{"golden", golden + ".exr"}, {"golden variance", golden + ".var.exr"}});
    });
    if (status.code) return report(ctx, status);
    const double t0 = ctx.seconds();
    Image image = mpi::render_image(ctx, scene, job);
    status = mpi::agree_on(ctx, [&] {
      if (!ctx.is_root()) return;
      write_image(channels_of(image, 0, 3), golden + ".exr");
      write_image(channels_of(image, 3, 3), golden + ".var.exr");
      std::printf("dray regress: wrote %s.exr and .var.exr (%dx%d, %d spp) in %.2f s\n", golden.c_str(), image.width,
                  image.height, a.golden_spp, ctx.seconds() - t0);
    });
    if (status.code) return report(ctx, status);
  }
  return 0;
}

}  // namespace

int run_regress(const mpi::Context& ctx, const RegressArgs& a) {
  std::vector<std::string> names;
  mpi::Status status = mpi::agree_on(ctx, [&] {
    names = list_cases(a.dir, a.cases);
    if (a.update_goldens) return;
    // Every golden must exist before any case is rendered.
    std::string missing;
    int n_missing = 0;
    for (const std::string& n : names)
      for (const char* ext : {".exr", ".var.exr"})
        if (fs::path g = fs::path(a.dir) / "golden" / (n + ext); !fs::exists(g))
          missing += (n_missing++ ? ", " : "") + g.string();
    if (n_missing)
      throw LoadError(a.dir + ": " + std::to_string(n_missing) + " golden image" + (n_missing > 1 ? "s" : "") +
                      " missing (" + missing + "); make them with dray regress " + a.dir + " --update-goldens");
    if (ctx.is_root()) check_outputs({{"--report", (fs::path(a.report) / "report.md").string()}});
  });
  if (status.code) return report(ctx, status);
  if (a.update_goldens) return update_goldens(ctx, a, names);

  const int threads = resolve_threads(ctx, a.threads);
  auto t0 = std::chrono::steady_clock::now();
  json mine = json::array();
  const auto assignment = assign_cases(a.dir, names, ctx.size());
  for (size_t i : assignment[size_t(ctx.rank())]) mine.push_back(run_case(a.dir, names[i], threads, a.z));
  bool all_passed = std::all_of(mine.begin(), mine.end(), [](const json& r) { return r["passed"].get<bool>(); });
  std::vector<std::string> gathered = mpi::gather_strings(ctx, mine.dump());
  all_passed = mpi::all_ranks(ctx, all_passed);
  if (!ctx.is_root()) return all_passed ? 0 : kExitDifferent;

  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<json> results;
  for (const auto& s : gathered)
    for (const auto& r : json::parse(s)) results.push_back(r);
  std::sort(results.begin(), results.end(), [](const json& x, const json& y) { return x["case"] < y["case"]; });
  int failed = 0;
  std::printf("| %-22s | %-34s | %-6s | %7s |\n", "case", "metric", "result", "seconds");
  std::printf("|%s|%s|%s|%s|\n", std::string(24, '-').c_str(), std::string(36, '-').c_str(), std::string(8, '-').c_str(),
              std::string(9, '-').c_str());
  std::string table = "| case | metric | result | seconds |\n|---|---|---|---|\n", failures;
  for (const json& r : results) {
    const std::string name = r["case"], m = metric(r);
    const bool ok = r["passed"];
    failed += !ok;
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", r["seconds"].get<double>());
    std::printf("| %-22s | %-34s | %-6s | %7s |\n", name.c_str(), m.c_str(), ok ? "pass" : "FAIL", secs);
    table += "| " + name + " | " + m + " | " + (ok ? "pass" : "**FAIL**") + " | " + secs + " |\n";
    if (ok) continue;
    failures += "### " + name + "\n\n";
    if (r.contains("error")) {
      failures += "Error: `" + r["error"].get<std::string>() + "`\n\n";
      std::fprintf(stderr, "dray regress: %s: %s\n", name.c_str(), r["error"].get<std::string>().c_str());
      continue;
    }
    std::string png = name + ".heat.png";
    write_image(heatmap(r["pixel_z"].get<std::vector<float>>(), r["width"], r["height"], r["z_critical"].get<float>()),
                (fs::path(a.report) / png).string());
    failures += m + ". Heatmap of |z| (white: |z| >= " + std::to_string(r["z_critical"].get<double>()) +
                ", the Šidák threshold):\n\n![" + name + "](" + png + ")\n\n";
  }
  char summary[160];
  std::snprintf(summary, sizeof summary, "%zu cases, %d failed, %.2f s on %d ranks x %d threads.", results.size(), failed,
                wall, ctx.size(), threads);
  write_text_file(fs::path(a.report) / "report.md", "# dray regression report\n\n" + std::string(summary) + "\n\n" +
                                                       table + "\n" + (failed ? "## Failing cases\n\n" + failures : ""));
  std::printf("dray regress: %s Report: %s\n", summary, (fs::path(a.report) / "report.md").c_str());
  return all_passed ? 0 : kExitDifferent;
}

}  // namespace dray::cli
