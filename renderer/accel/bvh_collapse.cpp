#include "renderer/accel/bvh_collapse.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <omp.h>

namespace dray::bvh_detail {

namespace {

constexpr int kWidth = Bvh::kWidth;

// The binary tree collapsed into wide nodes: each wide node takes its binary node's two
// children and keeps opening the largest (by surface area) interior one among them until it
// holds Bvh::kWidth (Wald et al. 2008). Leaves keep their primitive ranges.
//
// In two steps, so that subtrees collapse in parallel and the layout is the same on any number
// of threads: first the top of the tree (wide nodes over kCollapseItems primitives or more),
// which stops at each interior child under that size (a deferred subtree); then the deferred
// subtrees, each numbered depth first and stored after the top and the subtrees before it (on
// several threads, each subtree's size is counted first, and each writes its own range).
// Children still come after their parents (refit relies on it).
struct Collapser {
  const UninitVector<Bvh::BinaryNode>& bin;
  const std::vector<PrimGeom>& geoms;

  // Where a collapse writes: the next wide node and leaf pack go at these indices (appended
  // when at the end of the arrays, else written in place: a range sized beforehand).
  struct Out {
    UninitVector<Bvh::Node>& wide;
    UninitVector<Bvh::LeafPack>& leaves;
    uint32_t next_wide = 0, next_leaf = 0;
    int depth = 0;  // the deepest wide node's level (the root's is 1)
    uint32_t add_node() {
      if (next_wide == wide.size()) wide.emplace_back();
      return next_wide++;
    }
    uint32_t add_leaf(const Bvh::LeafPack& p) {
      if (next_leaf == leaves.size()) leaves.push_back(p);
      else leaves[next_leaf] = p;
      return next_leaf++;
    }
  };
  // A subtree left for the second step: binary node b over n primitives, the wide node and lane
  // that point to it, its level.
  struct Deferred {
    uint32_t b, n, parent;
    int lane, level;
  };
  std::vector<Deferred> deferred;

  // The pack of the leaf over primitives [first, first + count).
  Bvh::LeafPack pack(uint32_t first, uint32_t count) const {
    Bvh::LeafPack p{};
    p.first = first;
    p.count = uint8_t(count);
    for (uint32_t k = 0; k < count; ++k) {
      const PrimGeom& g = geoms[first + k];
      const bool single = !prim_planar(g.kind);
      if (single) p.singles |= uint8_t(1u << k);
      if (prim_parallelogram(g.kind)) p.quads |= uint8_t(1u << k);
      if (single) continue;  // its lane stays degenerate
      for (int a = 0; a < 3; ++a) {
        p.a[a][k] = g.a[a];
        p.e1[a][k] = g.b[a];
        p.e2[a][k] = g.c[a];
      }
    }
    return p;
  }

  static float area(const Bvh::BinaryNode& n) {
    const glm::vec3 e = glm::max(n.hi - n.lo, glm::vec3(0.f));
    return e.x * e.y + e.y * e.z + e.z * e.x;
  }

  // The children of the wide node for binary node b over n_items primitives (an interior one,
  // or a leaf root: then b itself), and their primitive counts. Returns how many (1 to kWidth).
  int children(uint32_t b, uint32_t n_items, uint32_t (&kids)[kWidth], uint32_t (&kid_n)[kWidth]) const {
    if (bin[b].count > 0) {
      kids[0] = b, kid_n[0] = n_items;
      return 1;
    }
    int n = 1;
    float kid_area[kWidth];  // an interior child's area, -1 for a leaf
    auto set = [&](int k, uint32_t c, uint32_t m) {
      kids[k] = c, kid_n[k] = m;
      kid_area[k] = bin[c].count > 0 ? -1.f : area(bin[c]);
    };
    // Binary node c (over m primitives) opened: its left child in lane `at`, its right one added.
    auto open = [&](uint32_t c, uint32_t m, int at) {
      const uint32_t left_n = (bin[c].offset - c) / 2;  // the left subtree takes 2 left_n - 1 slots
      set(at, c + 1, left_n);
      set(n++, bin[c].offset, m - left_n);
    };
    open(b, n_items, 0);
    while (n < kWidth) {
      int widest = -1;
      for (int k = 0; k < n; ++k)
        if (kid_area[k] >= 0.f && (widest < 0 || kid_area[k] > kid_area[widest])) widest = k;
      if (widest < 0) break;
      open(kids[widest], kid_n[widest], widest);
    }
    return n;
  }

