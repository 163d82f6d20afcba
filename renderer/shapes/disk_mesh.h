#pragma once
// Mitsuba 3's `disk` as a triangle mesh: the unit disk in the z = 0 plane about the origin, facing
// +z (-z flipped), as a fan of `segments` triangles whose polygon has the disk's area (its corners
// at radius sqrt(2π / (n sin(2π/n))): 1.00005 for n = 256; the outline stays within 8e-5 radii of
// the circle). UVs as Mitsuba's disk: (r, φ / 2π), φ from +x towards +y; each fan triangle's centre
// corner takes its own mid-angle, so that v interpolates without wrapping.
#include <vector>

#include "renderer/shapes/triangle_mesh.h"

namespace dray {

inline constexpr int kDiskSegments = 256;

TriangleMesh disk_mesh(int segments = kDiskSegments, bool flip_normals = false);

}  // namespace dray
