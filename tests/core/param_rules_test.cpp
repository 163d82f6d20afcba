// The parameters' rules (renderer/core/param_domain.h, renderer/scene_params.h): domains, their
// wording and projection; updates by name, all or nothing; the rules between values.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "renderer/io/scene_loader.h"
#include "renderer/scene_params.h"

using namespace dray;

TEST_CASE("a domain says its rule and projects onto itself", "[params]") {
  CHECK(Domain::positive().rule() == "must be > 0");
  CHECK(Domain::at_least(0).rule() == "must be >= 0");
  CHECK(Domain::closed(0, 1).rule() == "must be in [0, 1]");
  CHECK(Domain::open(0, 180).rule() == "must be in (0, 180)");
  CHECK(Domain::finite().rule() == "must be a finite number");
  CHECK(*Domain::positive().violation(-1) == "must be > 0, got -1");
  CHECK(*Domain::at_least(0).violation(-INFINITY) == "must be >= 0 (and finite), got -inf");
  CHECK(*Domain::finite().violation(NAN) == "must be a finite number, got nan");
  CHECK_FALSE(Domain::left_open(0, 1).violation(1));
  CHECK(Domain::left_open(0, 1).violation(0));
  // Projection: the nearest float inside, an open bound's next float.
  CHECK(Domain::positive().project(-3) == std::numeric_limits<float>::denorm_min());
  CHECK(Domain::closed(0, 1).project(1.5) == 1.f);
  CHECK(Domain::open(0, 180).project(200) == std::nextafter(180.f, 0.f));
  CHECK(Domain::open(0, 180).project(90) == 90.f);
  CHECK(std::isnan(Domain::positive().project(NAN)));
  for (const Domain& d : {Domain::positive(), Domain::closed(0, 1), Domain::open(0, 180), Domain::right_open(0, 90)})
    for (double v : {-1e30, -1.0, 0.0, 0.5, 89.99999, 90.0, 1e30})
      CHECK(d.contains(d.project(v)));
}

