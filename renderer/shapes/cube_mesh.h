#pragma once
// Mitsuba 3's `cube` as a triangle mesh (src/shapes/cube.cpp): [-1, 1]^3, its 8 corners shared by
// the 12 triangles (a closed surface, so that it can bound a medium), two triangles a side facing
// out, each side's UVs (0, 1), (1, 1), (1, 0), (0, 0) at its four corners as Mitsuba's; no
// corner normals (flat: each side's face normal, as Mitsuba's per-side normals).
#include "renderer/shapes/triangle_mesh.h"

namespace dray {

TriangleMesh cube_mesh();

}  // namespace dray
