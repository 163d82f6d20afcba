#include "renderer/accel/bvh.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <glm/common.hpp>

#include "renderer/accel/intersect.h"
#include "renderer/core/simd4.h"

namespace dray {

float Aabb::half_area() const {
  glm::vec3 e = glm::max(hi - lo, glm::vec3(0.f));
  return e.x * e.y + e.y * e.z + e.z * e.x;
}


using namespace simd;

// The 8-lane helpers below are inlined into the traversal: GCC's and clang's note on AVX
// vectors' return ABI does not apply to them.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace {

// The ray as the tests want it: origin and direction splatted over a leaf's four lanes, origin
// and reciprocal direction over a node's eight, and per axis whether the direction is negative
// (its near planes are the boxes' upper ones).
struct WideRay {
  v4 o[3], d[3];
  v8 o8[3], inv_d8[3];
  bool neg[3];
};

// The children's entry distances, INFINITY where a box is missed within (t_min, t_max).
// The near and far planes are chosen by the direction's sign (pbrt-v4's slab test, Sec. 6.1.2):
// for a direction component 0, a ray in a box's plane gives 0 * inf = NaN, which the comparisons
// (NaN never wins) ignore, as they should: the ray lies within that slab. The far distances
// are scaled by 1 + 2γ(3) (pbrt's bound on their rounding), so that the test is conservative: a
// primitive that the exact test hits is never in a box that the float test misses.
inline v8 hit_boxes(const Bvh::Node& n, const WideRay& r, float t_min, float t_max) {
  constexpr float kRound = 1.f + 2.f * (3.f * 0x1p-24f) / (1.f - 3.f * 0x1p-24f);
  v8 enter = splat8(t_min), exit = splat8(t_max);
  for (int a = 0; a < 3; ++a) {
    v8 near, far;
    std::memcpy(&near, r.neg[a] ? n.hi[a] : n.lo[a], sizeof near);
    std::memcpy(&far, r.neg[a] ? n.lo[a] : n.hi[a], sizeof far);
    const v8 tn = (near - r.o8[a]) * r.inv_d8[a], tf = (far - r.o8[a]) * r.inv_d8[a] * splat8(kRound);
    enter = tn > enter ? tn : enter;
    exit = tf < exit ? tf : exit;
  }
  return enter <= exit ? enter : splat8(INFINITY);
}

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

// A child to visit: a wide node (count 0) or a leaf (its primitive count), and its entry distance.
struct Entry {
  uint32_t child;
  uint32_t count;
  float t;
};

// The children of node n whose lanes `mask` sets, nearest first (entry distances t), into kids;
// returns their number.
inline int entered_nearest_first(const Bvh::Node& n, const v8& t, unsigned mask, Entry* kids) {
  int m = 0;
  for (; mask; mask &= mask - 1) {
    const int k = __builtin_ctz(mask);
    const Entry e{n.child[k], n.count[k], t[k]};
    int j = m++;
    while (j > 0 && kids[j - 1].t > e.t) {
      kids[j] = kids[j - 1];
      --j;
    }
    kids[j] = e;
  }
  return m;
}

}  // namespace

// Traversal is compiled twice, for AVX2 and for any x86-64, and picked by the CPU at load time
// (GCC's function multiversioning): AVX2's VEX encoding and SSE4.1 blends, not wider vectors,
// make the difference. No FMA is enabled, so both give bitwise the same hits.
// (A -DDRAY_NATIVE=ON build compiles for its own CPU only.)
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(DRAY_NATIVE_BUILD)
#define DRAY_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DRAY_CPU_CLONES
#endif

