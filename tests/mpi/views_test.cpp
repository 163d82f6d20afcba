// View groups: the layout chosen for ranks and views, groups as contexts of their own, and the
// multi-view gradient bitwise the same for every group layout (and the one-group pass), with a
// failure in one group agreed by every rank.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>

#include "mpi/collectives.h"
#include "mpi/errors.h"
#include "mpi/gradient.h"
#include "mpi/views.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
extern mpi::Context* g_ctx;

namespace {

// The spheres at 24x16, 2 spp, and two of its parameters: a colour and a position that moves
// silhouettes (the boundary term is on).
Scene small_spheres() {
  return load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json", {"camera.width=24", "camera.height=16", "render.spp=2"});
}
std::vector<Slot> sphere_slots(const Scene& scene) {
  std::vector<Slot> slots;
  for (const auto& p : resolve_scalars(scene.params, {"materials.red.albedo", "shapes.mid.center[1]"})) slots.push_back(p.slot);
  return slots;
}

}  // namespace

TEST_CASE("view groups: the busiest group's views per rank is least, ties to more groups", "[mpi][views]") {
  // Every layout from 1 to 6 ranks and 1 to 10 views: no other group count has a less busy
  // group, and on a tie none with more groups.
  for (int ranks = 1; ranks <= 6; ++ranks)
    for (int views = 1; views <= 10; ++views) {
      auto load = [&](int g) {
        double worst = 0;
        for (int j = 0; j < g; ++j)
          worst = std::max(worst, double(views / g + (j < views % g)) / double(ranks / g + (j < ranks % g)));
        return worst;
      };
      const int g = mpi::choose_view_groups(ranks, views);
      INFO(ranks << " ranks, " << views << " views: " << g << " groups");
      REQUIRE(g >= 1);
      REQUIRE(g <= std::min(ranks, views));
      for (int other = 1; other <= std::min(ranks, views); ++other) {
        CHECK(load(other) >= load(g));
        if (other > g) CHECK(load(other) > load(g));
      }
    }
  CHECK(mpi::choose_view_groups(2, 8) == 2);  // 4 views per rank either way: 2 groups of 1
  CHECK(mpi::choose_view_groups(3, 8) == 1);  // 8/3 per rank in one group; 3 groups: 3 views on one rank
  CHECK(mpi::choose_view_groups(6, 3) == 3);  // more ranks than views: a group of 2 ranks per view
  CHECK(mpi::choose_view_groups(4, 1) == 1);
}

TEST_CASE("view groups are contexts of their own ranks", "[mpi][views]") {
  const mpi::Context& ctx = *g_ctx;
  bool ok = true;
  for (int count = 1; count <= ctx.size(); ++count) {
    const mpi::ViewGroups g = mpi::make_view_groups(ctx, count);
    const int expected_size = ctx.size() / count + (g.index < ctx.size() % count ? 1 : 0);
    ok = ok && g.count == count && g.index == ctx.rank() % count && g.group.size() == expected_size &&
         g.group.rank() == ctx.rank() / count;
    // A sum within the group adds its members' world ranks only.
    std::vector<double> v{double(ctx.rank())};
    mpi::allreduce_sum(g.group, v);
    double expected = 0;
    for (int r = g.index; r < ctx.size(); r += count) expected += r;
    ok = ok && v[0] == expected;
  }
  REQUIRE(mpi::all_ranks(ctx, ok));
}

TEST_CASE("a multi-view gradient is bitwise the same for every group layout", "[mpi][views]") {
  const mpi::Context& ctx = *g_ctx;
  Scene scene = small_spheres();
  const std::vector<Slot> slots = sphere_slots(scene);
  // Three views: the scene's camera, one moved aside and one wider and weighed double (sensors of
  // the scene).
  CameraSettings a = camera_settings(scene), b = a, c = a;
  b.origin.x += 0.7f;
  c.value("fov_y") *= 1.3f;
  c.width = 20;
  const int sb = add_sensor(scene, "aside", b), sc = add_sensor(scene, "wide", c);
  Image target(24, 16, 3), target_c(20, 16, 3);
  std::fill(target.data.begin(), target.data.end(), 0.3f);
  std::fill(target_c.data.begin(), target_c.data.end(), 0.2f);
  const std::vector<mpi::ViewPass> views{{0, &target, 1.0, 5, 6}, {sb, &target, 1.0, 7, 8}, {sc, &target_c, 2.0, 9, 10}};
  // The reference: one group of every rank.
  const mpi::DistributedGradient ref = mpi::gradient(ctx, mpi::make_view_groups(ctx, 1), scene, views, Loss::l2, slots, 8, 1);
  bool ok = ref.loss > 0 && std::any_of(ref.gradient.begin(), ref.gradient.end(), [](double g) { return g != 0; });
  for (int count = 2; count <= ctx.size(); ++count) {
    const mpi::DistributedGradient g = mpi::gradient(ctx, mpi::make_view_groups(ctx, count), scene, views, Loss::l2, slots, 8, 1);
    ok = ok && g.loss == ref.loss && g.gradient == ref.gradient;
  }
  // The scene's sensor selection is back, and no camera moved.
  ok = ok && scene.sensor == 0 && camera_settings(scene) == a && camera_settings(scene, sb) == b;
  INFO(ctx.size() << " ranks");
  REQUIRE(mpi::all_ranks(ctx, ok));
}

