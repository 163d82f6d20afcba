// The distributed gradient is bitwise the one-process gradient for any rank count, thread count
// and tile size (DESIGN.md invariant 3), and the loss too.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <numeric>

#include "mpi/errors.h"
#include "mpi/gradient.h"
#include "renderer/integrators/boundary.h"
#include "renderer/integrators/ptracer.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
extern mpi::Context* g_ctx;

TEST_CASE("the gradient over ranks equals the one-process gradient", "[mpi][gradient]") {
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json",
                           {"camera.width=40", "camera.height=24", "render.spp=2"});
  std::vector<Slot> slots;
  for (const auto& p : resolve_scalars(scene.params, {"materials.red.albedo", "lights.key.position", "shapes.mid.center[1]"}))
    slots.push_back(p.slot);
  Image target(40, 24, 3);
  std::fill(target.data.begin(), target.data.end(), 0.3f);
  for (bool independent : {false, true}) {
    const uint64_t adjoint_seed = scene.render.seed + (independent ? 1 : 0);
    std::vector<Tile> tiles = make_tiles(40, 24, 16);
    std::vector<int> all(tiles.size());
    std::iota(all.begin(), all.end(), 0);
    Image primal(40, 24, 3);
    GradientResult one = gradient_tiles(scene, scene.shot(), tiles, all, target, Loss::l2, 3.0 * 40 * 24, slots, 1, primal, adjoint_seed);
    // Plus the boundary term (shapes.mid.center moves a silhouette), every sample in this process,
    // added in integers as the distributed pass adds it.
    std::vector<ad::FixedSum> sums(one.gradient_sums.begin(), one.gradient_sums.end());
    boundary_gradient(scene, scene.shot(), loss_adjoint_image(primal, target, Loss::l2, 3.0 * 40 * 24), slots,
                      default_boundary_samples(scene, Tile{0, 0, 40, 24}), 0, 1, 1, sums);
    bool ok = true;
    // On 1, 2, 3 ranks (the ctest variants) x 1, 2 threads x tiles of 16 and 7 pixels.
    for (int threads : {1, 2})
      for (int tile : {16, 7}) {
        Image gathered;
        mpi::DistributedGradient many = mpi::gradient(*g_ctx, scene, scene.shot(), target, Loss::l2, slots, tile, threads, adjoint_seed, &gathered);
        ok = ok && many.loss == one.loss;
        for (size_t k = 0; k < slots.size(); ++k) ok = ok && many.gradient[k] == sums[k].value();
        if (g_ctx->is_root()) ok = ok && gathered.data == primal.data;  // the image gathered for snapshots
      }
    INFO("ranks " << g_ctx->size() << (independent ? ", independent samples" : ", same samples"));
    REQUIRE(mpi::all_ranks(*g_ctx, ok));
  }
}

TEST_CASE("the particle tracer's gradient over ranks equals the one-process gradient", "[mpi][gradient][ptracer]") {
  // Its image's sums reduced on every rank, its light paths split over ranks for the gradient.
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/lens.json",
                           {"camera.width=20", "camera.height=16", "render.spp=2"});
  std::vector<Slot> slots;
  for (const auto& p : resolve_scalars(scene.params, {"materials.glass.int_ior", "shapes.lens.rotate_z", "shapes.lens.vertices[6,1]"}))
    slots.push_back(p.slot);
  Image target(20, 16, 3);
  std::fill(target.data.begin(), target.data.end(), 0.05f);
  const Tile window{0, 0, 20, 16};
  const long n = particle_count(scene, window);
  Image primal(20, 16, 3);
  write_particle_splat(primal, window, trace_particles(scene, scene.shot(), window, n, 0, 1, 1));
  const double normaliser = 3.0 * 20 * 16;
  ParticleGradient one = particle_gradient(scene, scene.shot(), window, loss_adjoint_image(primal, target, Loss::l2, normaliser),
                                           slots, n, 0, 1, 1);
  fold_lifted(one);
  bool ok = true;
  for (int threads : {1, 2}) {
    Image gathered;
    mpi::DistributedGradient many = mpi::gradient(*g_ctx, scene, scene.shot(), target, Loss::l2, slots, 16, threads, scene.render.seed, &gathered);
    for (size_t k = 0; k < slots.size(); ++k) ok = ok && many.gradient[k] == one.sums[k].value() && one.sums[k].value() != 0.0;
    if (g_ctx->is_root()) ok = ok && gathered.data == primal.data;
  }
  INFO("ranks " << g_ctx->size());
  REQUIRE(mpi::all_ranks(*g_ctx, ok));
}

TEST_CASE("a 1000x1000 texture's gradient (3e6 parameters) over ranks is bitwise the one-process gradient", "[mpi][gradient]") {
  // A parameter block large enough for the shared, sparsely staged accumulators.
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/bench-texture-1m.json",
                           {"camera.width=48", "camera.height=32", "render.spp=1"});
  const ParamEntry block = *scene.params.find("textures.albedo.data");
  std::vector<Slot> slots(block.size);
  std::iota(slots.begin(), slots.end(), block.slot);
  Image target(48, 32, 3);
  std::fill(target.data.begin(), target.data.end(), 0.3f);
  std::vector<Tile> tiles = make_tiles(48, 32, 16);
  std::vector<int> all(tiles.size());
  std::iota(all.begin(), all.end(), 0);
  Image primal(48, 32, 3);
  const GradientResult one = gradient_tiles(scene, scene.shot(), tiles, all, target, Loss::l2, 3.0 * 48 * 32, slots, 1, primal, 7);
  long nonzero = 0;
  for (const ad::FixedSum& g : one.gradient_sums) nonzero += g.bits != 0;
  bool ok = nonzero > 1000;  // the texels the camera sees
  for (int threads : {1, 2})
    for (int tile : {16, 7}) {
      mpi::DistributedGradient many = mpi::gradient(*g_ctx, scene, scene.shot(), target, Loss::l2, slots, tile, threads, 7, nullptr);
      ok = ok && many.loss == one.loss;
      for (size_t k = 0; k < slots.size(); ++k) ok = ok && many.gradient[k] == one.gradient_sums[k].value();
    }
  INFO("ranks " << g_ctx->size() << ", texels with a gradient " << nonzero);
  REQUIRE(mpi::all_ranks(*g_ctx, ok));
}

TEST_CASE("an exception in one rank's gradient kernel ends the pass on every rank with one status", "[mpi][gradient]") {
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json",
                           {"camera.width=40", "camera.height=24", "render.spp=1"});
  std::vector<Slot> slots = {resolve_scalars(scene.params, {"materials.red.albedo[0]"}).at(0).slot};
  Image target(40, 24, 3);
  // The last of the 6 tiles of 16 pixels: rank 2 with 3 ranks, rank 1 with 2, rank 0 alone.
  setenv("DRAY_FAULT_TILE", "5", 1);
  mpi::Status st;
  try {
    mpi::gradient(*g_ctx, scene, scene.shot(), target, Loss::l2, slots, 16, 2, scene.render.seed);
  } catch (const mpi::AgreedError& e) {
    st = e.status;
  }
  unsetenv("DRAY_FAULT_TILE");
  const std::string expected = "internal error on rank " + std::to_string(5 % g_ctx->size()) + ": injected fault in tile 5 (DRAY_FAULT_TILE)";
  INFO("rank " << g_ctx->rank() << ": code " << st.code << ", " << st.message);
  REQUIRE(mpi::all_ranks(*g_ctx, st.code == 3 && st.message == expected));
}
