#include "renderer/io/vol_file.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

#include "renderer/core/atomic_file.h"
#include "renderer/core/load_error.h"

namespace dray {

void read_vol_file(const std::string& path, GridVolume& g, std::vector<float>& values) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LoadError(path + ": cannot open the volume file");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr size_t kHeader = 48;
  if (bytes.size() < kHeader || std::memcmp(bytes.data(), "VOL", 3) != 0 || bytes[3] != 3)
    throw LoadError(path + ": not a Mitsuba volume file (expected the header \"VOL\" version 3)");
  int32_t head[5];
  std::memcpy(head, bytes.data() + 4, sizeof head);
  if (head[0] != 1) throw LoadError(path + ": unsupported volume encoding " + std::to_string(head[0]) + " (supported: 1, float32)");
  if (head[1] <= 0 || head[2] <= 0 || head[3] <= 0)
    throw LoadError(path + ": the resolution must be positive, got " + std::to_string(head[1]) + "x" +
                    std::to_string(head[2]) + "x" + std::to_string(head[3]));
  if (head[4] != 1 && head[4] != 3)
    throw LoadError(path + ": " + std::to_string(head[4]) + " channels (supported: 1 or 3)");
  g.res = {head[1], head[2], head[3]};
  g.channels = head[4];
  const size_t n = g.voxels() * size_t(g.channels);
  if (bytes.size() != kHeader + 4 * n)
    throw LoadError(path + ": " + std::to_string(bytes.size()) + " bytes, but a " + std::to_string(g.res.x) + "x" +
                    std::to_string(g.res.y) + "x" + std::to_string(g.res.z) + " grid of " + std::to_string(g.channels) +
                    " channel(s) takes " + std::to_string(kHeader + 4 * n) + " (truncated or mis-sized)");
  values.resize(n);
  std::memcpy(values.data(), bytes.data() + kHeader, 4 * n);
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(values[i])) throw LoadError(path + ": value " + std::to_string(i) + " is not finite");
}

void write_vol_file(const std::string& path, const glm::ivec3& res, int channels, const float* values) {
  std::string bytes = "VOL";
  bytes.push_back(3);
  const int32_t head[5] = {1, res.x, res.y, res.z, channels};
  bytes.append(reinterpret_cast<const char*>(head), sizeof head);
  const float box[6] = {0, 0, 0, 1, 1, 1};
  bytes.append(reinterpret_cast<const char*>(box), sizeof box);
  bytes.append(reinterpret_cast<const char*>(values), 4 * size_t(res.x) * size_t(res.y) * size_t(res.z) * size_t(channels));
  write_text_file(path, bytes);  // bytes, written whole or not at all
}

}  // namespace dray
