// dray mitsuba-suite: Mitsuba 3's render tests (the mitsuba-data layout) against Mitsuba's own
// references and its test statistic (renderer/image/mitsuba_test.h), one line per scene.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "mpi/tiles.h"
#include "renderer/image/colormap.h"
#include "renderer/image/mitsuba_test.h"
#include "renderer/io/scene_loader.h"
#include "tools/cli.h"

namespace fs = std::filesystem;

namespace dray::cli {

CLI::App* add_mitsuba_suite_command(CLI::App& app, MitsubaSuiteArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "mitsuba-suite", "Render Mitsuba 3's render-test scenes (DIR/tests/scenes/*/NAME_INTEGRATOR.xml, with "
                       "refs/NAME_ref_rgb.exr and _var.exr) at Mitsuba's sample budget and seed 0, and judge each "
                       "by Mitsuba's test; exit 1 if any fails");
  cmd->add_option("DIR", a.dir, "A mitsuba-data checkout (or ../shared/mitsuba-data)")->required();
  cmd->add_option("--scene", a.scenes, "Only this scene: FOLDER/NAME_INTEGRATOR, or a part of it (repeatable)");
  cmd->add_option("-o,--output", a.output, "Folder for each scene's image (NAME.exr, NAME.png), Mitsuba's reference (NAME-ref.png) and the error map "
                                       "(NAME-error.png: white where a pixel fails)")
      ->capture_default_str();
  cmd->add_option("--budget", a.budget, "Samples per image: spp = budget / pixels (Mitsuba's test: 2,000,000)")
      ->check(whole_number(1))
      ->capture_default_str();
  add_threads_option(cmd, a.threads);
  return cmd;
}

