#include "renderer/scene_accel.h"
#include "renderer/shapes/shape.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <glm/common.hpp>
#include <glm/matrix.hpp>

namespace dray {

void SceneAccel::update_world(std::vector<PrimRef> refs, std::vector<PrimGeom> geoms, int threads) {
  world_.update(std::move(refs), std::move(geoms), threads);
  count_prims();
}

void SceneAccel::set_groups(std::vector<std::vector<GroupMesh>> groups, int threads) {
  groups_.clear();
  for (auto& members : groups) {
    Group g;
    g.meshes = std::move(members);
    std::vector<PrimRef> refs;
    std::vector<PrimGeom> geoms;
    for (uint32_t k = 0; k < g.meshes.size(); ++k) {
      if (const SdfGrid* grid = g.meshes[k].grid.get()) {
        for (size_t j = 0; j < grid->voxels.size(); ++j) {
          refs.push_back({k, grid->voxels[j]});
          geoms.push_back(sdf_voxel_geom(*grid, j));
        }
        continue;
      }
      const auto& pos = g.meshes[k].positions;
      const auto& idx = g.meshes[k].indices;
      for (uint32_t f = 0; f < idx.size() / 3; ++f) {
        const glm::vec3 v0 = pos[idx[3 * f]], v1 = pos[idx[3 * f + 1]], v2 = pos[idx[3 * f + 2]];
        refs.push_back({k, f});
        geoms.push_back({Vec3<float>(v0), Vec3<float>(v1 - v0), Vec3<float>(v2 - v0), kPrimKind<MeshShape>});
      }
    }
    g.bvh.build(std::move(refs), std::move(geoms), threads);
    groups_.push_back(std::move(g));
  }
  instances_.clear();
  top_.clear();
  count_prims();
}

glm::vec3 SceneAccel::to_world(const InstanceXf& x, const glm::vec3& p) {
  return to_glm(transform_point(x.xf, Vec3<float>(p)));
}

void SceneAccel::set_instances(std::vector<InstanceXf> instances) {
  instances_ = std::move(instances);
  placed_.clear();
  for (InstanceXf& x : instances_) {
    const glm::mat3 linear = linear_matrix(x.xf);
    if (!(std::fabs(glm::determinant(linear)) > 0.f)) throw std::runtime_error("an instance's transform is singular");
    x.inverse = glm::inverse(linear);
    x.first_grid = UINT32_MAX;
    for (const GroupMesh& m : groups_.at(x.group).meshes)
      if (m.grid) {
        x.first_grid = uint32_t(placed_.size());
        for (const GroupMesh& member : groups_[x.group].meshes)
          placed_.push_back(member.grid ? std::make_shared<const SdfGrid>(placed_sdf_grid(*member.grid, linear, to_glm(x.xf.translate)))
                                        : nullptr);
        break;
      }
    const Aabb b = groups_.at(x.group).bvh.bounds();
    x.box = Aabb{};
    for (int c = 0; c < 8; ++c)
      x.box.grow(to_world(x, glm::vec3(c & 1 ? b.hi.x : b.lo.x, c & 2 ? b.hi.y : b.lo.y, c & 4 ? b.hi.z : b.lo.z)));
    // Rounding: the transformed corners are a few ulps off the exact box; widen it by as much.
    const glm::vec3 pad = (glm::abs(x.box.lo) + glm::abs(x.box.hi)) * 0x1p-20f;
    x.box.lo -= pad;
    x.box.hi += pad;
  }
  top_.clear();
  if (!instances_.empty()) {
    std::vector<uint32_t> ids(instances_.size());
    for (uint32_t i = 0; i < ids.size(); ++i) ids[i] = i;
    top_.reserve(2 * ids.size());
    build_top(ids, 0, ids.size());
  }
  count_prims();
}

void SceneAccel::count_prims() {
  uint64_t n = world_.prim_refs().size();
  prim_base_.resize(instances_.size());
  for (size_t i = 0; i < instances_.size(); ++i) {
    prim_base_[i] = uint32_t(n);
    n += groups_[instances_[i].group].bvh.prim_refs().size();
    if (n > UINT32_MAX) throw std::runtime_error("the scene's instances hold more than 2^32 primitives");
  }
  total_prims_ = uint32_t(n);
}

// Median split of the instances' box centres along the widest axis: the top tree is small (one
// leaf per instance) and built in O(n log² n).
uint32_t SceneAccel::build_top(std::vector<uint32_t>& ids, size_t begin, size_t end) {
  const uint32_t node = uint32_t(top_.size());
  top_.emplace_back();
  Aabb box, centres;
  for (size_t i = begin; i < end; ++i) {
    box.grow(instances_[ids[i]].box);
    centres.grow(instances_[ids[i]].box.centre());
  }
  top_[node].box = box;
  if (end - begin == 1) {
    top_[node].left = ids[begin];
    top_[node].right = UINT32_MAX;
    return node;
  }
  const glm::vec3 ext = centres.hi - centres.lo;
  const int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2);
  const size_t mid = begin + (end - begin) / 2;
  std::nth_element(ids.begin() + long(begin), ids.begin() + long(mid), ids.begin() + long(end), [&](uint32_t a, uint32_t b) {
    const float ca = instances_[a].box.centre()[axis], cb = instances_[b].box.centre()[axis];
    return ca < cb || (ca == cb && a < b);
  });
  const uint32_t left = build_top(ids, begin, mid);
  const uint32_t right = build_top(ids, mid, end);
  top_[node].left = left;
  top_[node].right = right;
  return node;
}

