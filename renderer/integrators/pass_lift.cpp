#include "renderer/integrators/pass_lift.h"

#include <map>

#include "ad/var.h"
#include "renderer/sensors/camera.h"
#include "renderer/integrators/surface.h"
#include "renderer/core/transform.h"

namespace dray {

namespace {

// Records the block's entries from the parameters on this thread's tape and adds the block with
// the rows of its Jacobian (one reverse sweep per entry).
template <class Entries>
void add_block(PassLift& lift, Slot key, int n, Entries&& entries) {
  ad::Tape& tape = ad::Tape::local();
  tape.clear();
  std::vector<ad::Var> e = entries();
  LiftedBlock block{key, lift.first_index + int(lift.size()), {}};
  for (int k = 0; k < n; ++k) {
    block.values.push_back(e[size_t(k)].v);
    std::map<int, double> row;  // a parameter read twice appears twice among the tape's inputs
    tape.begin_adjoints();
    tape.seed(e[size_t(k)].i, 1.f);
    tape.backward_to([&](int g, float partial) {
      if (partial != 0.f) row[g] += double(partial);
    });
    lift.jacobian.emplace_back(row.begin(), row.end());
  }
  tape.clear();
  lift.blocks.push_back(std::move(block));
}

}  // namespace

PassLift lift_pass(const Scene& scene, const int* seeds, int first_index) {
  PassLift lift;
  lift.first_index = first_index;
  const ParamView<ad::Var> P(scene.params, seeds);
  const Camera& cam = scene.camera();
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
  return lift;
}

}  // namespace dray
