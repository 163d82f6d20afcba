#pragma once
// A reverse pass over a mesh displaced by a seeded texture (renderer/shapes/displacement.h). Read
// on each path's tape, every vertex position the path meets would re-evaluate its texture lookup
// (a lens hit's three corners and their rings: a dozen vertices, each a bilinear lookup of four
// texels in three channels). The pass lifts the displaced positions once instead: their float
// values become inputs of every tape, each vertex's height is differentiated by the texture's
// values once per pass, and a path's adjoints of the positions are chained to those parameters as
// the tape hands them over (in the tape's order: the gradient stays bitwise reproducible).
#include <cstdint>
#include <utility>
#include <vector>

#include "renderer/scene.h"

namespace dray {

struct DisplacedLift {
  struct Mesh {
    const MeshDisplacement* displacement;
    int first_index;              // gradient index of vertex 0's x; 3 per vertex
    std::vector<uint32_t> start;  // per vertex: its terms are terms[start[v], start[v + 1])
    std::vector<std::pair<int, float>> terms;  // (parameter's gradient index, d height / d parameter)
  };
  std::vector<Mesh> meshes;
  std::vector<LiftedBlock> blocks;  // for ParamView::lifted_blocks: each mesh's positions, keyed by displaced_positions_key

  // Whether gradient index g is a lifted position: its mesh, and its vertex and axis in k.
  const Mesh* find(int g, int& k) const {
    for (const Mesh& m : meshes) {
      k = g - m.first_index;
      if (k >= 0 && size_t(k) < 3 * (m.start.size() - 1)) return &m;
    }
    return nullptr;
  }
};

// One path's adjoints of the lifted positions, gathered per vertex as its height's adjoint (the
// three axes' along its direction), then chained to the parameters in the order the vertices came.
class DisplacedAdjoints {
 public:
  explicit DisplacedAdjoints(const DisplacedLift& lift) : lift_(&lift) {}
  // Takes gradient index g's adjoint when g is a lifted position; false otherwise.
  bool take(int g, double adjoint) {
    int k = 0;
    const DisplacedLift::Mesh* m = lift_->find(g, k);
    if (!m) return false;
    const uint32_t v = uint32_t(k / 3);
    const double along = adjoint * double(m->displacement->directions[v][k % 3]) * double(m->displacement->scale);
    for (Height& h : heights_)
      if (h.mesh == m && h.vertex == v) return h.adjoint += along, true;
    heights_.push_back({m, v, along});
    return true;
  }
  // Hands sink(parameter index, adjoint x partial) for every vertex taken, and forgets them.
  template <class Sink>
  void chain(Sink&& sink) {
    for (const Height& h : heights_)
      for (uint32_t t = h.mesh->start[h.vertex]; t < h.mesh->start[h.vertex + 1]; ++t)
        sink(size_t(h.mesh->terms[t].first), h.adjoint * double(h.mesh->terms[t].second));
    heights_.clear();
  }

 private:
  struct Height {
    const DisplacedLift::Mesh* mesh;
    uint32_t vertex;
    double adjoint;
  };
  const DisplacedLift* lift_;
  std::vector<Height> heights_;
};

// The displaced meshes whose texture `seeds` seeds, their positions' gradient indices from
// first_index. Uses this thread's tape (left cleared).
DisplacedLift lift_displaced(const Scene& scene, const Seeds& seeds, int first_index);

}  // namespace dray
