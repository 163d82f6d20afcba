#pragma once
// A volume grid's file, by its extension: OpenVDB's `.vdb` (io/vdb_file.h), else Mitsuba's
// `.vol` (io/vol_file.h). Both give the same dense grid, x fastest and the channels innermost,
// placed in the unit cube under the volume's to_world as Mitsuba places a .vol.
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/media/grid_volume.h"

namespace dray {

// Whether `path` names an OpenVDB file (its extension .vdb, in any case).
bool is_vdb_path(const std::string& path);

// The grid in `path` (1 or 3 channels): its resolution and channels in `g`, its values in
// `values`. Throws LoadError naming the file.
void read_grid_file(const std::string& path, GridVolume& g, std::vector<float>& values);

// Writes grid values (res.z × res.y × res.x × channels, x fastest) at `path` in the format its
// extension names; `name` is an OpenVDB grid's name. Throws std::runtime_error when it cannot.
void write_grid_file(const std::string& path, const glm::ivec3& res, int channels, const float* values,
                     const std::string& name = "density");

}  // namespace dray