namespace {

struct SuiteScene {
  std::string id;  // FOLDER/NAME_INTEGRATOR (NAME: test_… in all but infinite_mirrors/scene)
  fs::path xml, ref, var;
  std::string integrator;
};

// Every NAME_INTEGRATOR.xml of a scene folder with both reference files, sorted by id: as
// test_renders.py, the integrator is what follows the name's last '_', and the references are
// refs/NAME_ref_rgb.exr and its _var.exr (test_spot_direct.xml, infinite_mirrors/scene_path.xml).
std::vector<SuiteScene> find_scenes(const fs::path& dir) {
  const fs::path root = dir / "tests" / "scenes";
  if (!fs::is_directory(root)) throw LoadError(dir.string() + ": no tests/scenes folder (not a mitsuba-data checkout)");
  const std::vector<std::string> integrators = {"path", "direct", "volpath", "volpathmis", "prb", "ptracer"};
  std::vector<SuiteScene> out;
  for (const fs::directory_entry& folder : fs::directory_iterator(root)) {
    if (!folder.is_directory()) continue;
    for (const fs::directory_entry& f : fs::directory_iterator(folder.path())) {
      if (f.path().extension() != ".xml") continue;
      const std::string stem = f.path().stem().string();
      const size_t cut = stem.rfind('_');
      if (cut == std::string::npos || cut == 0) continue;
      const std::string name = stem.substr(0, cut), integrator = stem.substr(cut + 1);
      if (std::find(integrators.begin(), integrators.end(), integrator) == integrators.end()) continue;
      const fs::path refs = folder.path() / "refs";
      SuiteScene s{folder.path().filename().string() + "/" + stem, f.path(), refs / (name + "_ref_rgb.exr"),
                   refs / (name + "_ref_rgb_var.exr"), integrator};
      if (fs::exists(s.ref) && fs::exists(s.var)) out.push_back(s);
    }
  }
  std::sort(out.begin(), out.end(), [](const SuiteScene& a, const SuiteScene& b) { return a.id < b.id; });
  return out;
}

bool selected(const SuiteScene& s, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  for (const std::string& o : only)
    if (s.id == o || s.id.find(o) != std::string::npos) return true;
  return false;
}

// The first line of an error message (the loader's errors are one line; keep the suite's table
// readable for the others).
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

int run_mitsuba_suite(const mpi::Context& ctx, const MitsubaSuiteArgs& a) {
  std::vector<SuiteScene> scenes;
  mpi::Status status = mpi::agree_on(ctx, [&] {
    scenes = find_scenes(a.dir);
    std::vector<SuiteScene> picked;
    for (const SuiteScene& s : scenes)
      if (selected(s, a.scenes)) picked.push_back(s);
    if (picked.empty())
      throw LoadError(a.dir + ": no scene with references" + (a.scenes.empty() ? std::string() : " matches --scene"));
    scenes = picked;
    if (ctx.is_root()) fs::create_directories(a.output);
  });
  if (status.code) return report(ctx, status);
  const int threads = resolve_threads(ctx, a.threads);
  int passed = 0;
  const double t_all = ctx.seconds();
  for (const SuiteScene& s : scenes) {
    Scene scene;
    Image ref, var;
    int spp = 0;
    status = mpi::agree_on(ctx, [&] {
      ref = read_image(s.ref.string());
      var = read_image(s.var.string());
      if (var.width != ref.width || var.height != ref.height) throw LoadError(s.var.string() + ": not the reference's size");
      spp = std::max(1, int(a.budget / (long(ref.width) * ref.height)));
      // As test_renders.py: load_file(scene, spp=spp, integrator=INTEGRATOR), render(seed=0, spp=spp).
      scene = load_scene(s.xml.string(), {"render.spp=" + std::to_string(spp), "render.seed=0"}, true,
                         {{"spp", std::to_string(spp)}, {"integrator", s.integrator}});
      if (scene.own_camera().width != ref.width || scene.own_camera().height != ref.height)
        throw LoadError("the film is " + std::to_string(scene.own_camera().width) + "x" + std::to_string(scene.own_camera().height) +
                        ", the reference " + std::to_string(ref.width) + "x" + std::to_string(ref.height));
    });
    if (status.code) {
      if (ctx.is_root()) std::printf("FAIL  %-58s cannot render: %s\n", s.id.c_str(), first_line(status.message).c_str());
      std::fflush(stdout);
      continue;
    }
    mpi::RenderJob job;
    job.threads = threads;
    const double t0 = ctx.seconds();
    const Image image = channels_of(mpi::render_image(ctx, scene, job, nullptr), 0, 3);
    const double secs = ctx.seconds() - t0;
    const MitsubaTestResult r = mitsuba_test(image, spp, ref, var);
    passed += r.passed;
    const std::string stem = (fs::path(a.output) / fs::path(s.id).filename()).string();
    status = mpi::agree_on(ctx, [&] {
      if (!ctx.is_root()) return;
      write_image(image, stem + ".exr");
      write_image(image, stem + ".png");
      write_image(ref, stem + "-ref.png");
      // White: a pixel with a failing channel value; below that, the largest z up to 6 in the lower half.
      std::vector<float> shown(r.pixel_z);
      for (size_t i = 0; i < shown.size(); ++i) shown[i] = r.pixel_fail[i] > 0.f ? 1.f : 0.5f * std::min(1.f, shown[i] / 6.f);
      write_image(heatmap(shown, image.width, image.height, 1.f), stem + "-error.png");
    });
    if (ctx.is_root()) {
      if (r.passed)
        std::printf("pass  %-58s %.3f%% of channel values fail (%dx%d, %d spp, %.1f s)\n", s.id.c_str(), 100 * r.fail_share,
                    image.width, image.height, spp, secs);
      else
        std::printf("FAIL  %-58s %.3f%% of channel values fail (allowed 0.25%%), worst at (%d, %d) p = %.2g; %s-error.png\n",
                    s.id.c_str(), 100 * r.fail_share, r.worst_x, r.worst_y, r.min_p, stem.c_str());
      std::fflush(stdout);
    }
    if (status.code) return report(ctx, status);
  }
  if (ctx.is_root())
    std::printf("dray mitsuba-suite: %d of %zu scenes pass (%.0f s, %d ranks x %d threads)\n", passed, scenes.size(),
                ctx.seconds() - t_all, ctx.size(), threads);
  return passed == int(scenes.size()) ? 0 : kExitDifferent;
}

}  // namespace dray::cli
