#pragma once
// The BVH build's second half (bvh_build.cpp builds the binary tree): its collapse into 4-wide
// nodes and leaf packs.
#include <cstdint>
#include <vector>

#include "renderer/accel/bvh.h"

namespace dray::bvh_detail {

// Subtrees under this many primitives are collapsed as one parallel job each.
inline constexpr uint32_t kCollapseItems = 4096;

// Collapses binary tree `binary` over n_items primitives (`geoms` in leaf order) into `wide` and
// `leaves` on `threads` threads (the same layout on any number); returns the tree's depth.
int collapse(const UninitVector<Bvh::BinaryNode>& binary, const std::vector<PrimGeom>& geoms, uint32_t n_items,
             int threads, UninitVector<Bvh::Node>& wide, UninitVector<Bvh::LeafPack>& leaves);

}  // namespace dray::bvh_detail
