// The BVH's build: a binned-SAH binary tree (in parallel over OpenMP tasks), collapsed into the
// 4-wide tree with its leaf packs; and its refit.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <glm/common.hpp>
#include <omp.h>

#include "renderer/bvh.h"
#include "renderer/simd4.h"

namespace dray {

using namespace simd;

namespace {

constexpr int kBins = 16;
constexpr int kMaxLeaf = 4;
// Halves of at least this many primitives are built as parallel tasks.
constexpr uint32_t kParallelItems = 4096;
// SAH costs relative to one primitive intersection. A wide node tests four boxes, and a leaf its
// up to four triangles, in one SIMD step each: a leaf of four costs about one traversal step, so
// traversal is weighed as four primitives (measured on the bunny: 1 → 4 took trace from 0.64 to
// 0.72-0.75 of Embree, with full leaves).
constexpr float kTraversalCost = 4.0f;


struct Box4 {
  v4 lo = splat(1e30f), hi = splat(-1e30f);
  void grow(v4 l, v4 h) { lo = vmin(lo, l), hi = vmax(hi, h); }
  void grow(const Box4& b) { grow(b.lo, b.hi); }
  float half_area() const {
    v4 e = vmax(hi - lo, splat(0.f));
    return e[0] * e[1] + e[1] * e[2] + e[2] * e[0];
  }
};

// A primitive's bounds; its centroid is (lo + hi) / 2, kept doubled (lo + hi) to save a multiply.
struct BuildItem {
  v4 lo, hi;
  uint32_t prim;  // index in the input arrays
};

// Items are partitioned in place, so that every pass over a node's items reads memory in order.
// A node's bounds and centroid bounds come from its parent (the binning and the partition pass
// compute them), so each level reads its items twice: once to bin, once to partition.
struct Builder {
  std::vector<BuildItem>& items;  // shared by the tasks: each works on its own range
  std::vector<Bvh::BinaryNode>& nodes;

  void set_bounds(uint32_t index, const Box4& box) {
    nodes[index].lo = glm::vec3(box.lo[0], box.lo[1], box.lo[2]);
    nodes[index].hi = glm::vec3(box.hi[0], box.hi[1], box.hi[2]);
  }

  // Builds the subtree over items[begin, end) into nodes[index], whose bounds are `box` and
  // whose doubled centroids lie in `cbox`.
  void build(uint32_t index, uint32_t begin, uint32_t end, const Box4& box, const Box4& cbox) {
    set_bounds(index, box);
    uint32_t n = end - begin;
    auto make_leaf = [&] {
      nodes[index].offset = begin;
      nodes[index].count = uint16_t(n);
      nodes[index].axis = 0;
    };
    if (n <= 1) return make_leaf();

    // Binned SAH over the centroids on every axis (Wald 2007), binned in one pass. Small nodes
    // get fewer bins: most nodes are small, and there the sweep over the bins would cost more
    // than the binning.
    const int bins = std::clamp(int(n), 4, kBins);
    const v4 extent = cbox.hi - cbox.lo;
    v4 scale = splat(0.f);
    // An extent too small for bins / extent to be finite (denormal coordinates, found by fuzzing
    // a PLY file) is binned as a flat axis.
    for (int axis = 0; axis < 3; ++axis)
      if (extent[axis] > 0.f && float(bins) / extent[axis] < INFINITY) scale[axis] = float(bins) / extent[axis];
    Box4 bin_box[3][kBins];
    uint32_t bin_count[3][kBins] = {};
    const v4i top = {bins - 1, bins - 1, bins - 1, bins - 1};
    for (uint32_t i = begin; i < end; ++i) {
      const BuildItem& it = items[i];
      v4i b = __builtin_convertvector((it.lo + it.hi - cbox.lo) * scale, v4i);
      b = b < top ? b : top;
      for (int axis = 0; axis < 3; ++axis) {
        bin_box[axis][b[axis]].grow(it.lo, it.hi);
        ++bin_count[axis][b[axis]];
      }
    }
    float best_cost = INFINITY;
    int best_axis = -1, best_split = 0;
    for (int axis = 0; axis < 3; ++axis) {
      if (!(extent[axis] > 0.f)) continue;
      float right_cost[kBins];  // area x count of bins [b, bins)
      Box4 acc;
      uint32_t cnt = 0;
      for (int b = bins - 1; b > 0; --b) {
        acc.grow(bin_box[axis][b]);
        cnt += bin_count[axis][b];
        right_cost[b] = cnt ? acc.half_area() * float(cnt) : INFINITY;
      }
      acc = Box4{};
      cnt = 0;
      for (int b = 0; b < bins - 1; ++b) {
        acc.grow(bin_box[axis][b]);
        cnt += bin_count[axis][b];
        if (cnt == 0) continue;
        float cost = acc.half_area() * float(cnt) + right_cost[b + 1];
        if (cost < best_cost) {
          best_cost = cost;
          best_axis = axis;
          best_split = b;
        }
      }
    }
    float leaf_cost = box.half_area() * n;
    float split_cost = kTraversalCost * box.half_area() + best_cost;
    if (best_axis < 0 || (n <= kMaxLeaf && leaf_cost <= split_cost)) {
      if (best_axis < 0 && n > kMaxLeaf) {
        // All centroids coincide: split in the middle of the list.
        return split(index, begin, begin + n / 2, end, 0, box, cbox, box, cbox);
      }
      return make_leaf();
    }
    // The children's bounds, from the bins; then the partition on the chosen bin, collecting
    // each side's centroid bounds on the way.
    Box4 best_left, best_right;
    for (int b = 0; b < bins; ++b) (b <= best_split ? best_left : best_right).grow(bin_box[best_axis][b]);
    const float s_axis = scale[best_axis], lo = cbox.lo[best_axis];
    auto on_left = [&](const BuildItem& it) {
      return std::min(bins - 1, int((it.lo[best_axis] + it.hi[best_axis] - lo) * s_axis)) <= best_split;
    };
    Box4 left_cbox, right_cbox;
    uint32_t i = begin, j = end;
    for (;;) {
      while (i < j && on_left(items[i])) {
        left_cbox.grow(items[i].lo + items[i].hi, items[i].lo + items[i].hi);
        ++i;
      }
      while (i < j && !on_left(items[j - 1])) {
        right_cbox.grow(items[j - 1].lo + items[j - 1].hi, items[j - 1].lo + items[j - 1].hi);
        --j;
      }
      if (i >= j) break;
      std::swap(items[i], items[j - 1]);
    }
    split(index, begin, i, end, best_axis, best_left, left_cbox, best_right, right_cbox);
  }

