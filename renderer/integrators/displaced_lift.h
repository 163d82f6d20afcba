#pragma once
// A reverse pass over a mesh displaced by a seeded texture (renderer/shapes/displacement.h). Read
// on each path's tape, every vertex position the path meets would re-evaluate its texture lookup
// (a lens hit's three corners and their rings: a dozen vertices, each a bilinear lookup of four
// texels in three channels), and a smooth mesh's shading normal would redo the ring formula of
// its three corners (eighteen face normals). The pass lifts both once instead: the displaced
// positions and the corners' smooth normals are inputs of every tape at their float values; each
// vertex's height is differentiated by the texture's values, and each vertex normal by the
// heights of its ring, once per pass; a path's adjoints of those inputs are chained to the
// parameters as the tape hands them over (in the tape's order: the gradient stays bitwise
// reproducible).
#include <cstdint>
#include <utility>
#include <vector>

#include "renderer/scene.h"

namespace dray {

struct DisplacedLift {
  // d (vertex normal)[axis] / d (height of `vertex`), axis 0..2: one of a vertex normal's terms.
  struct NormalTerm {
    uint32_t vertex;
    float d[3];
  };
  struct Mesh {
    const MeshDisplacement* displacement;
    int first_index;              // gradient index of vertex 0's x; 3 per vertex
    std::vector<uint32_t> start;  // per vertex: its terms are terms[start[v], start[v + 1])
    std::vector<std::pair<int, float>> terms;  // (parameter's gradient index, d height / d parameter)
    // The smooth vertex normals (when the mesh has them): gradient indices from normals_first_index,
    // 3 per vertex; vertex v's terms normal_terms[normal_start[v], normal_start[v + 1]).
    int normals_first_index = -1;
    std::vector<uint32_t> normal_start;
    std::vector<NormalTerm> normal_terms;
    size_t vertex_count() const { return start.size() - 1; }
  };
  std::vector<Mesh> meshes;
  // For ParamView::lifted_blocks: each mesh's positions (displaced_positions_key) and smooth
  // normals (displaced_normals_key).
  std::vector<LiftedBlock> blocks;

  // Whether gradient index g is a lifted position (normal false) or vertex normal (normal true):
  // its mesh, and its vertex and axis in k.
  const Mesh* find(int g, int& k, bool& normal) const {
    for (const Mesh& m : meshes) {
      const size_t n = 3 * m.vertex_count();
      k = g - m.first_index;
      if (k >= 0 && size_t(k) < n) return normal = false, &m;
      k = g - m.normals_first_index;
      if (m.normals_first_index >= 0 && k >= 0 && size_t(k) < n) return normal = true, &m;
    }
    return nullptr;
  }
};

// One path's adjoints of the lifted positions, gathered per vertex as its height's adjoint (the
// three axes' along its direction), then chained to the parameters in the order the vertices came.
class DisplacedAdjoints {
 public:
  explicit DisplacedAdjoints(const DisplacedLift& lift) : lift_(&lift) {}
  // Takes gradient index g's adjoint when g is a lifted position or normal; false otherwise.
  bool take(int g, double adjoint) {
    int k = 0;
    bool normal = false;
    const DisplacedLift::Mesh* m = lift_->find(g, k, normal);
    if (!m) return false;
    const uint32_t v = uint32_t(k / 3);
    if (!normal) {
      add(m, v, adjoint * double(m->displacement->directions[v][k % 3]) * double(m->displacement->scale));
      return true;
    }
    for (uint32_t t = m->normal_start[v]; t < m->normal_start[v + 1]; ++t)
      add(m, m->normal_terms[t].vertex, adjoint * double(m->normal_terms[t].d[k % 3]));
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
  void add(const DisplacedLift::Mesh* m, uint32_t v, double along) {
    for (Height& h : heights_)
      if (h.mesh == m && h.vertex == v) return void(h.adjoint += along);
    heights_.push_back({m, v, along});
  }
  const DisplacedLift* lift_;
  std::vector<Height> heights_;
};

// The displaced meshes whose texture `seeds` seeds, their positions' gradient indices from
// first_index. Uses this thread's tape (left cleared).
DisplacedLift lift_displaced(const Scene& scene, const Seeds& seeds, int first_index);

}  // namespace dray
