#include "renderer/bvh.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <xmmintrin.h>

#include <glm/common.hpp>
#include <omp.h>

#include "renderer/intersect.h"

namespace dray {

float Aabb::half_area() const {
  glm::vec3 e = glm::max(hi - lo, glm::vec3(0.f));
  return e.x * e.y + e.y * e.z + e.z * e.x;
}

Aabb bounds_of(const PrimGeom& g) {
  Aabb b;
  glm::vec3 a = to_glm(g.a);
  if (g.kind == PrimGeom::sphere) {
    glm::vec3 r(g.b.x);
    b.grow(a - r);
    b.grow(a + r);
  } else {
    glm::vec3 e1 = to_glm(g.b), e2 = to_glm(g.c);
    b.grow(a);
    b.grow(a + e1);
    b.grow(a + e2);
    if (g.kind == PrimGeom::quad) b.grow(a + e1 + e2);
  }
  return b;
}

bool intersect_prim(const PrimGeom& g, const Ray& ray, float t_min, float t_max, float& t) {
  Vec3<float> o(ray.o), d(ray.d);
  PrimHit<float> h;
  bool hit = g.kind == PrimGeom::sphere
                 ? intersect_sphere(o, d, g.a, g.b.x, t_min, t_max, h)
                 : intersect_triangle(o, d, g.a, g.b, g.c, t_min, t_max, h, g.kind == PrimGeom::quad);
  if (hit) t = h.t;
  return hit;
}

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

// Four floats in one SSE register (GCC/Clang vector extension): a box corner or a centroid,
// the fourth lane unused. Growing a box is then one min and one max.
typedef float v4 __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));
inline v4 vmin(v4 a, v4 b) { return a < b ? a : b; }
inline v4 vmax(v4 a, v4 b) { return a > b ? a : b; }
inline v4 splat(float x) { return v4{x, x, x, x}; }

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

