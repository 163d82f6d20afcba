// The BVH's build: a binned-SAH binary tree (in parallel over OpenMP tasks), collapsed into the
// 4-wide tree with its leaf packs (subtrees in parallel too).
#include <algorithm>
#include <cmath>
#include <cstring>

#include <glm/common.hpp>
#include <omp.h>

#include "renderer/accel/bvh.h"
#include "renderer/core/simd4.h"

namespace dray {

using namespace simd;

namespace {

constexpr int kBins = 16;
constexpr int kMaxLeaf = 4;
// Halves of at least this many primitives are built as parallel tasks (small enough for the
// last tasks to balance the threads' loads); subtrees under kCollapseItems are collapsed as one
// parallel job each.
constexpr uint32_t kParallelItems = 1024, kCollapseItems = 4096;
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
  UninitVector<BuildItem>& items;  // shared by the tasks: each works on its own range
  UninitVector<Bvh::BinaryNode>& nodes;

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
    const v4 top = splat(float(bins - 1));
    for (uint32_t i = begin; i < end; ++i) {
      const BuildItem& it = items[i];
      // Clamped before the conversion: a NaN (an item beyond float's range) goes to bin 0.
      v4 f = (it.lo + it.hi - cbox.lo) * scale;
      f = f > splat(0.f) ? f : splat(0.f);
      f = f < top ? f : top;
      const v4i b = __builtin_convertvector(f, v4i);
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
      // As binned above: clamped to [0, bins - 1] before the conversion, a NaN to bin 0.
      const float f = (it.lo[best_axis] + it.hi[best_axis] - lo) * s_axis;
      return (f > 0.f ? int(std::min(f, float(bins - 1))) : 0) <= best_split;
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
      const bool single = g.kind == PrimGeom::sphere || g.kind == PrimGeom::voxel;
      if (single) p.singles |= uint8_t(1u << k);
      if (g.kind == PrimGeom::quad) p.quads |= uint8_t(1u << k);
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
  // or a leaf root: then b itself), and their primitive counts. Returns how many (1 to 4).
  int children(uint32_t b, uint32_t n_items, uint32_t (&kids)[4], uint32_t (&kid_n)[4]) const {
    if (bin[b].count > 0) {
      kids[0] = b, kid_n[0] = n_items;
      return 1;
    }
    int n = 1;
    float kid_area[4];  // an interior child's area, -1 for a leaf
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
    while (n < 4) {
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
    uint32_t kids[4], kid_n[4];
    const int n = children(b, n_items, kids, kid_n);
    ++wide;
    for (int k = 0; k < n; ++k) {
      if (bin[kids[k]].count > 0) ++leaves;
      else count(kids[k], kid_n[k], wide, leaves);
    }
  }

  // Wide node for binary node b over n_items primitives at `level`, written to `out` with its
  // subtree; returns its index. With `top`, interior children under kCollapseItems primitives
  // are deferred (their lanes filled in later).
  uint32_t collapse(uint32_t b, uint32_t n_items, int level, Out& out, bool top) {
    out.depth = std::max(out.depth, level);
    uint32_t kids[4], kid_n[4];
    const int n = children(b, n_items, kids, kid_n);
    const uint32_t index = out.add_node();
    Bvh::Node node{};
    for (int k = 0; k < 4; ++k)
      for (int a = 0; a < 3; ++a) {
        // An empty lane: an inverted box (lo > hi), which the slab test never enters for a finite
        // ray. (A point far out was entered by rays along its diagonal, and the lane's child 0
        // is the root: the traversal looped.)
        node.lo[a][k] = k < n ? bin[kids[k]].lo[a] : 1e30f;
        node.hi[a][k] = k < n ? bin[kids[k]].hi[a] : -1e30f;
      }
    for (int k = 0; k < n; ++k) {
      const Bvh::BinaryNode& c = bin[kids[k]];
      if (c.count > 0) {
        node.child[k] = out.add_leaf(pack(c.offset, c.count));
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
  UninitVector<BuildItem> items(geoms.size());
  const int workers = threads > 1 && geoms.size() >= 2 * kCollapseItems ? threads : 1;
  // The items and their bounds, on one thread: on two, faulting the fresh pages in concurrently
  // took twice as long (0.74 against 0.39 ms for the bunny).
  Box4 box, cbox;
  for (size_t i = 0; i < geoms.size(); ++i) {
    const Aabb b = bounds_of(geoms[i]);
    items[i].lo = v4{b.lo.x, b.lo.y, b.lo.z, 0.f};
    items[i].hi = v4{b.hi.x, b.hi.y, b.hi.z, 0.f};
    items[i].prim = uint32_t(i);
    box.grow(items[i].lo, items[i].hi);
    cbox.grow(items[i].lo + items[i].hi, items[i].lo + items[i].hi);
  }
  UninitVector<BinaryNode> binary(2 * geoms.size() - 1);  // freed once collapsed; unused slots never read
  Builder b{items, binary};
  if (workers > 1) {
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
#pragma omp parallel for schedule(static) num_threads(workers)
  for (size_t i = 0; i < items.size(); ++i) {
    const uint32_t from = items[i].prim;
    refs_[i] = refs[from];
    geoms_[i] = geoms[from];
    order_[i] = from;
  }
  nodes_.reserve(binary.size() / 2 + 1);
  leaves_.reserve(binary.size() / 2 + 1);
  depth_ = Collapser{binary, geoms_, {}}.run(uint32_t(geoms.size()), workers, nodes_, leaves_);
  built_cost_ = tree_cost();
}

}  // namespace dray
