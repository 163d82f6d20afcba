#include "renderer/shapes/cube_mesh.h"

namespace dray {

TriangleMesh cube_mesh() {
  TriangleMesh m;
  // Corner c at (±1, ±1, ±1): bit k of c the sign of axis k.
  for (uint32_t c = 0; c < 8; ++c) m.positions.push_back(glm::vec3(c & 1 ? 1.f : -1.f, c & 2 ? 1.f : -1.f, c & 4 ? 1.f : -1.f));
  // Each side's four corners in Mitsuba's order (sides facing -y, +y, +x, +z, -x, -z), and the
  // UV each takes; the side's triangles are (0, 1, 2) and (3, 0, 2) of its four.
  static const uint32_t side_corners[6][4] = {{1, 5, 4, 0}, {3, 2, 6, 7}, {1, 3, 7, 5}, {5, 7, 6, 4}, {4, 6, 2, 0}, {3, 1, 0, 2}};
  static const glm::vec2 side_uv[4] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  for (const auto& side : side_corners)
    for (const int k : {0, 1, 2, 3, 0, 2}) {
      m.indices.push_back(side[k]);
      m.corner_uvs.push_back(side_uv[k]);
    }
  m.face_material.assign(12, -1);
  return m;
}

}  // namespace dray
