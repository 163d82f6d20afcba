#pragma once
// Per-pass constants of a reverse pass. A mesh transform's entries and the camera's frame depend
// on parameters alone, yet every hit on the mesh and every camera ray would re-derive them on the
// sample's tape (sines, cosines, normalisations: about a hundred statements per hit). A pass
// lifts them once instead: their values become inputs of every sample's tape (gradient indices
// from `first_index`), their Jacobian with respect to the parameters is taken once, and each
// pixel's adjoints of them are chained to the parameters before the pixel is committed, in a
// fixed order (the gradient stays bitwise reproducible).
#include <utility>
#include <vector>

#include "renderer/core/param_table.h"
#include "renderer/scene.h"

namespace dray {

struct PassLift {
  std::vector<LiftedBlock> blocks;
  int first_index = 0;
  // Per lifted entry (gradient index first_index + k): d entry / d parameter, as (the parameter's
  // gradient index, partial).
  std::vector<std::vector<std::pair<int, double>>> jacobian;
  size_t size() const { return jacobian.size(); }
};

// Lifts the camera frame and every mesh transform that has a seeded parameter (seeds[slot] =
// gradient index, or -1). Uses this thread's tape (left cleared).
PassLift lift_pass(const Scene& scene, const int* seeds, int first_index);

// One thread's adjoints of the lifted entries for the unit being staged, chained to parameters.
class LiftedAdjoints {
 public:
  explicit LiftedAdjoints(const PassLift& lift) : lift_(&lift), adjoint_(lift.size(), 0.0) {}
  // Takes gradient index g's adjoint when g is a lifted entry; false otherwise.
  bool take(int g, double adjoint) {
    const int k = g - lift_->first_index;
    if (k < 0 || size_t(k) >= adjoint_.size()) return false;
    adjoint_[size_t(k)] += adjoint;
    return true;
  }
  // Hands stage(parameter index, adjoint x partial) for every staged entry, in entry order, and
  // clears them.
  template <class Stage>
  void chain(Stage&& stage) {
    for (size_t k = 0; k < adjoint_.size(); ++k) {
      if (adjoint_[k] == 0.0) continue;
      for (const auto& [g, partial] : lift_->jacobian[k]) stage(size_t(g), adjoint_[k] * partial);
      adjoint_[k] = 0.0;
    }
  }
  void discard() { std::fill(adjoint_.begin(), adjoint_.end(), 0.0); }

 private:
  const PassLift* lift_;
  std::vector<double> adjoint_;
};

}  // namespace dray
