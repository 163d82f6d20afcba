#include "renderer/bvh.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <glm/common.hpp>

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
// SAH costs relative to one primitive intersection.
constexpr float kTraversalCost = 1.0f;

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
  std::vector<BuildItem> items;
  std::vector<Bvh::Node>& nodes;

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
    uint32_t left = uint32_t(nodes.size());
    nodes.emplace_back();
    // Bounds of the half-lists when all centroids coincide: the parent's, which contain them.
    build(left, begin, mid, left_box, left_cbox);
    uint32_t right = uint32_t(nodes.size());
    nodes.emplace_back();
    build(right, mid, end, right_box, right_cbox);
    nodes[index].offset = right;
    nodes[index].count = 0;
    nodes[index].axis = uint16_t(axis);
  }
};

}  // namespace

void Bvh::build(std::vector<PrimRef> refs, std::vector<PrimGeom> geoms) {
  nodes_.clear();
  refs_.clear();
  geoms_.clear();
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
  nodes_.reserve(2 * geoms.size());
  nodes_.emplace_back();
  Builder b{std::move(items), nodes_};
  b.build(0, 0, uint32_t(geoms.size()), box, cbox);
  refs_.resize(refs.size());
  geoms_.resize(geoms.size());
  for (size_t i = 0; i < b.items.size(); ++i) {
    refs_[i] = refs[b.items[i].prim];
    geoms_[i] = geoms[b.items[i].prim];
  }
}

namespace {
// The ray as the slab test wants it, 4-wide (the fourth lane is never read).
struct SlabRay {
  v4 o, inv_d;
};

// Slab test: the entry distance, or INFINITY when the box is missed within (t_min, t_max). The
// node's corners are read as 4 floats each (the fourth lane, its offset and count bits, is
// multiplied by 0 and never read).
inline float hit_box(const Bvh::Node& n, const SlabRay& r, float t_min, float t_max) {
  v4 lo, hi;
  std::memcpy(&lo, &n.lo, sizeof lo);
  std::memcpy(&hi, &n.hi, sizeof hi);
  const v4 t0 = (lo - r.o) * r.inv_d, t1 = (hi - r.o) * r.inv_d;
  const v4 tn = vmin(t0, t1), tf = vmax(t0, t1);
  const float enter = std::max(std::max(tn[0], tn[1]), std::max(tn[2], t_min));
  const float exit = std::min(std::min(tf[0], tf[1]), std::min(tf[2], t_max));
  return enter <= exit ? enter : INFINITY;
}
}  // namespace

template <bool any_hit>
bool Bvh::traverse(const Ray& ray, Hit& hit, float t_min) const {
  if (nodes_.empty()) return false;
  const glm::vec3 inv_d = 1.f / ray.d;
  const bool neg[3] = {inv_d.x < 0.f, inv_d.y < 0.f, inv_d.z < 0.f};
  const SlabRay slab{v4{ray.o.x, ray.o.y, ray.o.z, 0.f}, v4{inv_d.x, inv_d.y, inv_d.z, 0.f}};
  float t_max = ray.t_max;
  bool found = false;
  // Deferred far children with their entry distances: a closest-hit search skips those that a
  // hit found meanwhile has put behind it.
  struct Entry {
    uint32_t node;
    float t;
  };
  Entry stack[64];
  int top = 0;
  uint32_t node = 0;
  if (hit_box(nodes_[0], slab, t_min, t_max) == INFINITY) return false;
  for (;;) {
    const Node& n = nodes_[node];
    if (n.count > 0) {
      for (uint32_t i = n.offset; i < n.offset + n.count; ++i) {
        float t;
        if (intersect_prim(geoms_[i], ray, t_min, t_max, t)) {
          if constexpr (any_hit) return true;
          t_max = t;
          hit.t = t;
          hit.prim = i;
          found = true;
        }
      }
    } else {
      // Visit the child on the ray's near side first.
      uint32_t first = node + 1, second = n.offset;
      if (neg[n.axis]) std::swap(first, second);
      float t_first = hit_box(nodes_[first], slab, t_min, t_max);
      float t_second = hit_box(nodes_[second], slab, t_min, t_max);
      if (t_first != INFINITY) {
        if (t_second != INFINITY) stack[top++] = {second, t_second};
        node = first;
        continue;
      }
      if (t_second != INFINITY) {
        node = second;
        continue;
      }
    }
    do {
      if (top == 0) return found;
      --top;
    } while (stack[top].t > t_max);
    node = stack[top].node;
  }
}

bool Bvh::intersect(const Ray& ray, Hit& hit, float t_min) const {
  return traverse<false>(ray, hit, t_min);
}

bool Bvh::occluded(const Ray& ray, float t_min) const {
  Hit unused;
  return traverse<true>(ray, unused, t_min);
}

}  // namespace dray
