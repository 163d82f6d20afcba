#include "renderer/integrators/pass_lift.h"

#include <map>

#include "ad/var.h"
#include "renderer/sensors/camera.h"
#include "renderer/integrators/surface.h"
#include "renderer/core/transform.h"

namespace dray {

namespace {

// Appends to lift.jacobian the row of each of `entries` (recorded on this thread's tape): one
// reverse sweep per entry.
void add_rows(PassLift& lift, const std::vector<ad::Var>& entries) {
  ad::Tape& tape = ad::Tape::local();
  for (const ad::Var& e : entries) {
    std::map<int, double> row;  // a parameter read twice appears twice among the tape's inputs
    tape.begin_adjoints();
    tape.seed(e.i, 1.f);
    tape.backward_to([&](int g, float partial) {
      if (partial != 0.f) row[g] += double(partial);
    });
    lift.jacobian.emplace_back(row.begin(), row.end());
  }
}

// Records the block's entries from the parameters on this thread's tape and adds the block with
// the rows of its Jacobian.
template <class Entries>
void add_block(PassLift& lift, Slot key, int n, Entries&& entries) {
  ad::Tape& tape = ad::Tape::local();
  tape.clear();
  std::vector<ad::Var> e = entries();
  e.resize(size_t(n));
  LiftedBlock block{key, lift.first_index + int(lift.size()), {}};
  for (const ad::Var& x : e) block.values.push_back(x.v);
  add_rows(lift, e);
  tape.clear();
  lift.blocks.push_back(std::move(block));
}

// A moving mesh's world-space vertices (3 entries each), a vertex at a time on a tape of its own:
// rows by its lifted transform's entries (P reads them) and its vertex block.
void add_world_positions(PassLift& lift, const Scene& scene, const ParamView<ad::Var>& P, const MeshShape& mesh,
                         uint32_t shape) {
  ad::Tape& tape = ad::Tape::local();
  LiftedBlock block{world_positions_key(shape), lift.first_index + int(lift.size()), {}};
  const size_t vertices = scene.meshes[mesh.mesh].object_positions.size();
  block.values.reserve(3 * vertices);
  for (uint32_t v = 0; v < vertices; ++v) {
    tape.clear();
    const Vec3<ad::Var> p = mesh.vertex(scene, P, lift_transform(P, mesh.transform), v);
    for (int c = 0; c < 3; ++c) block.values.push_back(p[c].v);
    add_rows(lift, {p.x, p.y, p.z});
  }
  tape.clear();
  lift.blocks.push_back(std::move(block));
}

}  // namespace

PassLift lift_pass(const Scene& scene, const Shot& shot, const int* seeds, int first_index, size_t samples) {
  PassLift lift;
  lift.first_index = first_index;
  const ParamView<ad::Var> P(scene.params, seeds);
  const Camera& cam = scene.camera(shot);
  if (camera_active(cam, P))
    add_block(lift, cam.origin, kCameraEntries, [&] {
      CameraFrame<ad::Var> f = camera_frame_from_params(cam, P);
      std::vector<ad::Var> e;
      for (int k = 0; k < kCameraEntries; ++k) e.push_back(camera_entry(f, k));
      return e;
    });
  auto lifted_already = [&](Slot key) {
    for (const LiftedBlock& b : lift.blocks)
      if (b.key == key) return true;
    return false;
  };
  for (const Shape& s : scene.shapes) {
    const Transform* xf = s.transform();
    if (!xf || !transform_active(P, *xf) || lifted_already(xf->rotate)) continue;
    add_block(lift, xf->rotate, kTransformEntries, [&] {
      TransformT<ad::Var> t = transform_from_params(P, *xf);
      std::vector<ad::Var> e;
      for (int k = 0; k < kTransformEntries; ++k) e.push_back(transform_entry(t, k));
      return e;
    });
  }
  // Moving meshes' world positions, past the transforms (their rows name them). A displaced
  // mesh's positions are lifted by displaced_lift.h's pass instead.
  ParamView<ad::Var> lifted_view = P;
  lifted_view.lifted_blocks = &lift.blocks;
  for (uint32_t si = 0; si < uint32_t(scene.shapes.size()); ++si) {
    const auto* mesh = std::get_if<MeshShape>(&scene.shapes[si].model);
    if (mesh && !scene.meshes[mesh->mesh].displacement && 2 * scene.meshes[mesh->mesh].object_positions.size() <= samples &&
        mesh->moving(scene, P))
      add_world_positions(lift, scene, lifted_view, *mesh, si);
  }
  return lift;
}

}  // namespace dray
