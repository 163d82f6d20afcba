// Path replay (renderer/integrators/prb.h) against the reference adjoint, one whole-path tape per sample:
// the same gradient for every parameter of every example scene, with the primal's samples and
// with independent ones; bitwise the same whatever the recording bound.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "renderer/integrators/gradient_tiles.h"
#include "renderer/io/scene_loader.h"

using namespace dray;

namespace {

const std::string kScenes = std::string(DRAY_SOURCE_DIR) + "/scenes";

struct Pass {
  Scene scene;
  std::vector<Tile> tiles;
  std::vector<int> ids;
  std::vector<Slot> all;  // every parameter
  Image target;

  explicit Pass(const std::string& file, int w = 16, int h = 12, int spp = 2)
      : scene(load_scene(kScenes + "/" + file, {"camera.width=" + std::to_string(w), "camera.height=" + std::to_string(h),
                                                "render.spp=" + std::to_string(spp)})),
        tiles(make_tiles(w, h, 8)),
        ids(tiles.size()),
        all(scene.params.values().size()),
        target(w, h, 3) {
    std::iota(ids.begin(), ids.end(), 0);
    std::iota(all.begin(), all.end(), Slot(0));
    for (float& v : target.data) v = 0.25f;  // a grey target: every pixel's loss has a slope
  }
  GradientResult run(bool same_samples, GradientMode mode) const {
    Image primal(target.width, target.height, 3);
    return gradient_tiles(scene, scene.shot(), tiles, ids, target, Loss::l2, 3.0 * target.width * target.height, all, 2, primal,
                          same_samples ? scene.render.seed : scene.render.seed + 1, mode);
  }
};

}  // namespace

TEST_CASE("path replay equals the whole-path tape for every parameter of every example scene", "[prb]") {
  const char* files[] = {"spheres.json",   "cornell-box.json",   "bunny.json",     "cbox-fit.json",
                         "glow-fit.json",  "light-fit.json",     "pose-fit.json",  "shadow-fit.json",
                         "materials.json", "roughness-fit.json", "texture-fit.json", "fog.json",
                         "smoke.json"};
  for (const char* file : files)
    for (bool same : {true, false}) {
      const Pass p(file);
      const GradientResult replay = p.run(same, {}), reference = p.run(same, GradientMode{false, true});
      REQUIRE(replay.gradient.size() == reference.gradient.size());
      CHECK(replay.loss == reference.loss);  // the same primal pass
      CHECK(replay.dropped_samples == reference.dropped_samples);
      // Rounding differs (adjoints summed per vertex, not over the whole path): 1e-5 of each
      // derivative, and where a derivative's terms cancel, 1e-5 of the largest derivative of its
      // scene (the size of the terms' rounding).
      double largest = 0;
      for (double g : reference.gradient) largest = std::max(largest, std::fabs(g));
      size_t nonzero = 0;
      for (size_t k = 0; k < reference.gradient.size(); ++k) {
        INFO(file << (same ? " (same samples) " : " (independent samples) ") << p.scene.params.entries().size()
                  << " entries, slot " << k);
        CHECK(replay.gradient[k] == Approx(reference.gradient[k]).epsilon(1e-5).margin(1e-5 * largest + 1e-12));
        nonzero += reference.gradient[k] != 0.0;
      }
      CHECK(nonzero > 0);
    }
}

TEST_CASE("path replay is bitwise the same with medium flights read from the log or tracked again", "[prb]") {
  for (const char* file : {"smoke.json", "fog.json"}) {
    const Pass p(file, 16, 12, 4);
    GradientMode live, retraced;
    live.flight_log = false;
    retraced.record_vertices = 5;  // most paths traced again, their flights logged at that time
    const GradientResult logged = p.run(true, {}), tracked = p.run(true, live), again = p.run(true, retraced);
    INFO(file);
    CHECK(logged.gradient == tracked.gradient);
    CHECK(logged.gradient == again.gradient);
    CHECK(logged.loss == tracked.loss);
  }
}

TEST_CASE("path replay is bitwise the same whether paths are recorded or traced again", "[prb]") {
  const Pass p("spheres.json", 16, 12, 4);
  GradientMode none, some;
  none.record_vertices = 0;  // every path traced again at replay
  some.record_vertices = 7;  // a few samples recorded, the rest traced again
  const GradientResult all = p.run(true, {}), a = p.run(true, none), b = p.run(true, some);
  CHECK(all.gradient == a.gradient);
  CHECK(all.gradient == b.gradient);
}
