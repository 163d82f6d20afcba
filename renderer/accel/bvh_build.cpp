// The BVH's build: a binned-SAH binary tree (in parallel over OpenMP tasks), collapsed into the
// wide tree with its leaf packs (subtrees in parallel too).
#include <algorithm>
#include <cmath>
#include <cstring>

#include <glm/common.hpp>
#include <omp.h>

#include "renderer/accel/bvh.h"
#include "renderer/accel/bvh_collapse.h"
#include "renderer/core/simd4.h"

namespace dray {

using namespace simd;

namespace {

constexpr int kBins = 16;
constexpr int kMaxLeaf = Bvh::kMaxLeaf;
// Halves of at least this many primitives are built as parallel tasks (small enough for the
// last tasks to balance the threads' loads); subtrees under kCollapseItems are collapsed as one
// parallel job each (bvh_collapse.h).
constexpr uint32_t kParallelItems = 1024;
// SAH costs relative to one primitive intersection. A wide node tests eight boxes in one SIMD
// step and a leaf pack four triangles; a leaf costs its packs (a pack is tested whole). Measured
// on the bunny, 8-wide nodes, leaves of up to 8 (two packs): traversal cost 2 gave trace 0.75 of
// Embree, 4 gave 0.90-0.94, 8 gave 0.93-0.94 and occlusion 0.89 -> 0.93 (every subtree of up to 8
// primitives a leaf; 12 and 16 the same), leaves of up to 16 0.88-0.90.
constexpr float kTraversalCost = 8.0f;


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
    // A leaf costs its packs of four: a pack is tested whole.
    float leaf_cost = box.half_area() * float(4 * Bvh::packs_of(n));
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

void Bvh::build(std::vector<PrimRef> refs, std::vector<PrimGeom> geoms, int threads) {
  using bvh_detail::kCollapseItems;
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
  depth_ = bvh_detail::collapse(binary, geoms_, uint32_t(geoms.size()), workers, nodes_, leaves_);
  built_cost_ = tree_cost();
}

}  // namespace dray
