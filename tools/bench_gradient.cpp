// dray-bench-gradient: the gradient pass with every parameter of a scene active, against a plain
// render of the same image (median of repeated runs), and the process's peak memory.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

#include <CLI/CLI.hpp>

#include "renderer/integrators/gradient_tiles.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  CLI::App app{"Gradient pass vs primal render"};
  std::string scene_path = "scenes/cornell-box.json";
  int width = 64, height = 64, spp = 8, threads = 1, repeats = 3;
  bool gradient_only = false, primal_only = false, whole_path = false, same_samples = false, appearance = false, one_type = false,
       no_flight_log = false;
  std::vector<std::string> wrt;
  app.add_option("SCENE", scene_path, "Scene file");
  app.add_option("--width", width, "Image width");
  app.add_option("--height", height, "Image height");
  app.add_option("--spp", spp, "Samples per pixel");
  app.add_option("--threads", threads, "Threads");
  app.add_option("--repeats", repeats, "Timed runs (median reported)");
  app.add_flag("--gradient-only", gradient_only, "Only run the gradient pass once (for peak-memory measurements)");
  app.add_flag("--primal-only", primal_only, "Only render once (the primal's peak memory)");
  app.add_flag("--whole-path-tape", whole_path, "The reference adjoint (one whole-path tape per sample) instead of path replay");
  app.add_flag("--no-flight-log", no_flight_log, "Track medium flights again at replay instead of reading the float pass's flight log");
  app.add_flag("--one-type", one_type, "Replay with geometry in the adjoint type even where no geometry is differentiated (the two-type kernel's reference)");
  app.add_flag("--same-samples", same_samples, "Adjoint with the primal's samples (replays its recorded paths) instead of independent ones");
  app.add_flag("--appearance", appearance,
               "Differentiate appearance only: every material and texture parameter but IORs (colours, textures, roughness, "
               "emission, opacity, conductors' eta and k)");
  app.add_option("--wrt", wrt, "Parameters to differentiate (names or blocks, as dray params lists them; default: all)");
  CLI11_PARSE(app, argc, argv);

  Scene scene = load_scene(scene_path, {"camera.width=" + std::to_string(width), "camera.height=" + std::to_string(height),
                                        "render.spp=" + std::to_string(spp)});
  std::vector<Slot> all;
  auto appearance_param = [](const std::string& name) {
    const bool ior = name.size() > 4 && name.compare(name.size() - 4, 4, "_ior") == 0;
    return (name.rfind("materials.", 0) == 0 || name.rfind("textures.", 0) == 0) && !ior;
  };
  if (appearance) {
    for (const ParamEntry& e : scene.params.entries())
      if (appearance_param(e.name))
        for (uint32_t i = 0; i < e.size; ++i) all.push_back(e.slot + i);
  } else if (wrt.empty()) {
    all.resize(scene.params.values().size());
    std::iota(all.begin(), all.end(), Slot(0));
  } else {
    for (const std::string& name : wrt) {
      // A whole block by its slots: millions of element names would weigh more than the pass.
      if (auto e = scene.params.find(name); e && e->block()) {
        for (uint32_t i = 0; i < e->size; ++i) all.push_back(e->slot + i);
        continue;
      }
      for (const ScalarParam& p : resolve_scalars(scene.params, {name})) all.push_back(p.slot);
    }
  }
  auto mode = [&](bool plain) {
    GradientMode m{plain, whole_path};
    m.one_type = one_type;
    m.flight_log = !no_flight_log;
    m.sums_only = !plain;  // as the MPI pipeline: the exact sums, reduced without their doubles
    return m;
  };
  const uint64_t adjoint_seed = same_samples ? scene.render.seed : scene.render.seed + 1;
  std::vector<Tile> tiles = make_tiles(width, height, 16);
  std::vector<int> ids(tiles.size());
  std::iota(ids.begin(), ids.end(), 0);
  Image target(width, height, 3), img(width, height, 3);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto time = [&](auto&& f) {
    std::vector<double> t;
    for (int i = 0; i < (gradient_only ? 1 : repeats); ++i) {
      auto t0 = Clock::now();
      f();
      t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return median(t);
  };
  if (primal_only) {
    const double primal = time([&] { render_tiles(scene, scene.shot(), tiles, ids, img, threads); });
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("%dx%d, %d spp: primal %.3f s, peak RSS %ld KB\n", width, height, spp, primal, ru.ru_maxrss);
    return 0;
  }
  double grad = time([&] { gradient_tiles(scene, scene.shot(), tiles, ids, target, Loss::l2, 3.0 * width * height, all, threads, img, adjoint_seed, mode(false)); });
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  if (gradient_only) {
    std::printf("%dx%d, %d spp, %zu parameters: gradient pass %.3f s, peak RSS %ld KB\n", width, height, spp, all.size(), grad,
                ru.ru_maxrss);
    return 0;
  }
  double primal = time([&] { render_tiles(scene, scene.shot(), tiles, ids, img, threads); });
  // The same pass summing in plain doubles: what the exact fixed-point sums cost.
  double plain = time([&] { gradient_tiles(scene, scene.shot(), tiles, ids, target, Loss::l2, 3.0 * width * height, all, threads, img, adjoint_seed, mode(true)); });
  std::printf("exact sums: %.3f s against plain double sums %.3f s: exact/plain %.3fx\n", grad, plain, grad / plain);
  std::printf("%s %dx%d, %d spp, %d thread(s): primal %.3f s, gradient pass with %zu parameters %.3f s: %.2fx\n",
              scene_path.c_str(), width, height, spp, threads, primal, all.size(), grad, grad / primal);
  return 0;
}
