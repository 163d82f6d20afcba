#include "renderer/io/serialized_file.h"

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include <glm/geometric.hpp>

#include "renderer/core/load_error.h"

namespace dray {

namespace {

constexpr uint16_t kMagic = 0x041C;

// Little-endian reads from a byte buffer, failing with "truncated" past its end.
struct Bytes {
  const std::vector<unsigned char>& b;
  size_t at = 0;
  std::string where;
  [[noreturn]] void fail(const std::string& why) const { throw LoadError(where + why); }
  template <class T>
  T get() {
    if (at > b.size() || b.size() - at < sizeof(T)) fail("truncated (" + std::to_string(b.size()) + " bytes)");
    T v;
    std::memcpy(&v, b.data() + at, sizeof(T));  // x86-64 is little-endian, as the format
    at += sizeof(T);
    return v;
  }
  // n values of T (float or double) as floats.
  template <class T>
  std::vector<float> floats(uint64_t n) {
    if (n > (b.size() - at) / sizeof(T)) fail("truncated: " + std::to_string(n) + " values announced");
    std::vector<float> out(n);
    for (float& v : out) v = float(get<T>());
    return out;
  }
};

// The zlib stream from byte `from` to its end, inflated.
std::vector<unsigned char> inflate_from(const std::vector<unsigned char>& file, size_t from, const std::string& where) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) throw LoadError(where + "zlib cannot start");
  z.next_in = const_cast<unsigned char*>(file.data() + from);
  z.avail_in = uInt(file.size() - from);
  std::vector<unsigned char> out;
  unsigned char chunk[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    out.insert(out.end(), chunk, chunk + (sizeof chunk - z.avail_out));
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) throw LoadError(where + "its compressed mesh data is corrupt or truncated (zlib: " + (z.msg ? z.msg : "no end") + ")");
  return out;
}

// Where mesh i's segment starts: 0, or the offset table's entry (uint64 from version 4, uint32 in 3).
size_t segment_offset(const std::vector<unsigned char>& file, int index, int version, const std::string& where) {
  if (index == 0) return 0;
  uint32_t count = 0;
  if (file.size() >= 8) std::memcpy(&count, file.data() + file.size() - 4, 4);
  if (uint32_t(index) >= count)
    throw LoadError(where + "shape_index " + std::to_string(index) + " is out of range (the file holds " + std::to_string(count) + " meshes)");
  const size_t entry = version >= 4 ? 8 : 4, back = 4 + entry * size_t(count - uint32_t(index));
  if (back > file.size()) throw LoadError(where + "its table of mesh offsets is truncated");
  uint64_t offset = 0;
  std::memcpy(&offset, file.data() + file.size() - back, entry);
  if (offset + 4 > file.size()) throw LoadError(where + "mesh " + std::to_string(index) + "'s offset lies past the end of the file");
  return size_t(offset);
}

// Versions 3 and 4: flags, (4: a null-terminated name), counts, then positions, normals, UVs,
// colours (Mitsuba's `vertex_color` attribute) and faces, float or double by flag 0x2000.
void read_v34(Bytes& in, int version, std::vector<float>& pos, std::vector<float>& nrm, std::vector<float>& uv,
              std::vector<float>& colours, uint64_t& faces) {
  const uint32_t flags = in.get<uint32_t>();
  if (version == 4)
    while (in.get<char>() != 0) {
    }
  const uint64_t v = in.get<uint64_t>();
  faces = in.get<uint64_t>();
  const bool dbl = flags & 0x2000;
  auto arr = [&](uint64_t n) { return dbl ? in.floats<double>(n) : in.floats<float>(n); };
  pos = arr(3 * v);
  if (flags & 0x1) nrm = arr(3 * v);
  if (flags & 0x2) uv = arr(2 * v);
  if (flags & 0x8) colours = arr(3 * v);
}

