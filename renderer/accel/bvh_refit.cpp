// The BVH's refit: the boxes of the built tree recomputed from moved primitives, its topology
// kept; and the choice between a refit and a rebuild.
#include "renderer/accel/bvh.h"

namespace dray {

namespace {

bool lane_used(const Bvh::Node& n, int k) { return n.count[k] > 0 || n.child[k] != 0; }  // child 0 is the root

double half_area(const Bvh::Node& n, int k) {
  const float ex = n.hi[0][k] - n.lo[0][k], ey = n.hi[1][k] - n.lo[1][k], ez = n.hi[2][k] - n.lo[2][k];
  return double(ex) * ey + double(ey) * ez + double(ez) * ex;
}

}  // namespace

double Bvh::tree_cost() const {
  double cost = 0;
  for (const Node& n : nodes_)
    for (int k = 0; k < Bvh::kWidth; ++k)
      if (lane_used(n, k)) cost += half_area(n, k);
  return cost;
}

double Bvh::refit_boxes() {
  for (LeafPack& p : leaves_)
    for (uint32_t k = 0; k < p.count; ++k) {
      const PrimGeom& g = geoms_[p.first + k];
      if (!prim_planar(g.kind)) continue;
      for (int a = 0; a < 3; ++a) {
        p.a[a][k] = g.a[a];
        p.e1[a][k] = g.b[a];
        p.e2[a][k] = g.c[a];
      }
    }
  // Children come after their parents (collapse numbers depth first): back to front, each node's
  // lanes are its children's unions, already refitted.
  for (size_t j = nodes_.size(); j-- > 0;) {
    Node& n = nodes_[j];
    for (int k = 0; k < Bvh::kWidth; ++k) {
      if (!lane_used(n, k)) continue;
      Aabb box;
      if (n.count[k] > 0) {
        const LeafPack& p = leaves_[n.child[k]];
        for (uint32_t i = p.first; i < p.first + n.count[k]; ++i) box.grow(bounds_of(geoms_[i]));  // its packs
      } else {
        const Node& c = nodes_[n.child[k]];
        for (int l = 0; l < Bvh::kWidth; ++l)
          if (lane_used(c, l)) box.grow(Aabb{{c.lo[0][l], c.lo[1][l], c.lo[2][l]}, {c.hi[0][l], c.hi[1][l], c.hi[2][l]}});
      }
      for (int a = 0; a < 3; ++a) {
        n.lo[a][k] = box.lo[a];
        n.hi[a][k] = box.hi[a];
      }
    }
  }
  bounds_ = Aabb{};
  const Node& root = nodes_[0];
  for (int k = 0; k < Bvh::kWidth; ++k)
    if (lane_used(root, k))
      bounds_.grow(Aabb{{root.lo[0][k], root.lo[1][k], root.lo[2][k]}, {root.hi[0][k], root.hi[1][k], root.hi[2][k]}});
  return tree_cost();
}

bool Bvh::refit(const std::vector<PrimRef>& refs, const std::vector<PrimGeom>& geoms) {
  if (nodes_.empty() || refs.size() != refs_.size() || geoms.size() != geoms_.size()) return false;
  for (size_t i = 0; i < refs_.size(); ++i) {
    const PrimRef& r = refs[order_[i]];
    if (r.shape != refs_[i].shape || r.index != refs_[i].index || geoms[order_[i]].kind != geoms_[i].kind) return false;
  }
  for (size_t i = 0; i < geoms_.size(); ++i) geoms_[i] = geoms[order_[i]];
  refit_boxes();
  return true;
}

bool Bvh::update(std::vector<PrimRef> refs, std::vector<PrimGeom> geoms, int threads) {
  if (refit(refs, geoms) && tree_cost() <= kRefitSlack * built_cost_) return true;
  build(std::move(refs), std::move(geoms), threads);
  return false;
}

}  // namespace dray
