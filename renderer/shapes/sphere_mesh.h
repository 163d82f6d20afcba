#pragma once
// Mitsuba 3's `sphere` as a triangle mesh, for shapegroups (whose trees hold triangles): the unit
// sphere about the origin as `rings` bands of `segments` quads (triangles at the poles), corners
// on the sphere, the exact radial normals at the corners (smooth shading), and Mitsuba's UVs
// (φ / 2π, θ / π), φ from +x towards +y and θ from +z, per corner so that u runs to 1 at the seam.
// 256 × 128 keep the outline within 8·10⁻⁵ radii of the sphere, as the disk's.
#include "renderer/shapes/triangle_mesh.h"

namespace dray {

inline constexpr int kSphereSegments = 256, kSphereRings = 128;

TriangleMesh sphere_mesh(int segments = kSphereSegments, int rings = kSphereRings);

}  // namespace dray
