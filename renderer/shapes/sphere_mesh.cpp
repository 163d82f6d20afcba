#include "renderer/shapes/sphere_mesh.h"

#include <cmath>

namespace dray {

TriangleMesh sphere_mesh(int segments, int rings) {
  TriangleMesh m;
  // Vertex (ring j, column k) for j in [0, rings], k in [0, segments): the poles repeated per column
  // keep the indexing plain.
  auto at = [&](int j, int k) { return uint32_t(j * segments + (k % segments)); };
  auto point = [&](int j, int k) {
    const double theta = M_PI * j / rings, phi = 2.0 * M_PI * k / segments;
    return glm::vec3(float(std::sin(theta) * std::cos(phi)), float(std::sin(theta) * std::sin(phi)), float(std::cos(theta)));
  };
  for (int j = 0; j <= rings; ++j)
    for (int k = 0; k < segments; ++k) m.positions.push_back(point(j, k));
  auto corner = [&](int j, int k) {
    m.indices.push_back(at(j, k));
    m.corner_normals.push_back(point(j, k));
    m.corner_uvs.push_back(glm::vec2(float(double(k) / segments), float(double(j) / rings)));
  };
  // Counter-clockwise seen from outside: θ grows down the sphere, φ around +z.
  for (int j = 0; j < rings; ++j)
    for (int k = 0; k < segments; ++k) {
      if (j > 0) {  // (j, k), (j + 1, k + 1), (j, k + 1)
        corner(j, k), corner(j + 1, k + 1), corner(j, k + 1);
        m.face_material.push_back(-1);
      }
      if (j + 1 < rings) {  // (j, k), (j + 1, k), (j + 1, k + 1)
        corner(j, k), corner(j + 1, k), corner(j + 1, k + 1);
        m.face_material.push_back(-1);
      }
    }
  return m;
}

}  // namespace dray
