#pragma once
// Per-pass constants of a reverse pass. A mesh transform's entries and the camera's frame depend
// on parameters alone, yet every hit on the mesh and every camera ray would re-derive them on the
// sample's tape (sines, cosines, normalisations: about a hundred statements per hit). A pass
// lifts them once instead: their values become inputs of every sample's tape (gradient indices
// from `first_index`), their Jacobian with respect to the parameters is taken once, and each
// pixel's adjoints of them are chained to the parameters before the pixel is committed, in a
// fixed order (the gradient stays bitwise reproducible). A moving mesh's world-space vertices are
// lifted likewise (every hit and light sample on it would transform its triangle's corners on
// the tape), their Jacobian taken with respect to its lifted transform and its vertex block.
#include <algorithm>
#include <cstdint>
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
// gradient index, or -1), and the world vertices of each moving mesh that has at most one vertex
// per two of the pass's `samples` (camera samples of the whole image, the same on every rank):
// lifting costs about what two triangle lifts on a tape do per vertex, and a sample lifts a few
// triangles. Uses this thread's tape (left cleared).
PassLift lift_pass(const Scene& scene, const Shot& shot, const int* seeds, int first_index, size_t samples);

// One thread's adjoints of the lifted entries for the unit being staged, chained to parameters.
// Only the entries a unit touched are visited (a mesh's vertices are many, a pixel's paths meet a
// few).
class alignas(64) LiftedAdjoints {  // one cache line per thread's: written per unit
 public:
  explicit LiftedAdjoints(const PassLift& lift) : lift_(&lift), adjoint_(lift.size(), 0.0), listed_(lift.size(), 0) {}
  // Takes gradient index g's adjoint when g is a lifted entry; false otherwise.
  bool take(int g, double adjoint) {
    const int k = g - lift_->first_index;
    if (k < 0 || size_t(k) >= adjoint_.size()) return false;
    if (!listed_[size_t(k)]) {
      listed_[size_t(k)] = 1;
      touched_.push_back(uint32_t(k));
    }
    adjoint_[size_t(k)] += adjoint;
    return true;
  }
  // Hands stage(parameter index, adjoint x partial) for every staged entry and clears them. Entries
  // go last first: a world vertex's row names its transform's entries, lifted before it, which
  // take its adjoint before they are chained in turn.
  template <class Stage>
  void chain(Stage&& stage) {
    std::sort(touched_.begin(), touched_.end(), [](uint32_t a, uint32_t b) { return a > b; });
    for (size_t i = 0; i < touched_.size(); ++i) {  // take() may append (lower) entries
      const uint32_t k = touched_[i];
      const double adjoint = adjoint_[k];
      adjoint_[k] = 0.0;
      listed_[k] = 0;
      if (adjoint == 0.0) continue;
      for (const auto& [g, partial] : lift_->jacobian[k])
        if (!take(g, adjoint * partial)) stage(size_t(g), adjoint * partial);
    }
    touched_.clear();
  }
  void discard() {
    for (uint32_t k : touched_) {
      adjoint_[k] = 0.0;
      listed_[k] = 0;
    }
    touched_.clear();
  }

 private:
  const PassLift* lift_;
  std::vector<double> adjoint_;
  std::vector<uint8_t> listed_;
  std::vector<uint32_t> touched_;
};

}  // namespace dray
