#pragma once
// A bounding volume hierarchy over spheres, quads, triangles and SDF voxels: a binned-SAH binary build,
// collapsed into an 8-wide tree whose nodes hold their children's boxes as structure-of-arrays,
// tested in one 8-lane SIMD step (Wald et al., "Embree", 2014; Embree 3's width on AVX2). It
// answers "which primitive, at what distance" and "is this segment blocked"; derivatives never
// pass through it (DESIGN.md invariant 2).
//
// The closest hit is the least (t, input index) over the primitives hit in (t_min, t_max): an
// exact tie in distance (a ray through a shared edge) goes to the primitive given first, whatever
// tree (built or refitted) and whatever order it is visited in, so that any traversal finds the
// same hit.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <glm/common.hpp>

#include "renderer/core/ray.h"
#include "renderer/core/vec.h"

namespace dray {

// A vector whose resize leaves new elements default-initialised (not zeroed) when they are
// trivial: for arrays that are written in full before they are read (the BVH's build arrays),
// so that growing them costs no serial memset.
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T>
using UninitVector = std::vector<T, NoInitAllocator<T>>;

// Which scene object a BVH primitive came from: shape index, and triangle index in a mesh.
struct PrimRef {
  uint32_t shape = 0;
  uint32_t index = 0;
};

// Float geometry of one primitive, in world space.
struct PrimGeom {
  Vec3<float> a, b, c;  // as its shape plugin places them: a triangle's v0, v1 - v0, v2 - v0
  // Its shape plugin's index in renderer/shapes/shape.h's list, which bounds and intersects it:
  // 0, a mesh's triangle.
  uint32_t kind = 0;
};

struct Hit {
  float t = 0.f;
  uint32_t prim = 0;  // index into Bvh::prim_refs() / prim_geoms()
};

struct Aabb {
  glm::vec3 lo{1e30f}, hi{-1e30f};
  void grow(const glm::vec3& p) { lo = glm::min(lo, p); hi = glm::max(hi, p); }
  void grow(const Aabb& b) { lo = glm::min(lo, b.lo); hi = glm::max(hi, b.hi); }
  float half_area() const;
  glm::vec3 centre() const { return 0.5f * (lo + hi); }
};

// What the BVH asks of a primitive kind, answered by the shape plugins (shapes/prim_kinds.cpp):
// its box, and whether its leaves test it four-wide (a triangle or a parallelogram) and which.
Aabb bounds_of(const PrimGeom& g);
bool prim_planar(uint32_t kind);
bool prim_parallelogram(uint32_t kind);

class Bvh {
 public:
  // Builds over the primitives; both arrays are stored reordered for traversal. The tree is the
  // same for any number of threads.
  void build(std::vector<PrimRef> refs, std::vector<PrimGeom> geoms, int threads = 1);
  // The same primitives moved (`geoms` in the input order of the last build, `refs` equal to it):
  // the boxes recomputed bottom up, the tree kept. Returns false (and changes nothing) when the
  // primitives differ from the last build's.
  bool refit(const std::vector<PrimRef>& refs, const std::vector<PrimGeom>& geoms);
  // A refit when the primitives are the same and the refitted tree's cost (the summed areas of
  // its boxes) stays within kRefitSlack of the last build's, else a build. Returns whether it refit.
  bool update(std::vector<PrimRef> refs, std::vector<PrimGeom> geoms, int threads = 1);
  static constexpr float kRefitSlack = 1.25f;

  // Closest hit in (t_min, ray.t_max).
  bool intersect(const Ray& ray, Hit& hit, float t_min = 0.f) const;
  // Any hit in (t_min, ray.t_max).
  bool occluded(const Ray& ray, float t_min = 0.f) const;
  // The closest hit by testing every primitive (tests).
  bool intersect_brute_force(const Ray& ray, Hit& hit, float t_min = 0.f) const;

  const std::vector<PrimRef>& prim_refs() const { return refs_; }
  const std::vector<PrimGeom>& prim_geoms() const { return geoms_; }
  // The primitive's index in the build's input: ties and scene-order tables use it, so that they
  // do not depend on the tree (a refitted tree orders primitives as the build it came from).
  uint32_t input_index(uint32_t prim) const { return order_[prim]; }
  size_t node_count() const { return nodes_.size(); }
  int depth() const { return depth_; }  // levels of the wide tree
  Aabb bounds() const { return bounds_; }
  size_t memory_bytes() const;  // the tree's and the primitives' arrays (their capacities)

  // The binary tree of the build.
  struct BinaryNode {
    glm::vec3 lo;
    uint32_t offset;  // leaf: first primitive; interior: index of the second child
    glm::vec3 hi;
    uint16_t count;   // leaf: number of primitives; interior: 0
    uint16_t axis;    // interior: split axis (the first child is on the low side)
  };
  static_assert(sizeof(BinaryNode) == 32);

  // A node of the wide tree: its children's boxes, one lane each (an empty lane holds a box no
  // ray meets), and per child a wide node index (count 0) or a leaf (its first pack in leaves_,
  // its primitive count).
  static constexpr int kWidth = 8;
  struct alignas(64) Node {
    float lo[3][kWidth], hi[3][kWidth];  // [axis][child]
    uint32_t child[kWidth];
    uint16_t count[kWidth];
    uint32_t pad[4];
  };
  static_assert(sizeof(Node) == 256);

  // Four of a leaf's triangles and parallelograms (the planar shapes') as structure-of-arrays,
  // tested four at a time (Möller–Trumbore, the same float operations as intersect_prim, so the
  // same distances); another shape's lane is tested on its own. Lanes past the pack's count are
  // degenerate (never hit). A leaf of up to kMaxLeaf primitives is one pack, or two consecutive
  // ones: Embree's leaves are blocks of four likewise.
  struct alignas(16) LeafPack {
    float a[3][4], e1[3][4], e2[3][4];  // [axis][lane]
    uint32_t first;                     // the pack's first primitive
    uint8_t count, quads, singles;      // primitive count; lane bit masks (quads: parallelograms; singles: not planar)
    uint8_t pad[9];
  };
  static_assert(sizeof(LeafPack) == 160);
  static constexpr int kMaxLeaf = 8;
  // The packs of a leaf of `count` primitives.
  static constexpr uint32_t packs_of(uint32_t count) { return (count + 3) / 4; }

  // The wide nodes and leaf packs, as stored (tests compare trees by them).
  const UninitVector<Node>& nodes() const { return nodes_; }
  const UninitVector<LeafPack>& leaves() const { return leaves_; }

 private:
  template <bool any_hit>
  bool traverse(const Ray& ray, Hit& hit, float t_min) const;

  UninitVector<Node> nodes_;         // written in full by the build (resized without zeroing)
  UninitVector<LeafPack> leaves_;    // a wide node's leaf child k is leaves_[child[k]]
  std::vector<PrimRef> refs_;
  std::vector<PrimGeom> geoms_;
  std::vector<uint32_t> order_;     // input index of each stored primitive
  Aabb bounds_;
  double built_cost_ = 0;           // summed box areas of the tree as built
  int depth_ = 0;                   // levels of wide nodes (bounds the traversal stack)
  double refit_boxes();             // recomputes the boxes (and leaf packs) from geoms_; the new cost
  double tree_cost() const;         // the summed half areas of the children's boxes
};

// Float intersection of one primitive, as the BVH does it (shapes/prim_kinds.cpp; exposed for tests).
bool intersect_prim(const PrimGeom& g, const Ray& ray, float t_min, float t_max, float& t);

}  // namespace dray
