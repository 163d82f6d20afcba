#pragma once
// Tests' Mitsuba .vol files: a header and float32 values (x fastest, channels innermost).
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace dray::testing {

// Writes res³ voxels of `channels` (values in Mitsuba's order), `drop` bytes cut from the end.
inline void write_vol(const std::string& path, int res, int channels, const std::vector<float>& values, size_t drop = 0) {
  std::string bytes = "VOL";
  bytes.push_back(3);
  const int32_t head[5] = {1, res, res, res, channels};
  bytes.append(reinterpret_cast<const char*>(head), sizeof head);
  const float box[6] = {0, 0, 0, 1, 1, 1};
  bytes.append(reinterpret_cast<const char*>(box), sizeof box);
  bytes.append(reinterpret_cast<const char*>(values.data()), 4 * values.size());
  bytes.resize(bytes.size() - drop);
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace dray::testing