namespace {

// The ray as the slab test wants it: origin and reciprocal direction splatted over four lanes,
// and per axis whether the direction is negative (its near planes are the boxes' upper ones).
struct WideRay {
  v4 o[3], d[3], inv_d[3];
  bool neg[3];
};

// The four children's entry distances, INFINITY where a box is missed within (t_min, t_max).
// The near and far planes are chosen by the direction's sign (pbrt-v4's slab test, Sec. 6.1.2):
// for a direction component 0, a ray in a box's plane gives 0 * inf = NaN, which the comparisons
// (NaN never wins) ignore, as they should: the ray lies within that slab. The far distances
// are scaled by 1 + 2γ(3) (pbrt's bound on their rounding), so that the test is conservative: a
// primitive that the exact test hits is never in a box that the float test misses.
inline v4 hit_boxes(const Bvh::Node& n, const WideRay& r, float t_min, float t_max) {
  constexpr float kRound = 1.f + 2.f * (3.f * 0x1p-24f) / (1.f - 3.f * 0x1p-24f);
  v4 enter = splat(t_min), exit = splat(t_max);
  for (int a = 0; a < 3; ++a) {
    v4 near, far;
    std::memcpy(&near, r.neg[a] ? n.hi[a] : n.lo[a], sizeof near);
    std::memcpy(&far, r.neg[a] ? n.lo[a] : n.hi[a], sizeof far);
    const v4 tn = (near - r.o[a]) * r.inv_d[a], tf = (far - r.o[a]) * r.inv_d[a] * splat(kRound);
    enter = tn > enter ? tn : enter;
    exit = tf < exit ? tf : exit;
  }
  return enter <= exit ? enter : splat(INFINITY);
}

// The lanes of a comparison that hold, as bits 0-3.
inline unsigned lanes_set(v4i c) { return unsigned(_mm_movemask_ps(reinterpret_cast<__m128>(c))); }

// The distances of a leaf's triangles and quads along the ray, INFINITY where missed within
// (t_min, t_max): Möller–Trumbore four lanes at a time, each lane computing exactly what
// intersect_triangle<float> computes (the same operations in the same order).
inline v4 hit_leaf(const Bvh::LeafPack& p, const WideRay& r, float t_min, float t_max) {
  v4 a[3], e1[3], e2[3];
  for (int k = 0; k < 3; ++k) {
    std::memcpy(&a[k], p.a[k], sizeof(v4));
    std::memcpy(&e1[k], p.e1[k], sizeof(v4));
    std::memcpy(&e2[k], p.e2[k], sizeof(v4));
  }
  const v4* d = r.d;
  // p = d x e2, det = e1 . p
  const v4 px = d[1] * e2[2] - d[2] * e2[1], py = d[2] * e2[0] - d[0] * e2[2], pz = d[0] * e2[1] - d[1] * e2[0];
  const v4 det = e1[0] * px + e1[1] * py + e1[2] * pz;
  const v4 inv_det = splat(1.f) / det;
  const v4 sx = r.o[0] - a[0], sy = r.o[1] - a[1], sz = r.o[2] - a[2];
  const v4 u = (sx * px + sy * py + sz * pz) * inv_det;
  // q = s x e1
  const v4 qx = sy * e1[2] - sz * e1[1], qy = sz * e1[0] - sx * e1[2], qz = sx * e1[1] - sy * e1[0];
  const v4 v = (d[0] * qx + d[1] * qy + d[2] * qz) * inv_det;
  const v4 t = (e2[0] * qx + e2[1] * qy + e2[2] * qz) * inv_det;
  const v4i quad = {p.quads & 1 ? -1 : 0, p.quads & 2 ? -1 : 0, p.quads & 4 ? -1 : 0, p.quads & 8 ? -1 : 0};
  const v4i v_ok = (v >= splat(0.f)) & (quad ? (v <= splat(1.f)) : (u + v <= splat(1.f)));
  const v4i ok = (det != splat(0.f)) & (u >= splat(0.f)) & (u <= splat(1.f)) & v_ok & (t > splat(t_min)) & (t < splat(t_max));
  return ok ? t : splat(INFINITY);
}

// How far past the closest hit so far boxes are still entered: a primitive's float distance and a
// box's float entry are each a few ulps off, so that a primitive coplanar with the hit (a box's
// bottom on the floor) can report a smaller distance than its box's entry. 2^-16 relative covers
// them; it only visits a few more boxes next to the hit.
inline float reach(float t) { return t * (1.f + 0x1p-16f); }

}  // namespace

