#include "renderer/shapes/mesh_normals.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

namespace dray {

std::vector<glm::vec3> vertex_normals(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices) {
  std::vector<glm::vec3> sum(positions.size(), glm::vec3(0.f));
  const size_t faces = indices.size() / 3;
  std::vector<glm::vec3> face(faces, glm::vec3(0.f));
  for (size_t f = 0; f < faces; ++f) {
    const uint32_t* v = &indices[3 * f];
    const glm::vec3 n = glm::cross(positions[v[1]] - positions[v[0]], positions[v[2]] - positions[v[0]]);
    const float len = glm::length(n);
    if (!(len > 0.f)) continue;
    face[f] = n / len;
    for (int k = 0; k < 3; ++k) {
      const glm::vec3 a = positions[v[(k + 1) % 3]] - positions[v[k]], b = positions[v[(k + 2) % 3]] - positions[v[k]];
      const float la = glm::length(a), lb = glm::length(b);
      if (!(la > 0.f && lb > 0.f)) continue;
      const float angle = std::acos(std::clamp(glm::dot(a, b) / (la * lb), -1.f, 1.f));
      sum[v[k]] += face[f] * angle;
    }
  }
  std::vector<glm::vec3> out(indices.size());
  for (size_t f = 0; f < faces; ++f)
    for (int k = 0; k < 3; ++k) {
      const glm::vec3 s = sum[indices[3 * f + size_t(k)]];
      const float len = glm::length(s);
      out[3 * f + size_t(k)] = len > 0.f ? s / len : face[f];
    }
  return out;
}

}  // namespace dray
