#include "renderer/shapes/disk_mesh.h"

#include <cmath>

namespace dray {

TriangleMesh disk_mesh(int segments, bool flip_normals) {
  const int n = segments;
  const double step = 2.0 * M_PI / n;
  const double rim = std::sqrt(2.0 * M_PI / (n * std::sin(step)));  // the polygon's area is π
  TriangleMesh m;
  m.positions.push_back(glm::vec3(0.f));
  for (int k = 0; k < n; ++k)
    m.positions.push_back(glm::vec3(float(rim * std::cos(k * step)), float(rim * std::sin(k * step)), 0.f));
  for (int k = 0; k < n; ++k) {
    const uint32_t a = uint32_t(1 + k), b = uint32_t(1 + (k + 1) % n);
    // Counter-clockwise seen from +z faces +z; flipped, the other way round.
    const uint32_t tri[3] = {0, flip_normals ? b : a, flip_normals ? a : b};
    const float v[3] = {float((k + 0.5) / n), float(tri[1] == a ? double(k) / n : double(k + 1) / n),
                        float(tri[2] == a ? double(k) / n : double(k + 1) / n)};
    for (int c = 0; c < 3; ++c) {
      m.indices.push_back(tri[c]);
      m.corner_uvs.push_back(glm::vec2(c == 0 ? 0.f : 1.f, v[c]));
    }
  }
  m.face_material.assign(size_t(n), -1);
  return m;
}

}  // namespace dray
