#pragma once
// dray's `grid`: Mitsuba 3's rectangle ([-1, 1]² in the z = 0 plane, facing +z, UV (x + 1) / 2,
// (y + 1) / 2) as a mesh of nu × nv vertices, two triangles a cell: a surface whose vertices can
// move (a displacement's lens, as the flat lens Mitsuba's caustics tutorial builds in Python).
// Vertex (i, j) is number i·nv + j, at u = i / (nu - 1), v = j / (nv - 1).
#include "renderer/shapes/triangle_mesh.h"

namespace dray {

TriangleMesh grid_mesh(int nu, int nv);

}  // namespace dray
