#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "mpi/errors.h"
#include "mpi/tiles.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
extern mpi::Context* g_ctx;

TEST_CASE("static interleaved distribution covers every tile exactly once", "[mpi][tiles]") {
  for (int size = 1; size <= 5; ++size)
    for (int n : {0, 1, 7, 64}) {
      std::multiset<int> seen;
      for (int r = 0; r < size; ++r)
        for (int id : mpi::static_tiles(n, r, size)) seen.insert(id);
      REQUIRE(int(seen.size()) == n);
      for (int i = 0; i < n; ++i) REQUIRE(seen.count(i) == 1);
    }
  CHECK(mpi::static_tiles(10, 1, 3) == std::vector<int>{1, 4, 7});
}

TEST_CASE("the assembled image and its derivatives are bitwise the single-process ones", "[mpi][tiles]") {
  // A mesh, spheres, quads, every light type: small and quick; with the box filter, and with the
  // splatting film (Mitsuba's), whose tiles render their neighbours' samples again.
  const bool splat = GENERATE(false, true);
  std::vector<std::string> sets = {"camera.width=70", "camera.height=45", "render.spp=3"};
  if (splat) sets.insert(sets.end(), {"render.filter=\"gaussian\"", "render.splat=true"});
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json", sets);
  REQUIRE(scene.render.splat == splat);
  // Reference: this process alone, one thread, every tile.
  std::vector<Tile> tiles = make_tiles(70, 45, 8);
  std::vector<int> all(tiles.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = int(i);
  Image reference(70, 45);
  render_tiles(scene, scene.shot(), tiles, all, reference, 1);

  // With derivative channels (3 scalars: one Dual<4> pass) and the variance travelling too.
  RenderOutputs outputs;
  outputs.variance = true;
  for (const char* p : {"materials.red.albedo[0]", "lights.key.position[1]", "shapes.mid.center[2]"})
    outputs.wrt.push_back(resolve_scalars(scene.params, {p}).at(0).slot);
  // render_local adds the boundary term (shapes.mid.center moves an edge) from every sample.
  Image reference_d = render_local(scene, 1, outputs);

  for (auto dist : {mpi::Distribution::static_interleaved, mpi::Distribution::dynamic})
    for (int threads : {1, 2})
      for (int tile : {5, 16}) {
        mpi::RenderJob job;
        job.tile_size = tile;
        job.threads = threads;
        job.distribution = dist;
        Image img = mpi::render_image(*g_ctx, scene, job);
        job.outputs = outputs;
        Image img_d = mpi::render_image(*g_ctx, scene, job);
        bool same = !g_ctx->is_root() || (img.data == reference.data && img_d.data == reference_d.data);
        INFO("ranks " << g_ctx->size() << ", threads " << threads << ", tile " << tile << ", splat " << splat << ", "
                      << (dist == mpi::Distribution::dynamic ? "dynamic" : "static"));
        REQUIRE(mpi::all_ranks(*g_ctx, same));
      }
}

TEST_CASE("an exception in one rank's kernel ends the render on every rank with one status", "[mpi][tiles]") {
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json",
                           {"camera.width=40", "camera.height=24", "render.spp=1"});
  // Tile 1 of 15 belongs to rank 1 under static distribution (rank 0 with one rank); under
  // dynamic, to whichever rank fetches it.
  setenv("DRAY_FAULT_TILE", "1", 1);
  for (auto dist : {mpi::Distribution::static_interleaved, mpi::Distribution::dynamic})
    for (int threads : {1, 2}) {
      mpi::RenderJob job;
      job.tile_size = 8;
      job.threads = threads;
      job.distribution = dist;
      mpi::Status st;
      try {
        mpi::render_image(*g_ctx, scene, job);
      } catch (const mpi::AgreedError& e) {
        st = e.status;
      }
      INFO("rank " << g_ctx->rank() << ": code " << st.code << ", " << st.message);
      const bool agreed = st.code == 3 && st.message.find("injected fault in tile 1") != std::string::npos;
      REQUIRE(mpi::all_ranks(*g_ctx, agreed));
      const std::string expected_rank = g_ctx->size() == 1 || dist == mpi::Distribution::dynamic ? "" : "rank 1:";
      REQUIRE(mpi::all_ranks(*g_ctx, st.message.find(expected_rank) != std::string::npos));
    }
  unsetenv("DRAY_FAULT_TILE");
  // And the next render works again on every rank.
  Image img = mpi::render_image(*g_ctx, scene, mpi::RenderJob{});
  REQUIRE(mpi::all_ranks(*g_ctx, img.width == 40));
}

TEST_CASE("non-finite samples are dropped, counted over all ranks, and never reach the image", "[mpi][tiles]") {
  // A sky at the top of float's range: paths that see it through a BSDF overflow to Inf.
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json",
                           {"camera.width=40", "camera.height=24", "render.spp=2", "lights.sky.radiance=3.4e38"});
  std::vector<Tile> tiles = make_tiles(40, 24, 8);
  std::vector<int> all(tiles.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = int(i);
  RenderOutputs outputs;
  outputs.variance = true;
  outputs.wrt.push_back(resolve_scalars(scene.params, {"lights.sky.radiance[0]"}).at(0).slot);
  Image reference(40, 24, outputs.channels());
  const long expected = render_tiles(scene, scene.shot(), tiles, all, reference, 1, outputs);
  REQUIRE(expected > 0);
  mpi::RenderJob job;
  job.tile_size = 8;
  job.outputs = outputs;
  mpi::RenderStats stats;
  Image img = mpi::render_image(*g_ctx, scene, job, &stats);
  bool finite = std::all_of(img.data.begin(), img.data.end(), [](float v) { return std::isfinite(v); });
  INFO("rank " << g_ctx->rank() << ": " << stats.nonfinite_samples << " dropped, expected " << expected);
  REQUIRE(mpi::all_ranks(*g_ctx, finite && stats.nonfinite_samples == expected));
  REQUIRE(mpi::all_ranks(*g_ctx, !g_ctx->is_root() || img.data == reference.data));
}

TEST_CASE("a crop is bitwise the same window of the full image; tiles shrink so every rank has work", "[mpi][tiles]") {
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json",
                           {"camera.width=40", "camera.height=30", "render.spp=2"});
  const Image full = render_local(scene, 1, RenderOutputs{true, {}});
  for (auto dist : {mpi::Distribution::static_interleaved, mpi::Distribution::dynamic}) {
    mpi::RenderJob job;
    job.distribution = dist;
    job.outputs.variance = true;
    job.crop = Tile{7, 5, 29, 18};
    Image img = mpi::render_image(*g_ctx, scene, job);
    bool same = true;
    if (g_ctx->is_root())
      for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 40; ++x) {
          const bool inside = x >= 7 && x < 29 && y >= 5 && y < 18;
          for (int c = 0; c < 6; ++c)
            same = same && img.pixel(x, y)[c] == (inside ? full.pixel(x, y)[c] : 0.f);
        }
    REQUIRE(mpi::all_ranks(*g_ctx, same));
  }
  // A 16x16 window is one 16-pixel tile: cut smaller so that each of 3 ranks gets some.
  CHECK(fit_tile_size(Tile{0, 0, 16, 16}, 16, 1) == 16);
  CHECK(fit_tile_size(Tile{0, 0, 16, 16}, 16, 2) == 8);
  CHECK(fit_tile_size(Tile{0, 0, 16, 16}, 16, 6) == 4);
  CHECK(fit_tile_size(Tile{0, 0, 1, 1}, 16, 8) == 1);
}