  // The wide nodes and leaf packs that collapse(b, n_items, ...) adds, without the top's deferral.
  void count(uint32_t b, uint32_t n_items, uint32_t& wide, uint32_t& leaves) const {
    uint32_t kids[kWidth], kid_n[kWidth];
    const int n = children(b, n_items, kids, kid_n);
    ++wide;
    for (int k = 0; k < n; ++k) {
      if (bin[kids[k]].count > 0) leaves += Bvh::packs_of(bin[kids[k]].count);
      else count(kids[k], kid_n[k], wide, leaves);
    }
  }

  // Wide node for binary node b over n_items primitives at `level`, written to `out` with its
  // subtree; returns its index. With `top`, interior children under kCollapseItems primitives
  // are deferred (their lanes filled in later).
  uint32_t collapse(uint32_t b, uint32_t n_items, int level, Out& out, bool top) {
    out.depth = std::max(out.depth, level);
    uint32_t kids[kWidth], kid_n[kWidth];
    const int n = children(b, n_items, kids, kid_n);
    const uint32_t index = out.add_node();
    Bvh::Node node{};
    for (int k = 0; k < kWidth; ++k)
      for (int a = 0; a < 3; ++a) {
        // An empty lane: an inverted box (lo > hi), which the slab test never enters for a finite
        // ray. (A point far out was entered by rays along its diagonal, and the lane's child 0
        // is the root: the traversal looped.)
        node.lo[a][k] = k < n ? bin[kids[k]].lo[a] : 1e30f;
        node.hi[a][k] = k < n ? bin[kids[k]].hi[a] : -1e30f;
      }
    for (int k = 0; k < n; ++k) {
      const Bvh::BinaryNode& c = bin[kids[k]];
      if (c.count > 0) {  // its packs of four, consecutive; the lane names the first
        for (uint32_t first = 0; first < c.count; first += 4) {
          const uint32_t at = out.add_leaf(pack(c.offset + first, std::min<uint32_t>(c.count - first, 4)));
          if (first == 0) node.child[k] = at;
        }
        node.count[k] = c.count;
      } else if (top && kid_n[k] < kCollapseItems) {
        deferred.push_back({kids[k], kid_n[k], index, k, level + 1});
      } else {
        node.child[k] = collapse(kids[k], kid_n[k], level + 1, out, top);
      }
    }
    out.wide[index] = node;
    return index;
  }

  // The whole tree into `wide` and `leaves` (empty on entry); returns its depth.
  int run(uint32_t n_items, int threads, UninitVector<Bvh::Node>& wide, UninitVector<Bvh::LeafPack>& leaves) {
    Out top{wide, leaves};
    collapse(0, n_items, 1, top, true);
    const std::vector<Deferred> todo = std::move(deferred);
    if (threads <= 1) {
      for (const Deferred& d : todo) wide[d.parent].child[d.lane] = collapse(d.b, d.n, d.level, top, false);
      return top.depth;
    }
    int depth = top.depth;
    // Each subtree's range, after the top and the subtrees before it.
    std::vector<uint32_t> n_wide(todo.size(), 0), n_leaves(todo.size(), 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (size_t i = 0; i < todo.size(); ++i) count(todo[i].b, todo[i].n, n_wide[i], n_leaves[i]);
    std::vector<Out> parts(todo.size(), Out{wide, leaves});
    uint32_t w = top.next_wide, l = top.next_leaf;
    for (size_t i = 0; i < todo.size(); ++i) {
      parts[i].next_wide = w, parts[i].next_leaf = l;
      wide[todo[i].parent].child[todo[i].lane] = w;
      w += n_wide[i], l += n_leaves[i];
    }
    wide.resize(w);
    leaves.resize(l);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (size_t i = 0; i < todo.size(); ++i) collapse(todo[i].b, todo[i].n, todo[i].level, parts[i], false);
    for (const Out& p : parts) depth = std::max(depth, p.depth);
    return depth;
  }
};

}  // namespace

int collapse(const UninitVector<Bvh::BinaryNode>& binary, const std::vector<PrimGeom>& geoms, uint32_t n_items,
             int threads, UninitVector<Bvh::Node>& wide, UninitVector<Bvh::LeafPack>& leaves) {
  return Collapser{binary, geoms, {}}.run(n_items, threads, wide, leaves);
}

}  // namespace dray::bvh_detail