namespace {

// The entry distance of a box, or INFINITY when the ray misses it within (t_min, t_max).
float enter_box(const Aabb& b, const glm::vec3& o, const glm::vec3& inv_d, float t_min, float t_max) {
  float t0 = t_min, t1 = t_max;
  for (int a = 0; a < 3; ++a) {
    float n = (b.lo[a] - o[a]) * inv_d[a], f = (b.hi[a] - o[a]) * inv_d[a];
    if (n > f) std::swap(n, f);
    f *= 1.f + 2.f * 0x1p-23f;  // conservative, as the wide test
    if (n > t0) t0 = n;
    if (f < t1) t1 = f;
  }
  return t0 <= t1 ? t0 : INFINITY;
}

}  // namespace

template <bool any_hit>
bool SceneAccel::traverse_top(const Ray& ray, Hit& hit, float t_min, float t_max) const {
  if (top_.empty()) return false;
  const glm::vec3 inv_d = 1.f / ray.d;
  bool found = false;
  // A depth-first walk holds at most one deferred child per level: the median-split tree over at
  // most 2^32 instances has 33 levels.
  uint32_t stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const TopNode& n = top_[stack[--top]];
    if (enter_box(n.box, ray.o, inv_d, t_min, t_max) == INFINITY) continue;
    if (n.right != UINT32_MAX) {
      // The nearer child next.
      const float tl = enter_box(top_[n.left].box, ray.o, inv_d, t_min, t_max);
      const float tr = enter_box(top_[n.right].box, ray.o, inv_d, t_min, t_max);
      if (tl <= tr) {
        if (tr < INFINITY) stack[top++] = n.right;
        if (tl < INFINITY) stack[top++] = n.left;
      } else {
        if (tl < INFINITY) stack[top++] = n.left;
        stack[top++] = n.right;
      }
      continue;
    }
    const uint32_t i = n.left;
    const InstanceXf& x = instances_[i];
    const Bvh& blas = groups_[x.group].bvh;
    // The ray in the group's space: o' = A⁻¹(o − b), d' = A⁻¹ d (t unchanged).
    const Ray local{x.inverse * (ray.o - to_glm(x.xf.translate)), x.inverse * ray.d, t_max};
    if constexpr (any_hit) {
      if (blas.occluded(local, t_min)) return true;
      continue;
    }
    Hit h;
    if (!blas.intersect(local, h, t_min)) continue;
    // The distance a copied mesh would find: the world triangle's (same primitive, same float
    // operations as the world BVH); the group-space distance where rounding loses it at an edge.
    const uint32_t prim = prim_base_[i] + h.prim;
    float t = h.t;
    float t_hit;
    if (intersect_prim(prim_geom(prim), ray, t_min, INFINITY, t_hit)) t = t_hit;
    if (!(t < t_max)) continue;
    t_max = t;
    hit = {t, prim};
    found = true;
  }
  return found;
}

bool SceneAccel::intersect(const Ray& ray, Hit& hit, float t_min) const {
  bool found = world_.intersect(ray, hit, t_min);
  if (instances_.empty()) return found;
  Hit h;
  if (!traverse_top<false>(ray, h, t_min, found ? hit.t : ray.t_max)) return found;
  hit = h;
  return true;
}

bool SceneAccel::occluded(const Ray& ray, float t_min) const {
  if (world_.occluded(ray, t_min)) return true;
  Hit unused;
  return traverse_top<true>(ray, unused, t_min, ray.t_max);
}

PrimRef SceneAccel::instance_ref(uint32_t prim) const {
  const size_t i = size_t(std::upper_bound(prim_base_.begin(), prim_base_.end(), prim) - prim_base_.begin()) - 1;
  const PrimRef local = groups_[instances_[i].group].bvh.prim_refs()[prim - prim_base_[i]];
  return {instances_[i].first_shape + local.shape, local.index};
}

PrimGeom SceneAccel::instance_geom(const InstanceXf& x, const Group& g, uint32_t local) const {
  const PrimRef r = g.bvh.prim_refs()[local];
  const GroupMesh& m = g.meshes[r.shape];
  if (m.grid) return sdf_voxel_on(g.bvh.prim_geoms()[local], *placed_[x.first_grid + r.shape]);
  const uint32_t* tri = &m.indices[3 * size_t(r.index)];
  const glm::vec3 v0 = to_world(x, m.positions[tri[0]]), v1 = to_world(x, m.positions[tri[1]]), v2 = to_world(x, m.positions[tri[2]]);
  return {Vec3<float>(v0), Vec3<float>(v1 - v0), Vec3<float>(v2 - v0), kPrimKind<MeshShape>};
}

PrimGeom SceneAccel::instance_geom(uint32_t prim) const {
  const size_t i = size_t(std::upper_bound(prim_base_.begin(), prim_base_.end(), prim) - prim_base_.begin()) - 1;
  const InstanceXf& x = instances_[i];
  return instance_geom(x, groups_[x.group], prim - prim_base_[i]);
}

size_t SceneAccel::memory_bytes() const {
  size_t n = world_.memory_bytes() + top_memory_bytes();
  for (const Group& g : groups_) {
    n += g.bvh.memory_bytes();
    for (const GroupMesh& m : g.meshes) n += m.positions.capacity() * sizeof(glm::vec3) + m.indices.capacity() * 4;
  }
  // Instances' placed sdfgrids (their samples are the group's).
  for (const auto& p : placed_) n += sizeof(p) + (p ? sizeof(SdfGrid) : 0);
  return n;
}

Aabb SceneAccel::bounds() const {
  Aabb b = world_.bounds();
  if (!top_.empty()) b.grow(top_[0].box);
  return b;
}

}  // namespace dray