namespace {

Scene spheres() { return load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json", {"camera.width=8", "camera.height=6"}); }

}  // namespace

TEST_CASE("updates are all or nothing, by name or component", "[params]") {
  Scene s = spheres();
  const std::vector<float> before = s.params.values();
  const auto radius = s.params.find("shapes.mid.radius")->slot;
  CHECK_THROWS_WITH(update_params(s, {{"shapes.mid.radius", {0.5f}}, {"materials.red.reflectance", {0.5f, 1.5f, 0.5f}}}),
                    "materials.red.reflectance[1]: must be in [0, 1], got 1.5");
  CHECK(s.params.values() == before);
  CHECK_THROWS_WITH(update_params(s, {{"camera.target", {0.f, 1.6f, 6.f}}}), "camera.target: must differ from camera.origin");
  CHECK_THROWS_WITH(update_params(s, {{"shapes.mid.radius", {1.f, 2.f}}}), "shapes.mid.radius: has 1 value, got 2");
  CHECK_THROWS_WITH(update_params(s, {{"shapes.nope.radius", {1.f}}}), Catch::Contains("unknown parameter \"shapes.nope.radius\""));
  CHECK(s.params.values() == before);
  // Accepted: the values set, the BVH rebuilt around the new sphere.
  const float old_extent = s.bvh.bounds().hi.y;
  update_params(s, {{"shapes.mid.radius", {3.f}}, {"materials.red.reflectance[2]", {0.25f}}});
  CHECK(s.params.get(radius) == 3.f);
  CHECK(s.params.get_vec3(s.params.find("materials.red.reflectance")->slot) == glm::vec3(0.8f, 0.15f, 0.25f));
  CHECK(s.bvh.bounds().hi.y > old_extent);
}

TEST_CASE("the rules between values hold after loading and after updates", "[params]") {
  Scene s = spheres();
  CHECK_FALSE(param_violation(s));
  CHECK(scalar_name(s.params, s.params.find("camera.up")->slot + 2) == "camera.up[2]");
  CHECK(frame_problem({0, 0, 0}, {0, 0, 0}, {0, 1, 0}) == FrameProblem::same_point);
  CHECK(frame_problem({0, 0, 0}, {0, 1, 0}, {0, 1, 0}) == FrameProblem::up_parallel);
  CHECK(frame_problem({0, 0, 0}, {0, 0, -1}, {0, 1, 0}) == FrameProblem::none);
  // Vectors whose lengths underflow float: the camera (in float) would divide by zero. (Found by
  // tools/fuzz update: an up of three 7e-40s gave NaN rays.)
  const float tiny = 7.35e-40f;
  CHECK(frame_problem({0, 0, 0}, {0, 0, tiny}, {0, 1, 0}) == FrameProblem::too_near);
  CHECK(frame_problem({0, 0, 0}, {0, 0, -1}, {tiny, tiny, tiny}) == FrameProblem::up_too_short);
  CHECK(frame_problem({0, 0, 0}, {0, 0, -1}, {0, 1e-30f, 0}) == FrameProblem::up_too_short);
  CHECK(frame_problem({0, 0, 0}, {0, 0, -1}, {0, 1e-10f, 0}) == FrameProblem::none);
  CHECK_THROWS_WITH(update_params(s, {{"camera.up", {tiny, tiny, tiny}}}), Catch::StartsWith("camera.up: is too short"));
  CHECK_THROWS_WITH(update_params(s, {{"camera.up", {0.f, -0.8f, -6.f}}}), Catch::StartsWith("camera.up: must not be parallel"));
  CHECK_THROWS_WITH(update_params(s, {{"shapes.floor.edge_v", {0.f, 0.f, 1.f}}}),
                    "shapes.floor.edge_v: must not be parallel to shapes.floor.edge_u (the quad has no area)");
  // Corners past float's range (tools/fuzz update: edges at -1.7e38 and -1.8e38).
  CHECK_THROWS_WITH(update_params(s, {{"shapes.floor.edge_u", {0.f, 0.f, -1.8e38f}}, {"shapes.floor.corner", {-6.f, 0.f, -1.7e38f}}}),
                    Catch::StartsWith("shapes.floor.corner: the quad's corners must be within float range"));
  // --set goes through the same rules when the scene loads.
  CHECK_THROWS_WITH(load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json", {"camera.fov_y=0"}),
                    Catch::Contains("/camera/fov_y: must be > 0, got 0"));
}

TEST_CASE("a pass's seeds: index per slot and ranges, from ascending or unordered slots alike", "[params]") {
  using dray::Seeds;
  using dray::Slot;
  const std::vector<Slot> ascending = {2, 3, 4, 9, 11, 12}, unordered = {11, 2, 12, 4, 3, 9};
  const std::vector<std::pair<Slot, Slot>> expect = {{2, 5}, {9, 10}, {11, 13}};
  for (const auto* list : {&ascending, &unordered}) {
    const Seeds seeds(16, *list);
    CHECK(seeds.ranges == expect);
    for (size_t k = 0; k < list->size(); ++k) CHECK(seeds.index()[(*list)[k]] == int(k));
    CHECK(seeds.index()[0] == -1);
    CHECK(seeds.index()[10] == -1);
    CHECK(seeds.any(5, 4) == false);  // slots 5..8
    CHECK(seeds.any(5, 5) == true);   // ..9
    CHECK(seeds.any(13, 3) == false);
  }
  const Seeds repeated(8, std::vector<Slot>{1, 1, 2});  // a slot listed twice: its last index
  CHECK(repeated.ranges == std::vector<std::pair<Slot, Slot>>{{1, 3}});
  CHECK(repeated.index()[1] == 1);
}

TEST_CASE("a pass's seeds: a large table is shared by the next pass seeding the same slots", "[params]") {
  using dray::Seeds;
  using dray::Slot;
  const size_t slots = size_t(1) << 17;  // past the size below which tables are built each time
  std::vector<Slot> block(3000);
  for (size_t k = 0; k < block.size(); ++k) block[k] = Slot(1000 + k);
  block.push_back(Slot(slots - 1));  // a second run, at the table's end
  const Seeds first(slots, block), again(slots, block);
  CHECK(again.index() == first.index());  // the same table, not written again
  CHECK(first.ranges == std::vector<std::pair<Slot, Slot>>{{1000, 4000}, {Slot(slots - 1), Slot(slots)}});
  // Other slots: a table of their own, right; the first pass's table is unchanged.
  std::vector<Slot> shifted = block;
  shifted[0] = 999;
  const Seeds other(slots, shifted);
  CHECK(other.index() != first.index());
  bool right = other.index()[999] == 0 && other.index()[1000] == -1 && other.index()[1001] == 1 &&
               other.index()[slots - 1] == int(block.size() - 1) && other.index()[998] == -1;
  CHECK(right);
  right = first.index()[999] == -1 && first.index()[1000] == 0 && first.index()[3999] == 2999 && first.index()[4000] == -1 &&
          first.index()[slots - 1] == 3000 && first.index()[0] == -1;
  CHECK(right);
  // The same slots over a table of another size: not the kept table.
  const Seeds bigger(slots + 1, block);
  CHECK(bigger.index() != other.index());
  CHECK(bigger.index()[slots] == -1);
}
