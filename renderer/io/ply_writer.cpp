// PLY output (renderer/io/ply_file.h): binary little-endian, as Mitsuba's ply plugin and dray's
// reader read it.
#include <bit>
#include <cstring>

#include "renderer/core/atomic_file.h"
#include "renderer/io/ply_file.h"

namespace dray {

namespace {

template <class T>
void put(std::string& out, T v) {
  static_assert(std::endian::native == std::endian::little, "PLY output assumes a little-endian machine");
  char b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  out.append(b, sizeof v);
}

}  // namespace

void write_ply_file(const std::filesystem::path& file, const PlyMesh& m) {
  const bool normals = !m.normals.empty(), uvs = !m.uvs.empty();
  std::string out = "ply\nformat binary_little_endian 1.0\ncomment dray\nelement vertex " + std::to_string(m.positions.size()) +
                    "\nproperty float x\nproperty float y\nproperty float z\n";
  if (normals) out += "property float nx\nproperty float ny\nproperty float nz\n";
  if (uvs) out += "property float u\nproperty float v\n";
  out += "element face " + std::to_string(m.indices.size() / 3) + "\nproperty list uchar int vertex_indices\nend_header\n";
  for (size_t i = 0; i < m.positions.size(); ++i) {
    for (int k = 0; k < 3; ++k) put(out, m.positions[i][k]);
    if (normals)
      for (int k = 0; k < 3; ++k) put(out, m.normals[i][k]);
    if (uvs)
      for (int k = 0; k < 2; ++k) put(out, m.uvs[i][k]);
  }
  for (size_t t = 0; t + 2 < m.indices.size(); t += 3) {
    put(out, uint8_t(3));
    for (int k = 0; k < 3; ++k) put(out, int32_t(m.indices[t + size_t(k)]));
  }
  write_text_file(file, out);
}

}  // namespace dray
