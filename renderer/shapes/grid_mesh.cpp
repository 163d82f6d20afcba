#include "renderer/shapes/grid_mesh.h"

namespace dray {

TriangleMesh grid_mesh(int nu, int nv) {
  TriangleMesh m;
  std::vector<glm::vec2> uv;
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nv; ++j) {
      const float u = float(i) / float(nu - 1), v = float(j) / float(nv - 1);
      m.positions.push_back(glm::vec3(2.f * u - 1.f, 2.f * v - 1.f, 0.f));
      uv.push_back(glm::vec2(u, v));
    }
  for (int i = 0; i + 1 < nu; ++i)
    for (int j = 0; j + 1 < nv; ++j) {
      const uint32_t v00 = uint32_t(i * nv + j), v01 = v00 + 1, v10 = v00 + uint32_t(nv), v11 = v10 + 1;
      for (uint32_t v : {v00, v10, v01, v01, v10, v11}) {  // counter-clockwise seen from +z
        m.indices.push_back(v);
        m.corner_uvs.push_back(uv[v]);
      }
    }
  m.face_material.assign(m.indices.size() / 3, -1);
  return m;
}

}  // namespace dray
