#pragma once
// A reverse pass over a mesh displaced by a seeded texture (renderer/shapes/displacement.h). Read
// on each path's tape, every vertex position the path meets would re-evaluate its texture lookup
// (a lens hit's three corners and their rings: a dozen vertices, each a bilinear lookup of four
// texels in three channels), and a smooth mesh's shading normal would redo the ring formula of
// its three corners (eighteen face normals). The pass lifts both once instead: the displaced
// positions and the vertex normals are inputs of every tape at their float values, and a path's
// adjoints of them are summed exactly, as the parameters' are. Once every path is summed (over
// ranks too), chain_displaced hands them on: each vertex normal to the heights of its ring, each
// position to its height, each height to the texture's values (differentiated once per pass).
// The result depends on the sums alone: bitwise the same on any rank and thread count.
#include <cstdint>
#include <span>
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

  int count = 0;  // lifted inputs, from the first index lift_displaced was given
};

// The displaced meshes whose texture `seeds` seeds, their positions' gradient indices from
// first_index, on `threads` (the same on any count). Uses the threads' tapes (left cleared).
DisplacedLift lift_displaced(const Scene& scene, const Seeds& seeds, int first_index, int threads);

// Adds to gradient[g] (the parameters') the adjoints of the lifted inputs chained to them:
// lifted[i] is the summed adjoint of gradient index first_index + i.
void chain_displaced(const DisplacedLift& lift, int first_index, std::span<const double> lifted, std::span<double> gradient);

}  // namespace dray