TEST_CASE("a failure in one view group ends the pass on every rank with one agreed error", "[mpi][views]") {
  const mpi::Context& ctx = *g_ctx;
  Scene scene = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json",
                           {"camera.width=16", "camera.height=8", "render.spp=1"});
  std::vector<Slot> slots{resolve_scalars(scene.params, {"materials.red.albedo"})[0].slot};
  Image target(16, 8, 3);
  CameraSettings b = camera_settings(scene);
  b.width = 64, b.height = 32;
  const int sb = add_sensor(scene, "large", b);
  Image target_b(64, 32, 3);
  // Two views; tile 20 fails (DRAY_FAULT_TILE): only the larger view has one, so that with two
  // groups one fails and the other does not.
  const std::vector<mpi::ViewPass> views{{0, &target, 1.0, 1, 2}, {sb, &target_b, 1.0, 3, 4}};
  setenv("DRAY_FAULT_TILE", "20", 1);
  int code = 0;
  try {
    mpi::gradient(ctx, mpi::make_view_groups(ctx, std::min(2, ctx.size())), scene, views, Loss::l2, slots, 8, 1);
  } catch (const mpi::AgreedError& e) {
    code = e.status.code;
  }
  unsetenv("DRAY_FAULT_TILE");
  REQUIRE(mpi::all_ranks(ctx, code == 3));
}

TEST_CASE("a view's mask weighs its pixels: masked-out pixels do not count, a white mask changes nothing", "[mpi][views]") {
  const mpi::Context& ctx = *g_ctx;
  Scene scene = small_spheres();
  const std::vector<Slot> slots = sphere_slots(scene);
  Image target(24, 16, 3), other(24, 16, 3), white(24, 16, 3), left(24, 16, 3);
  std::fill(target.data.begin(), target.data.end(), 0.3f);
  std::fill(white.data.begin(), white.data.end(), 1.f);
  other = target;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 24; ++x) {
      for (int c = 0; c < 3; ++c) left.pixel(x, y)[c] = x < 12 ? 1.f : 0.f;
      if (x >= 12)
        for (int c = 0; c < 3; ++c) other.pixel(x, y)[c] = 5.f;  // differs where the mask is black
    }
  const mpi::ViewGroups groups = mpi::make_view_groups(ctx, 1);
  auto pass = [&](const Image& t, const Image* mask) {
    const std::vector<mpi::ViewPass> v{{0, &t, 1.0, 5, 6, mask}};
    return mpi::gradient(ctx, groups, scene, v, Loss::l2, slots, 8, 1);
  };
  const mpi::DistributedGradient plain = pass(target, nullptr), all = pass(target, &white);
  const mpi::DistributedGradient half = pass(target, &left), half_other = pass(other, &left);
  bool ok = all.loss == plain.loss && all.gradient == plain.gradient;              // white: nothing changes
  ok = ok && half_other.loss == half.loss && half_other.gradient == half.gradient;  // black pixels do not count
  ok = ok && half.loss != plain.loss;
  INFO(ctx.size() << " ranks: loss " << plain.loss << ", left half " << half.loss);
  REQUIRE(mpi::all_ranks(ctx, ok));
}

TEST_CASE("a single view renders with the scene's camera as it stands: a job may optimise it", "[mpi][views]") {
  const mpi::Context& ctx = *g_ctx;
  Scene scene = small_spheres();
  std::vector<Slot> slots = sphere_slots(scene);
  slots.push_back(resolve_scalars(scene.params, {"camera.fov_y"})[0].slot);
  scene.params.set(slots.back(), 47.f);  // an optimiser's step moved the camera
  scene.render.seed = 5;
  Image target(24, 16, 3);
  std::fill(target.data.begin(), target.data.end(), 0.3f);
  const mpi::DistributedGradient ref = mpi::gradient(ctx, scene, scene.shot(), target, Loss::l2, slots, 8, 1, 6);
  const std::vector<mpi::ViewPass> v{{0, &target, 1.0, 5, 6}};
  const mpi::DistributedGradient g = mpi::gradient(ctx, mpi::make_view_groups(ctx, 1), scene, v, Loss::l2, slots, 8, 1);
  REQUIRE(mpi::all_ranks(ctx, g.loss == ref.loss && g.gradient == ref.gradient && scene.params.get(slots.back()) == 47.f));
}
