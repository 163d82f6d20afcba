#pragma once
// A bounding volume hierarchy over spheres, quads and triangles: binned SAH build, float
// traversal. It answers "which primitive, at what distance" and "is this segment blocked";
// derivatives never pass through it (DESIGN.md invariant 2).
#include <cstdint>
#include <vector>

#include <glm/common.hpp>

#include "renderer/ray.h"
#include "renderer/vec.h"

namespace dray {

// Which scene object a BVH primitive came from: shape index, and triangle index in a mesh.
struct PrimRef {
  uint32_t shape = 0;
  uint32_t index = 0;
};

// Float geometry of one primitive, in world space.
struct PrimGeom {
  enum Kind : uint32_t { triangle, quad, sphere };
  Vec3<float> a, b, c;  // triangle: v0, v1 - v0, v2 - v0; quad: corner, edge_u, edge_v;
                        // sphere: centre, (radius, 0, 0), unused
  Kind kind = triangle;
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

Aabb bounds_of(const PrimGeom& g);

class Bvh {
 public:
  // Builds over the primitives; both arrays are stored reordered for traversal.
  void build(std::vector<PrimRef> refs, std::vector<PrimGeom> geoms);

  // Closest hit in (t_min, ray.t_max).
  bool intersect(const Ray& ray, Hit& hit, float t_min = 0.f) const;
  // Any hit in (t_min, ray.t_max).
  bool occluded(const Ray& ray, float t_min = 0.f) const;

  const std::vector<PrimRef>& prim_refs() const { return refs_; }
  const std::vector<PrimGeom>& prim_geoms() const { return geoms_; }
  size_t node_count() const { return nodes_.size(); }
  Aabb bounds() const { return nodes_.empty() ? Aabb{} : Aabb{nodes_[0].lo, nodes_[0].hi}; }

  struct Node {
    glm::vec3 lo;
    uint32_t offset;  // leaf: first primitive; interior: index of the second child
    glm::vec3 hi;
    uint16_t count;   // leaf: number of primitives; interior: 0
    uint16_t axis;    // interior: split axis (the first child is on the low side)
  };
  static_assert(sizeof(Node) == 32);

 private:
  template <bool any_hit>
  bool traverse(const Ray& ray, Hit& hit, float t_min) const;

  std::vector<Node> nodes_;
  std::vector<PrimRef> refs_;
  std::vector<PrimGeom> geoms_;
};

// Float intersection of one primitive, as the BVH does it (exposed for tests).
bool intersect_prim(const PrimGeom& g, const Ray& ray, float t_min, float t_max, float& t);

}  // namespace dray
