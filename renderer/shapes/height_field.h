#pragma once
// A synthetic large mesh for the BVH's tests and benchmarks: the height field
// y = amplitude sin(fx i) cos(fz j) over an n x n grid of unit cells, two triangles per cell.
#include <cmath>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/shapes/shape.h"

namespace dray {

inline std::vector<PrimGeom> height_field(int n, float amplitude, float fx, float fz) {
  auto y = [&](int i, int j) { return amplitude * std::sin(fx * float(i)) * std::cos(fz * float(j)); };
  std::vector<PrimGeom> geoms;
  geoms.reserve(2 * size_t(n) * size_t(n));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const glm::vec3 p00(i, y(i, j), j), p10(i + 1, y(i + 1, j), j), p01(i, y(i, j + 1), j + 1),
          p11(i + 1, y(i + 1, j + 1), j + 1);
      geoms.push_back({Vec3<float>(p00), Vec3<float>(p10 - p00), Vec3<float>(p11 - p00), kPrimKind<MeshShape>});
      geoms.push_back({Vec3<float>(p00), Vec3<float>(p11 - p00), Vec3<float>(p01 - p00), kPrimKind<MeshShape>});
    }
  return geoms;
}

}  // namespace dray