template <bool any_hit>
bool Bvh::traverse(const Ray& ray, Hit& hit, float t_min) const {
  if (nodes_.empty()) return false;
  const glm::vec3 inv_d = 1.f / ray.d;
  WideRay wr;
  for (int a = 0; a < 3; ++a) {
    wr.o[a] = splat(ray.o[a]);
    wr.d[a] = splat(ray.d[a]);
    wr.inv_d[a] = splat(inv_d[a]);
    wr.neg[a] = inv_d[a] < 0.f;  // -0 gives -inf: negative too
  }
  float t_max = ray.t_max;
  float bound = t_max;  // primitives are tested in (t_min, bound): past a hit, up to its tie
  bool found = false;
  // Deferred children with their entry distances: a closest-hit search skips those that a hit
  // found meanwhile has put behind it (a box entered exactly at the hit's distance may still
  // hold a tie of lower index, so it is kept).
  struct Entry {
    uint32_t child;
    uint32_t count;  // 0: a wide node; else a leaf's primitive count
    float t;
  };
  // Up to three deferred children per level: on the stack, or on the heap for a tree deeper than
  // 64 levels. (Binned splits shrink a node's centroid extent by up to 16 each level, so float's
  // range and a coincident-centroid split bound the depth near 100 binary levels: about 50
  // wide ones in practice, more only in principle.)
  Entry local[3 * 64 + 4];
  std::vector<Entry> heap;
  Entry* stack = local;
  if (depth_ > 64) {
    heap.resize(3 * size_t(depth_) + 4);
    stack = heap.data();
  }
  // A deferred child's first cache line, fetched while the nearer ones are visited.
  auto prefetch = [&](const Entry& e) {
    __builtin_prefetch(e.count ? static_cast<const void*>(&leaves_[e.child]) : static_cast<const void*>(&nodes_[e.child]));
  };
  int top = 0;
  Entry cur{0, 0, 0.f};
  for (;;) {
    if (cur.count > 0) {
      const LeafPack& p = leaves_[cur.child];
      const v4 ts = hit_leaf(p, wr, t_min, bound);
      // The lanes hit (most leaves: none), and the spheres, each tested on its own.
      for (unsigned lanes = lanes_set(ts < splat(INFINITY)) | p.spheres; lanes; lanes &= lanes - 1) {
        const unsigned k = unsigned(__builtin_ctz(lanes));
        const uint32_t i = p.first + k;
        float t = ts[k];
        if (p.spheres & (1u << k) && !intersect_prim(geoms_[i], ray, t_min, bound, t)) continue;
        // A found hit admits a tie at its distance, which the lower index wins.
        // (The lanes were tested against the bound before this leaf's earlier hits lowered it.)
        if (t < INFINITY && (!found || t < t_max || (t == t_max && order_[i] < order_[hit.prim]))) {
          if constexpr (any_hit) return true;
          t_max = t;
          bound = std::nextafter(t, INFINITY);
          hit.t = t;
          hit.prim = i;
          found = true;
        }
      }
    } else {
      const Node& n = nodes_[cur.child];
      const v4 t = hit_boxes(n, wr, t_min, reach(t_max));
      // The children entered, nearest first: the nearest is visited next, the others deferred
      // farthest first.
      unsigned mask = lanes_set(t < splat(INFINITY));
      if (mask == 0) goto pop;
      if ((mask & (mask - 1)) == 0) {  // one child: no sorting, no stack
        const int k = __builtin_ctz(mask);
        cur = {n.child[k], n.count[k], t[k]};
        continue;
      }
      if constexpr (any_hit) {  // any order: the first child next, the others deferred as they come
        const int k0 = __builtin_ctz(mask);
        for (mask &= mask - 1; mask; mask &= mask - 1) {
          const int k = __builtin_ctz(mask);
          stack[top++] = {n.child[k], n.count[k], t[k]};
        }
        cur = {n.child[k0], n.count[k0], t[k0]};
        continue;
      }
      Entry kids[4];
      int m = 0;
      for (; mask; mask &= mask - 1) {
        const int k = __builtin_ctz(mask);
        Entry e{n.child[k], n.count[k], t[k]};
        int j = m++;
        while (j > 0 && kids[j - 1].t > e.t) {
          kids[j] = kids[j - 1];
          --j;
        }
        kids[j] = e;
      }
      for (int k = m - 1; k > 0; --k) {
        stack[top++] = kids[k];
        prefetch(kids[k]);
      }
      cur = kids[0];
      continue;
    }
  pop:
    if constexpr (any_hit) {  // no hit so far: every deferred child is still ahead
      if (top == 0) return false;
      cur = stack[--top];
      continue;
    }
    do {
      if (top == 0) return found;
      --top;
    } while (stack[top].t > reach(t_max));
    cur = stack[top];
  }
}

bool Bvh::intersect(const Ray& ray, Hit& hit, float t_min) const {
  return traverse<false>(ray, hit, t_min);
}

bool Bvh::occluded(const Ray& ray, float t_min) const {
  Hit unused;
  return traverse<true>(ray, unused, t_min);
}

bool Bvh::intersect_brute_force(const Ray& ray, Hit& hit, float t_min) const {
  bool found = false;
  for (uint32_t i = 0; i < geoms_.size(); ++i) {
    float t;
    if (intersect_prim(geoms_[i], ray, t_min, ray.t_max, t) &&
        (!found || t < hit.t || (t == hit.t && order_[i] < order_[hit.prim]))) {
      hit = {t, i};
      found = true;
    }
  }
  return found;
}

}  // namespace dray