  void split(uint32_t index, uint32_t begin, uint32_t mid, uint32_t end, int axis, const Box4& left_box,
             const Box4& left_cbox, const Box4& right_box, const Box4& right_cbox) {
    // A subtree over n items takes at most 2n - 1 nodes (a leaf holds at least one item): the
    // left child's subtree takes the slots right after its parent, the right one's start past
    // them. The layout depends on the items only, so that halves large enough can be built in
    // parallel (OpenMP tasks), writing disjoint slots, and the tree is the same on any number of
    // threads.
    const uint32_t left = index + 1, right = index + 2 * (mid - begin);
    nodes[index].offset = right;
    nodes[index].count = 0;
    nodes[index].axis = uint16_t(axis);
    if (mid - begin >= kParallelItems && end - mid >= kParallelItems && omp_in_parallel()) {
      // No task waits for its children (the parent's slot is written already): the parallel
      // region's closing barrier waits for all of them, and a thread done early takes the
      // others' pending halves there. The task copies the boxes it needs (firstprivate).
      const Box4 rb = right_box, rcb = right_cbox;
#pragma omp task default(none) firstprivate(right, mid, end, rb, rcb)
      build(right, mid, end, rb, rcb);
      // Bounds of the half-lists when all centroids coincide: the parent's, which contain them.
      build(left, begin, mid, left_box, left_cbox);
      return;
    }
    build(left, begin, mid, left_box, left_cbox);
    build(right, mid, end, right_box, right_cbox);
  }
};

}  // namespace

namespace {

// The binary tree collapsed into 4-wide nodes: each wide node takes its binary node's two
// children and keeps opening the largest (by surface area) interior one among them until it
// holds four (Wald et al. 2008). Leaves keep their primitive ranges.
struct Collapser {
  const std::vector<Bvh::BinaryNode>& bin;
  const std::vector<PrimGeom>& geoms;
  std::vector<Bvh::Node>& wide;
  std::vector<Bvh::LeafPack>& leaves;

  // The pack of the leaf over primitives [first, first + count).
  uint32_t pack(uint32_t first, uint32_t count) {
    Bvh::LeafPack p{};
    p.first = first;
    p.count = uint8_t(count);
    for (uint32_t k = 0; k < count; ++k) {
      const PrimGeom& g = geoms[first + k];
      if (g.kind == PrimGeom::sphere) p.spheres |= uint8_t(1u << k);
      if (g.kind == PrimGeom::quad) p.quads |= uint8_t(1u << k);
      if (g.kind == PrimGeom::sphere) continue;  // its lane stays degenerate
      for (int a = 0; a < 3; ++a) {
        p.a[a][k] = g.a[a];
        p.e1[a][k] = g.b[a];
        p.e2[a][k] = g.c[a];
      }
    }
    leaves.push_back(p);
    return uint32_t(leaves.size() - 1);
  }

  static float area(const Bvh::BinaryNode& n) {
    const glm::vec3 e = glm::max(n.hi - n.lo, glm::vec3(0.f));
    return e.x * e.y + e.y * e.z + e.z * e.x;
  }