template <bool any_hit>
DRAY_CPU_CLONES bool Bvh::traverse(const Ray& ray, Hit& hit, float t_min) const {
  if (nodes_.empty()) return false;
  // A NaN or infinite origin or direction hits nothing. (The slab test ignores an axis whose
  // distances are NaN, so such a ray would enter every box, an empty lane's too, and loop.)
  if (!all_finite(ray.o) || !all_finite(ray.d)) return false;
  const glm::vec3 inv_d = 1.f / ray.d;
  WideRay wr;
  for (int a = 0; a < 3; ++a) {
    wr.o[a] = splat(ray.o[a]);
    wr.d[a] = splat(ray.d[a]);
    wr.o8[a] = splat8(ray.o[a]);
    wr.inv_d8[a] = splat8(inv_d[a]);
    wr.neg[a] = inv_d[a] < 0.f;  // -0 gives -inf: negative too
  }
  float t_max = ray.t_max;
  float bound = t_max;  // primitives are tested in (t_min, bound): past a hit, up to its tie
  bool found = false;
  // Deferred children with their entry distances: a closest-hit search skips those that a hit
  // found meanwhile has put behind it (a box entered exactly at the hit's distance may still
  // hold a tie of lower index, so it is kept). Up to kWidth - 1 deferred children per level: on the stack, or on the heap for a tree deeper
  // than 48 levels. (Binned splits shrink a node's centroid extent by up to 16 each level, so
  // float's range and a coincident-centroid split bound the depth near 100 binary levels: about
  // 35 wide ones in practice, more only in principle.)
  constexpr int kDeferred = kWidth - 1;
  Entry local[kDeferred * 48 + kWidth];
  std::vector<Entry> heap;
  Entry* stack = local;
  if (depth_ > 48) {
    heap.resize(kDeferred * size_t(depth_) + kWidth);
    stack = heap.data();
  }
  // A deferred child's cache lines, fetched while the nearer ones are visited (Embree prefetches
  // a whole node likewise).
  auto prefetch = [&](const Entry& e) {
    const char* at = e.count ? reinterpret_cast<const char*>(&leaves_[e.child]) : reinterpret_cast<const char*>(&nodes_[e.child]);
    const int lines = e.count ? int((packs_of(e.count) * sizeof(LeafPack) + 63) / 64) : int(sizeof(Node) / 64);
    for (int k = 0; k < lines; ++k) __builtin_prefetch(at + 64 * k);
  };
  int top = 0;
  Entry cur{0, 0, 0.f};
  for (;;) {
    if (cur.count > 0) {
      // A leaf: one pack, or two for five to eight primitives.
      for (uint32_t pack = cur.child, end = cur.child + packs_of(cur.count); pack < end; ++pack) {
        const LeafPack& p = leaves_[pack];
        const v4 ts = hit_leaf(p, wr, t_min, bound);
        // The lanes hit (most leaves: none), and the spheres and voxels, each tested on its own.
        for (unsigned lanes = lanes_set(ts < splat(INFINITY)) | p.singles; lanes; lanes &= lanes - 1) {
          const unsigned k = unsigned(__builtin_ctz(lanes));
          const uint32_t i = p.first + k;
          float t = ts[k];
          if (p.singles & (1u << k) && !intersect_prim(geoms_[i], ray, t_min, bound, t)) continue;
          // A found hit admits a tie at its distance, which the lower index wins.
          // (The lanes were tested against the bound before this pack's earlier hits lowered it.)
          if (t < INFINITY && (!found || t < t_max || (t == t_max && order_[i] < order_[hit.prim]))) {
            if constexpr (any_hit) return true;
            t_max = t;
            bound = std::nextafter(t, INFINITY);
            hit.t = t;
            hit.prim = i;
            found = true;
          }
        }
      }
    } else {
      const Node& n = nodes_[cur.child];
      const v8 t = hit_boxes(n, wr, t_min, reach(t_max));
      // The children entered, nearest first: the nearest is visited next, the others deferred
      // farthest first.
      unsigned mask = lanes_set(t < splat8(INFINITY));
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
          prefetch(stack[top - 1]);
        }
        cur = {n.child[k0], n.count[k0], t[k0]};
        continue;
      }
      Entry kids[kWidth];
      const int m = entered_nearest_first(n, t, mask, kids);
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

size_t Bvh::memory_bytes() const {
  return nodes_.capacity() * sizeof(Node) + leaves_.capacity() * sizeof(LeafPack) + refs_.capacity() * sizeof(PrimRef) +
         geoms_.capacity() * sizeof(PrimGeom) + order_.capacity() * sizeof(uint32_t);
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
