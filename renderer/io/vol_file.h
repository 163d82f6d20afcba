#pragma once
// Mitsuba's binary volume grids (`.vol`, src/core/volumegrid: "VOL", version 3, encoding 1 =
// float32, the resolution x y z, the channels, a bounding box of six floats, then the values with
// x fastest and the channels innermost).
#include <string>
#include <vector>

#include "renderer/media/grid_volume.h"

namespace dray {

// A grid read from `path` (1 or 3 channels): its resolution and channels in `g`, its values in
// `values`. Throws LoadError naming the file on a bad header, a size that does not match it, or
// a value that is not finite.
void read_vol_file(const std::string& path, GridVolume& g, std::vector<float>& values);

// Writes grid values (res.z × res.y × res.x × channels, x fastest) as a .vol file at `path`
// (through a temporary file, renamed at the end). Throws std::runtime_error when it cannot.
void write_vol_file(const std::string& path, const glm::ivec3& res, int channels, const float* values);

}  // namespace dray
