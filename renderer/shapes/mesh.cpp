#include "renderer/shapes/mesh.h"

#include "renderer/shapes/mesh_normals.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace dray {

namespace {

// Copies the mesh's vertex block (or its displaced positions) into its object positions; whether any
// moved.
bool refresh_positions(Mesh& m, const ParamTable& params, const Texture* textures) {
  bool moved = false;
  const ParamView<float> P(params);
  for (size_t i = 0; i < m.object_positions.size(); ++i) {
    const glm::vec3 p = m.displacement ? to_glm(displaced_position(*m.displacement, textures, P, uint32_t(i)))
                                       : params.get_vec3(m.vertices + Slot(3 * i));
    moved = moved || p != m.object_positions[i];
    m.object_positions[i] = p;
  }
  return moved;
}

// A smooth mesh's normals block <-> its corner normals: each entry normalized (unit_normal, the
// same float operations as the kernel's when the block is differentiated).
void load_normals(Mesh& m, const ParamTable& params) {
  for (size_t c = 0; c < m.indices.size(); ++c)
    m.object_normals[c] = to_glm(unit_normal(Vec3<float>(params.get_vec3(m.normals + Slot(3 * m.indices[c])))));
}
void store_normals(const Mesh& m, ParamTable& params) {
  for (size_t c = 0; c < m.indices.size(); ++c)
    for (int k = 0; k < 3; ++k) params.set(m.normals + Slot(3 * m.indices[c] + uint32_t(k)), m.object_normals[c][k]);
}

}  // namespace


std::vector<MeshEdge> mesh_edges(const Mesh& mesh) {
  std::unordered_map<uint64_t, size_t> index;  // (v0 << 32 | v1) -> edge
  std::vector<MeshEdge> edges;
  std::vector<int> faces;  // per edge: how many faces share it
  const uint32_t n_faces = uint32_t(mesh.indices.size() / 3);
  for (uint32_t f = 0; f < n_faces; ++f)
    for (int k = 0; k < 3; ++k) {
      uint32_t a = mesh.indices[3 * size_t(f) + size_t(k)], b = mesh.indices[3 * size_t(f) + size_t((k + 1) % 3)];
      if (a > b) std::swap(a, b);
      const uint64_t key = uint64_t(a) << 32 | b;
      auto [it, fresh] = index.try_emplace(key, edges.size());
      if (fresh) {
        edges.push_back({a, b, f, MeshEdge::kOpen});
        faces.push_back(1);
      } else if (++faces[it->second] == 2) {
        edges[it->second].f1 = f;
      } else {
        edges[it->second].f1 = MeshEdge::kOpen;  // non-manifold: treated as open
      }
    }
  return edges;
}

size_t open_edges(const Mesh& mesh) {
  std::map<std::tuple<float, float, float>, uint32_t> id;
  auto weld = [&](uint32_t v) {
    const glm::vec3& p = mesh.object_positions[v];
    return id.emplace(std::make_tuple(p.x, p.y, p.z), uint32_t(id.size())).first->second;
  };
  std::map<std::pair<uint32_t, uint32_t>, int> faces;
  for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3)
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = weld(mesh.indices[t + size_t(k)]), b = weld(mesh.indices[t + size_t((k + 1) % 3)]);
      if (a != b) ++faces[std::minmax(a, b)];
    }
  size_t open = 0;
  for (const auto& [edge, n] : faces) open += n == 1;
  return open;
}

void place_mesh(Mesh& m, ParamTable& params, const Transform& transform, const Texture* textures) {
  const bool moved = (m.vertices != kNoSlot || m.displacement) && refresh_positions(m, params, textures);
  if (m.normals_follow_vertices()) m.rings = vertex_rings(m.indices, m.object_positions.size());  // O(faces): topology may have changed
  if (moved && !m.object_normals.empty()) {
    m.object_normals = vertex_normals(m.object_positions, m.indices, m.rings);  // smooth shading follows the shape
    if (m.normals != kNoSlot) store_normals(m, params);
  } else if (m.normals != kNoSlot) {
    load_normals(m, params);  // the block may have been set (an update, an optimization step)
  }
  const TransformT<float> xf = lift_transform(ParamView<float>(params), transform);
  m.world_positions.resize(m.object_positions.size());
  for (size_t i = 0; i < m.object_positions.size(); ++i)
    m.world_positions[i] = to_glm(transform_point(xf, Vec3<float>(m.object_positions[i])));
  m.world_normals.resize(m.object_normals.size());
  for (size_t i = 0; i < m.object_normals.size(); ++i)
    m.world_normals[i] = to_glm(transform_normal(xf, Vec3<float>(m.object_normals[i])));
}

}  // namespace dray
