#include "renderer/shapes/cylinder_mesh.h"

#include <cmath>

namespace dray {

TriangleMesh cylinder_mesh(int segments, bool flip_normals) {
  const int n = segments;
  const double step = 2.0 * M_PI / n;
  const double rim = M_PI / (n * std::sin(step / 2));  // the polygon's perimeter is 2π
  TriangleMesh m;
  // Vertex 2k at z = 0 and 2k + 1 at z = 1, at angle k step.
  for (int k = 0; k < n; ++k)
    for (float z : {0.f, 1.f})
      m.positions.push_back(glm::vec3(float(rim * std::cos(k * step)), float(rim * std::sin(k * step)), z));
  const float side = flip_normals ? -1.f : 1.f;
  for (int k = 0; k < n; ++k) {
    const int next = (k + 1) % n;
    // Corners as (column, z): counter-clockwise seen from outside faces outward.
    const int corners[2][3][2] = {{{k, 0}, {k + 1, 0}, {k + 1, 1}}, {{k, 0}, {k + 1, 1}, {k, 1}}};
    for (const auto& tri : corners)
      for (int c = 0; c < 3; ++c) {
        const int at = flip_normals ? (c == 0 ? 0 : 3 - c) : c;  // flipped: the other way round
        const int column = tri[at][0], z = tri[at][1];
        const int vertex = column == k ? k : next;
        m.indices.push_back(uint32_t(2 * vertex + z));
        const double phi = column * step;
        m.corner_normals.push_back(glm::vec3(float(side * std::cos(phi)), float(side * std::sin(phi)), 0.f));
        m.corner_uvs.push_back(glm::vec2(float(double(column) / n), float(z)));
      }
  }
  m.face_material.assign(size_t(2 * n), -1);
  return m;
}

}  // namespace dray
