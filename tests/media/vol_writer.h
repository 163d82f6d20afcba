#pragma once
// Tests' Mitsuba .vol files: the project's writer (renderer/io/vol_file.h), optionally cut short.
#include <filesystem>
#include <string>
#include <vector>

#include "renderer/io/vol_file.h"

namespace dray::testing {

// Writes res³ voxels of `channels` (values in Mitsuba's order), `drop` bytes cut from the end.
inline void write_vol(const std::string& path, int res, int channels, const std::vector<float>& values, size_t drop = 0) {
  write_vol_file(path, glm::ivec3(res), channels, values.data());
  if (drop > 0) std::filesystem::resize_file(path, std::filesystem::file_size(path) - drop);
}

}  // namespace dray::testing