// Version 5: single precision, a length-prefixed name, V, F and the (unsupported) index maps'
// sizes, 8 floats per vertex (position, normal, uv), 4 words per face (the 4th: BSDF index).
void read_v5(Bytes& in, std::vector<float>& pos, std::vector<float>& nrm, std::vector<float>& uv, uint64_t& faces, bool& face_normals) {
  const uint32_t flags = in.get<uint32_t>();
  if (!(flags & 0x1000)) in.fail("version 5 without the single-precision flag");
  if (flags & 0x2) in.fail("tangent frames (version 5 flag 0x2) are not supported");
  face_normals = flags & 0x10;
  const uint32_t name = in.get<uint32_t>();
  if (name > in.b.size() - in.at) in.fail("truncated name");
  in.at += name;
  const uint64_t v = in.get<uint64_t>();
  faces = in.get<uint64_t>();
  if (in.get<uint64_t>() != 0 || in.get<uint64_t>() != 0) in.fail("shared position or normal indices (version 5) are not supported");
  const std::vector<float> rec = in.floats<float>(8 * v);
  for (uint64_t i = 0; i < v; ++i) {
    const float* r = &rec[8 * i];
    pos.insert(pos.end(), r, r + 3);
    if (flags & 0x1) nrm.insert(nrm.end(), r + 3, r + 6);
    if (flags & 0x4) uv.insert(uv.end(), r + 6, r + 8);
  }
}

}  // namespace

SerializedMesh read_serialized_file(const std::filesystem::path& file, int shape_index, const std::string& where) {
  std::ifstream f(file, std::ios::binary);
  if (!f) throw LoadError(where + "cannot open for reading");
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Bytes head{bytes, 0, where};
  if (head.get<uint16_t>() != kMagic) throw LoadError(where + "not a Mitsuba serialized mesh (no 0x041C magic)");
  const int version = head.get<uint16_t>();
  if (version < 3 || version > 5) throw LoadError(where + "serialized format version " + std::to_string(version) + " (supported: 3, 4, 5)");
  if (shape_index < 0) throw LoadError(where + "shape_index must be >= 0");
  const size_t start = segment_offset(bytes, shape_index, version, where);
  const std::vector<unsigned char> data = inflate_from(bytes, start + 4, where);
  Bytes in{data, 0, where + "mesh " + std::to_string(shape_index) + ": "};
  std::vector<float> pos, nrm, uv, colours;
  uint64_t faces = 0;
  SerializedMesh m;
  if (version == 5) read_v5(in, pos, nrm, uv, faces, m.face_normals);
  else read_v34(in, version, pos, nrm, uv, colours, faces);
  if (!colours.empty()) m.attributes.push_back({"vertex_color", 3, std::move(colours)});
  const uint64_t v = pos.size() / 3;
  if (faces > (data.size() - in.at) / (version == 5 ? 16 : 12)) in.fail("truncated: " + std::to_string(faces) + " faces announced");
  for (uint64_t i = 0; i < v; ++i) m.positions.emplace_back(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
  for (uint64_t t = 0; t < faces; ++t) {
    uint32_t tri[3];
    for (uint32_t& k : tri) {
      k = in.get<uint32_t>();
      if (k >= v) in.fail("face " + std::to_string(t) + ": vertex index " + std::to_string(k) + " is out of range (" + std::to_string(v) + " vertices)");
    }
    if (version == 5) in.get<uint32_t>();  // the face's BSDF index and UV-mirror bit
    for (uint32_t k : tri) {
      m.indices.push_back(k);
      if (!nrm.empty()) {
        const glm::vec3 n(nrm[3 * k], nrm[3 * k + 1], nrm[3 * k + 2]);
        const float len = glm::length(n);
        m.corner_normals.push_back(len > 0.f && std::isfinite(len) ? n / len : glm::vec3(0, 0, 1));
      }
      if (!uv.empty()) m.corner_uvs.emplace_back(uv[2 * k], uv[2 * k + 1]);
    }
  }
  m.face_material.assign(size_t(faces), -1);
  return m;
}

}  // namespace dray
