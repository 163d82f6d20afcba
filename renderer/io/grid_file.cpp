#include "renderer/io/grid_file.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "renderer/io/vdb_file.h"
#include "renderer/io/vol_file.h"

namespace dray {

bool is_vdb_path(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".vdb";
}

void read_grid_file(const std::string& path, GridVolume& g, std::vector<float>& values) {
  if (is_vdb_path(path)) read_vdb_file(path, g, values);
  else read_vol_file(path, g, values);
}

void write_grid_file(const std::string& path, const glm::ivec3& res, int channels, const float* values, const std::string& name) {
  if (is_vdb_path(path)) write_vdb_file(path, res, channels, values, name);
  else write_vol_file(path, res, channels, values);
}

}  // namespace dray