  int depth = 0;  // the deepest wide node's depth (the root's is 1)

  // Wide node for binary interior node b (or a leaf root) at `level`; returns its index.
  uint32_t collapse(uint32_t b, int level = 1) {
    depth = std::max(depth, level);
    uint32_t kids[4];
    int n = 0;
    if (bin[b].count > 0) {
      kids[n++] = b;  // a leaf root: one leaf child
    } else {
      kids[n++] = b + 1;
      kids[n++] = bin[b].offset;
      while (n < 4) {
        int open = -1;
        for (int k = 0; k < n; ++k)
          if (bin[kids[k]].count == 0 && (open < 0 || area(bin[kids[k]]) > area(bin[kids[open]]))) open = k;
        if (open < 0) break;
        const uint32_t c = kids[open];
        kids[open] = c + 1;
        kids[n++] = bin[c].offset;
      }
    }
    const uint32_t index = uint32_t(wide.size());
    wide.emplace_back();
    Bvh::Node node{};
    for (int k = 0; k < 4; ++k) {
      for (int a = 0; a < 3; ++a) {
        // An empty lane: a point box far out, which the slab test never enters.
        node.lo[a][k] = k < n ? bin[kids[k]].lo[a] : 1e30f;
        node.hi[a][k] = k < n ? bin[kids[k]].hi[a] : 1e30f;
      }
      node.child[k] = 0;
      node.count[k] = 0;
    }
    for (int k = 0; k < n; ++k) {
      const Bvh::BinaryNode& c = bin[kids[k]];
      if (c.count > 0) {
        node.child[k] = pack(c.offset, c.count);
        node.count[k] = c.count;
      } else {
        node.child[k] = collapse(kids[k], level + 1);
      }
    }
    wide[index] = node;
    return index;
  }
};

}  // namespace

void Bvh::build(std::vector<PrimRef> refs, std::vector<PrimGeom> geoms, int threads) {
  nodes_.clear();
  leaves_.clear();
  refs_.clear();
  geoms_.clear();
  order_.clear();
  bounds_ = Aabb{};
  built_cost_ = 0;
  depth_ = 0;
  if (geoms.empty()) return;
  std::vector<BuildItem> items(geoms.size());
  Box4 box, cbox;
  for (size_t i = 0; i < geoms.size(); ++i) {
    const Aabb b = bounds_of(geoms[i]);
    items[i].lo = v4{b.lo.x, b.lo.y, b.lo.z, 0.f};
    items[i].hi = v4{b.hi.x, b.hi.y, b.hi.z, 0.f};
    items[i].prim = uint32_t(i);
    box.grow(items[i].lo, items[i].hi);
    cbox.grow(items[i].lo + items[i].hi, items[i].lo + items[i].hi);
  }
  std::vector<BinaryNode> binary(2 * geoms.size() - 1);  // freed once collapsed
  Builder b{items, binary};
  if (threads > 1 && geoms.size() >= 2 * kParallelItems) {
#pragma omp parallel num_threads(threads)
#pragma omp single
    b.build(0, 0, uint32_t(geoms.size()), box, cbox);
  } else {
    b.build(0, 0, uint32_t(geoms.size()), box, cbox);
  }
  bounds_ = Aabb{binary[0].lo, binary[0].hi};
  refs_.resize(refs.size());
  geoms_.resize(geoms.size());
  order_.resize(geoms.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const uint32_t from = items[i].prim;
    refs_[i] = refs[from];
    geoms_[i] = geoms[from];
    order_[i] = from;
  }
  nodes_.reserve(binary.size() / 2 + 1);
  leaves_.clear();
  leaves_.reserve(binary.size() / 2 + 1);
  Collapser c{binary, geoms_, nodes_, leaves_};
  c.collapse(0);
  depth_ = c.depth;
  built_cost_ = tree_cost();
}

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
    for (int k = 0; k < 4; ++k)
      if (lane_used(n, k)) cost += half_area(n, k);
  return cost;
}

double Bvh::refit_boxes() {
  for (LeafPack& p : leaves_)
    for (uint32_t k = 0; k < p.count; ++k) {
      const PrimGeom& g = geoms_[p.first + k];
      if (g.kind == PrimGeom::sphere) continue;
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
    for (int k = 0; k < 4; ++k) {
      if (!lane_used(n, k)) continue;
      Aabb box;
      if (n.count[k] > 0) {
        const LeafPack& p = leaves_[n.child[k]];
        for (uint32_t i = p.first; i < p.first + p.count; ++i) box.grow(bounds_of(geoms_[i]));
      } else {
        const Node& c = nodes_[n.child[k]];
        for (int l = 0; l < 4; ++l)
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
  for (int k = 0; k < 4; ++k)
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
