#pragma once
// Mitsuba 3's `cylinder` as a triangle mesh: the open unit cylinder about the z axis from z = 0 to
// z = 1 (no caps), normals outward (inward flipped), as `segments` quads of two triangles whose
// polygon has the circle's perimeter (corners at radius π / (n sin(π/n)): 1.000025 for n = 256;
// the outline stays within 5e-5 radii of the circle). Shading normals are the exact radial ones at
// the corners (smooth). UVs as Mitsuba's cylinder: (φ / 2π, z), φ from +x towards +y, per corner,
// so that u runs to 1 at the seam without duplicated vertices.
#include "renderer/shapes/triangle_mesh.h"

namespace dray {

inline constexpr int kCylinderSegments = 256;

TriangleMesh cylinder_mesh(int segments = kCylinderSegments, bool flip_normals = false);

}  // namespace dray
