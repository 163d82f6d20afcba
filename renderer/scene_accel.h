#pragma once
// The scene's two-level acceleration structure: one BVH over the world-space primitives, one BVH
// per shape group over its meshes in object space (Mitsuba's `shapegroup`), and a top-level tree
// over the instances (Mitsuba's `instance`: a group under a transform). A group's triangles are
// stored once whatever the number of its instances; a ray meets an instance in the group's
// space (o, d taken back through the instance's inverse: the same ray parameter t).
//
// Primitive numbers: the world BVH's primitives first, then each instance's group primitives
// from its prim_base. prim_ref and prim_geom answer for both, an instance's geometry transformed
// to world space on demand (as a copied mesh's would be: the same float operations).
#include <cstdint>
#include <memory>
#include <vector>

#include <glm/mat3x3.hpp>

#include "renderer/accel/bvh.h"
#include "renderer/shapes/sdf_grid.h"
#include "renderer/core/transform.h"

namespace dray {

// An instance as traversal sees it: the group it shows, its float transform and inverse, its box.
struct InstanceXf {
  uint32_t group = 0;
  uint32_t first_shape = 0;  // the scene shape of the group's first member (then one per member)
  TransformT<float> xf;      // world from group space, as a copied mesh's transform
  // The group's sdfgrids placed in world space: SceneAccel's placed grid first_grid + member
  // (null for a mesh member); UINT32_MAX when the group has none.
  uint32_t first_grid = UINT32_MAX;
  // Set by SceneAccel::set_instances: the inverse of xf's linear part, the world box.
  glm::mat3 inverse{1.f};
  Aabb box;
};

// A group member's object-space triangles, for the group's BVH and world geometry on demand
// (a copy: the structure stays valid when the scene is copied); or an sdfgrid placed in the
// group's space (its voxels in the group's tree, each instance a placed copy for world hits).
struct GroupMesh {
  std::vector<glm::vec3> positions;
  std::vector<uint32_t> indices;
  std::shared_ptr<const SdfGrid> grid;
};

class SceneAccel {
 public:
  // The world primitives: as Bvh::update (refit when only positions moved).
  void update_world(std::vector<PrimRef> refs, std::vector<PrimGeom> geoms, int threads);
  // A group's BVH over its members' triangles in object space (refs: member index, triangle).
  void set_groups(std::vector<std::vector<GroupMesh>> groups, int threads);
  // The instances (their boxes computed here) and the top-level tree over them.
  void set_instances(std::vector<InstanceXf> instances);

  // Closest hit in (t_min, ray.t_max), and any hit.
  bool intersect(const Ray& ray, Hit& hit, float t_min = 0.f) const;
  bool occluded(const Ray& ray, float t_min = 0.f) const;

  uint32_t prim_count() const { return total_prims_; }
  // Inline for world primitives (every hit asks, often several times); instanced ones out of line.
  PrimRef prim_ref(uint32_t prim) const { return prim < world_.prim_refs().size() ? world_.prim_refs()[prim] : instance_ref(prim); }
  PrimGeom prim_geom(uint32_t prim) const { return prim < world_.prim_refs().size() ? world_.prim_geoms()[prim] : instance_geom(prim); }
  // A world primitive's index in the build's input (see Bvh::input_index); instanced: prim.
  uint32_t input_index(uint32_t prim) const { return prim < world_.prim_refs().size() ? world_.input_index(prim) : prim; }
  uint32_t world_prim_count() const { return uint32_t(world_.prim_refs().size()); }
  Aabb bounds() const;
  // Bytes held: the world tree, each group's tree and vertex copy, the instances and top tree.
  size_t memory_bytes() const;
  size_t top_memory_bytes() const { return instances_.capacity() * sizeof(InstanceXf) + top_.capacity() * sizeof(TopNode) + prim_base_.capacity() * 4; }

  const Bvh& world() const { return world_; }
  const Bvh& group(uint32_t g) const { return groups_[g].bvh; }
  size_t group_count() const { return groups_.size(); }
  const std::vector<InstanceXf>& instances() const { return instances_; }
  // Instance i's copy of its group's member m, an sdfgrid, placed in world space.
  const SdfGrid& placed_grid(size_t i, uint32_t m) const { return *placed_[instances_[i].first_grid + m]; }
  // An instance's world point from a group vertex (the float transform, as a copy would have it).
  static glm::vec3 to_world(const InstanceXf& x, const glm::vec3& p);

 private:
  struct Group {
    std::vector<GroupMesh> meshes;
    Bvh bvh;
  };
  // The top-level tree: binary, its leaves one instance each.
  struct TopNode {
    Aabb box;
    uint32_t left = 0, right = 0;  // children; a leaf: left = instance, right = UINT32_MAX
  };
  PrimRef instance_ref(uint32_t prim) const;
  PrimGeom instance_geom(uint32_t prim) const;
  uint32_t build_top(std::vector<uint32_t>& ids, size_t begin, size_t end);
  template <bool any_hit>
  bool traverse_top(const Ray& ray, Hit& hit, float t_min, float t_max) const;
  PrimGeom instance_geom(const InstanceXf& x, const Group& g, uint32_t local) const;
  void count_prims();

  Bvh world_;
  std::vector<Group> groups_;
  std::vector<InstanceXf> instances_;
  std::vector<std::shared_ptr<const SdfGrid>> placed_;  // InstanceXf::first_grid
  std::vector<uint32_t> prim_base_;  // each instance's first primitive number
  std::vector<TopNode> top_;
  uint32_t total_prims_ = 0;
};

}  // namespace dray
