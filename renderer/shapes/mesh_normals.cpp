#include "renderer/shapes/mesh_normals.h"

#include <cmath>

namespace dray {

VertexRings vertex_rings(const std::vector<uint32_t>& indices, size_t vertex_count) {
  VertexRings r;
  r.start.assign(vertex_count + 1, 0);
  const size_t faces = indices.size() / 3;
  // A face once per vertex, however many of its corners the vertex is.
  auto corner_is_first = [&](size_t f, int k) { return k == 0 || (indices[3 * f + size_t(k)] != indices[3 * f] && (k == 1 || indices[3 * f + 2] != indices[3 * f + 1])); };
  for (size_t f = 0; f < faces; ++f)
    for (int k = 0; k < 3; ++k)
      if (corner_is_first(f, k)) ++r.start[indices[3 * f + size_t(k)] + 1];
  for (size_t v = 0; v < vertex_count; ++v) r.start[v + 1] += r.start[v];
  r.faces.resize(r.start[vertex_count]);
  std::vector<uint32_t> next(r.start.begin(), r.start.end() - 1);
  for (size_t f = 0; f < faces; ++f)
    for (int k = 0; k < 3; ++k)
      if (corner_is_first(f, k)) r.faces[next[indices[3 * f + size_t(k)]]++] = uint32_t(f);
  return r;
}

std::vector<glm::vec3> vertex_normals(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices) {
  return vertex_normals(positions, indices, vertex_rings(indices, positions.size()));
}

std::vector<glm::vec3> vertex_normals(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices,
                                      const VertexRings& rings) {
  auto position = [&](uint32_t i) { return Vec3<float>(positions[i]); };
  // Each vertex's normal once; NaN where no face around it is usable (its corners then take their
  // own face's normal).
  std::vector<glm::vec3> smooth(positions.size());
  for (uint32_t v = 0; v < positions.size(); ++v)
    smooth[v] = to_glm(vertex_normal<float>(indices, v, rings.of(v), position, Vec3<float>(NAN, NAN, NAN)));
  std::vector<glm::vec3> out(indices.size());
  for (size_t f = 0; f < indices.size() / 3; ++f) {
    Vec3<float> face(0.f, 0.f, 0.f);
    face_unit_normal<float>(indices, uint32_t(f), position, face);
    for (int k = 0; k < 3; ++k) {
      const glm::vec3 n = smooth[indices[3 * f + size_t(k)]];
      out[3 * f + size_t(k)] = std::isnan(n.x) ? to_glm(face) : n;
    }
  }
  return out;
}

}  // namespace dray
