#pragma once
// OpenVDB volumes (`.vdb`, Debian's libopenvdb-dev), read wherever a gridvolume takes a file:
// the grid named "density", else the file's first float or vec3 grid (one or three channels),
// becomes the dense grid over its active voxels' bounding box (inactive voxels give their stored
// value, the background), which fills the unit cube under the volume's to_world as a .vol's grid
// does: the VDB's own transform is not applied (Mitsuba's .vol ignores its bounding box too).
// Written grids keep every voxel active, constant regions pruned to tiles (lossless), so that
// reading one back gives the same resolution and values; their transform maps voxel centres to
// (i + 0.5) / res, the unit cube.
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/media/grid_volume.h"

namespace dray {

void read_vdb_file(const std::string& path, GridVolume& g, std::vector<float>& values);
void write_vdb_file(const std::string& path, const glm::ivec3& res, int channels, const float* values, const std::string& name);

}  // namespace dray
