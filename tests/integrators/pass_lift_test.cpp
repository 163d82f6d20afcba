// Per-pass lifting (renderer/integrators/pass_lift.h): a moving mesh's world-space vertices are
// lifted once, at the positions the float pass traces, and their adjoints chained through the
// lifted transform reach the parameters as central differences of the placed mesh say; a pixel's
// chain visits only the entries its paths touched; a mesh is lifted only where the pass's samples
// outnumber its vertices two to one.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "renderer/integrators/pass_lift.h"
#include "renderer/io/scene_loader.h"
#include "renderer/shapes/mesh.h"

using namespace dray;

namespace {

const std::string kScenes = std::string(DRAY_SOURCE_DIR) + "/scenes";

// The Cornell box turned, scaled and moved, so that every transform parameter bends its vertices.
Scene turned_box() {
  return load_scene(kScenes + "/cornell-box.json",
                    {"camera.width=8", "camera.height=8", "shapes.cbox.rotate_y=30", "shapes.cbox.rotate_x=-12",
                     "shapes.cbox.scale=1.5", "shapes.cbox.translate=[10,-20,5]"});
}

// Every parameter of the scene seeded, gradient index = slot.
std::vector<int> seed_all(const Scene& scene) {
  std::vector<int> seeds(scene.params.values().size());
  for (size_t k = 0; k < seeds.size(); ++k) seeds[k] = int(k);
  return seeds;
}

}  // namespace

TEST_CASE("a moving mesh's world vertices are lifted at the traced positions, with the placement's derivatives",
          "[pass_lift]") {
  Scene scene = turned_box();
  const std::vector<int> seeds = seed_all(scene);
  const int first = int(seeds.size());
  const PassLift lift = lift_pass(scene, scene.shot(), seeds.data(), first, 1000);
  const LiftedBlock* world = nullptr;
  for (const LiftedBlock& b : lift.blocks)
    if (b.key == world_positions_key(0)) world = &b;
  REQUIRE(world != nullptr);
  const Shape& shape = scene.shapes[0];
  const size_t vertices = scene.meshes[0].object_positions.size();
  REQUIRE(world->values.size() == 3 * vertices);
  for (uint32_t v = 0; v < vertices; ++v)
    for (int c = 0; c < 3; ++c)
      CHECK(world->values[3 * v + size_t(c)] == Approx(scene.world_vertex(shape, v)[c]).epsilon(1e-5).margin(1e-3));

  // d (world vertex 7).x / d every parameter, chained through the transform's lifted entries,
  // against central differences of the placed mesh.
  const uint32_t v = 7;
  for (int c = 0; c < 3; ++c) {
    LiftedAdjoints adjoints(lift);
    REQUIRE(adjoints.take(world->first_index + int(3 * v) + c, 1.0));
    std::map<size_t, double> chained;
    adjoints.chain([&](size_t g, double adjoint) { chained[g] += adjoint; });
    for (const char* name : {"shapes.cbox.rotate_y", "shapes.cbox.rotate_x", "shapes.cbox.scale", "shapes.cbox.translate[1]",
                             "shapes.cbox.vertices[7,0]", "shapes.cbox.vertices[7,2]"}) {
      const Slot slot = resolve_scalars(scene.params, {name}).front().slot;
      const float x = scene.params.get(slot), h = std::max(1e-3f, 1e-3f * std::fabs(x));
      scene.params.set(slot, x + h);
      scene.build_geometry();
      const double plus = scene.world_vertex(shape, v)[c];
      scene.params.set(slot, x - h);
      scene.build_geometry();
      const double minus = scene.world_vertex(shape, v)[c];
      scene.params.set(slot, x);
      scene.build_geometry();
      const double expected = (plus - minus) / (2.0 * double(h));
      INFO(name << " axis " << c);
      CHECK(chained[slot] == Approx(expected).epsilon(2e-3).margin(2e-3));
    }
    // Nothing is left behind: a second chain hands nothing.
    size_t again = 0;
    adjoints.chain([&](size_t, double) { ++again; });
    CHECK(again == 0);
  }
}

TEST_CASE("a static mesh lifts no world vertices", "[pass_lift]") {
  const Scene scene = turned_box();
  std::vector<int> seeds(scene.params.values().size(), -1);
  const Slot colour = resolve_scalars(scene.params, {"materials.cbox.red.reflectance[0]"}).front().slot;
  seeds[colour] = 0;
  const PassLift lift = lift_pass(scene, scene.shot(), seeds.data(), 1, 1000);
  CHECK(lift.blocks.empty());
  CHECK(lift.size() == 0);
}

TEST_CASE("a mesh with more vertices than half the pass's samples is not lifted, its transform is", "[pass_lift]") {
  const Scene scene = turned_box();
  const std::vector<int> seeds = seed_all(scene);
  const size_t vertices = scene.meshes[0].object_positions.size();
  for (size_t samples : {2 * vertices - 1, 2 * vertices}) {
    const PassLift lift = lift_pass(scene, scene.shot(), seeds.data(), int(seeds.size()), samples);
    bool world = false, transform = false;
    for (const LiftedBlock& b : lift.blocks) {
      world = world || b.key == world_positions_key(0);
      transform = transform || b.key == scene.shapes[0].transform()->rotate;
    }
    CHECK(transform);
    CHECK(world == (samples >= 2 * vertices));
  }
}
