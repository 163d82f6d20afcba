// Mitsuba's serialized meshes, written here by the format's description (Mitsuba 3's
// src/shapes/serialized.cpp: magic 0x041C, version, a zlib stream per mesh, a table of offsets
// and the count at the end): versions 3 (float, 32-bit offsets), 4 (double, names, 64-bit
// offsets) and 5 (packed records), read back value for value; a mesh from a serialized file
// renders bitwise as the same mesh from its OBJ; bad files name their problem.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <cstring>
#include <fstream>

#include "../temp_dir.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/obj_file.h"
#include "renderer/io/scene_loader.h"
#include "renderer/io/serialized_file.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

using Buf = std::vector<unsigned char>;

template <class T>
void put(Buf& b, T v) {
  const auto* p = reinterpret_cast<const unsigned char*>(&v);
  b.insert(b.end(), p, p + sizeof(T));
}

// A mesh's stream for versions 3 and 4: flags, (4) a name, counts, positions, normals, uvs, faces.
Buf stream_v34(int version, const TriangleMesh& m, const std::vector<glm::vec3>& normals, const std::vector<glm::vec2>& uvs, bool dbl) {
  Buf b;
  put<uint32_t>(b, (normals.empty() ? 0 : 0x1) | (uvs.empty() ? 0 : 0x2) | (dbl ? 0x2000 : 0));
  if (version == 4) b.insert(b.end(), {'m', 'e', 's', 'h', 0});
  put<uint64_t>(b, m.positions.size());
  put<uint64_t>(b, m.indices.size() / 3);
  auto num = [&](float v) { dbl ? put<double>(b, v) : put<float>(b, v); };
  for (const glm::vec3& p : m.positions) num(p.x), num(p.y), num(p.z);
  for (const glm::vec3& n : normals) num(n.x), num(n.y), num(n.z);
  for (const glm::vec2& t : uvs) num(t.x), num(t.y);
  for (uint32_t i : m.indices) put<uint32_t>(b, i);
  return b;
}

// Version 5: single precision, a length-prefixed name, four counts, 8 floats a vertex, 4 words a face.
Buf stream_v5(const TriangleMesh& m, const std::vector<glm::vec3>& normals, const std::vector<glm::vec2>& uvs, bool flat) {
  Buf b;
  put<uint32_t>(b, 0x1000 | (normals.empty() ? 0 : 0x1) | (uvs.empty() ? 0 : 0x4) | (flat ? 0x10 : 0));
  put<uint32_t>(b, 4);
  b.insert(b.end(), {'m', 'e', 's', 'h'});
  for (uint64_t v : {uint64_t(m.positions.size()), uint64_t(m.indices.size() / 3), uint64_t(0), uint64_t(0)}) put(b, v);
  for (size_t i = 0; i < m.positions.size(); ++i) {
    const glm::vec3 n = normals.empty() ? glm::vec3(0.f) : normals[i];
    const glm::vec2 t = uvs.empty() ? glm::vec2(0.f) : uvs[i];
    for (float v : {m.positions[i].x, m.positions[i].y, m.positions[i].z, n.x, n.y, n.z, t.x, t.y}) put(b, v);
  }
  for (size_t f = 0; f < m.indices.size() / 3; ++f) {
    for (int k = 0; k < 3; ++k) put<uint32_t>(b, m.indices[3 * f + size_t(k)]);
    put<uint32_t>(b, 0);
  }
  return b;
}

// Segments (header + compressed stream), then the offsets table and the count.
std::string write_file(const TempDir& t, const std::string& name, int version, const std::vector<Buf>& streams) {
  Buf file;
  std::vector<uint64_t> offsets;
  for (const Buf& s : streams) {
    offsets.push_back(file.size());
    put<uint16_t>(file, 0x041C);
    put<uint16_t>(file, uint16_t(version));
    uLongf n = compressBound(uLong(s.size()));
    Buf z(n);
    REQUIRE(compress2(z.data(), &n, s.data(), uLong(s.size()), 6) == Z_OK);
    file.insert(file.end(), z.begin(), z.begin() + long(n));
  }
  for (uint64_t o : offsets) version >= 4 ? put<uint64_t>(file, o) : put<uint32_t>(file, uint32_t(o));
  put<uint32_t>(file, uint32_t(streams.size()));
  const std::string path = (t.dir / name).string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), long(file.size()));
  return path;
}

// A unit square of two triangles, its normals +z and distinct uvs.
TriangleMesh square(float shift = 0.f) {
  TriangleMesh m;
  m.positions = {{shift, 0, 0}, {1 + shift, 0, 0}, {1 + shift, 1, 0}, {shift, 1, 0}};
  m.indices = {0, 1, 2, 0, 2, 3};
  return m;
}
const std::vector<glm::vec3> kNormals(4, glm::vec3(0, 0, 2));  // not unit: the reader normalises
const std::vector<glm::vec2> kUvs = {{0, 0.25f}, {1, 0.25f}, {1, 1}, {0, 1}};

void check_square(const SerializedMesh& m, float shift, bool normals, bool uvs) {
  REQUIRE(m.positions.size() == 4);
  CHECK(m.positions[1] == glm::vec3(1 + shift, 0, 0));
  CHECK(m.indices == std::vector<uint32_t>{0, 1, 2, 0, 2, 3});
  CHECK(m.corner_normals.size() == (normals ? 6u : 0u));
  if (normals) CHECK(m.corner_normals[4] == glm::vec3(0, 0, 1));
  CHECK(m.corner_uvs.size() == (uvs ? 6u : 0u));
  if (uvs) CHECK(m.corner_uvs[5] == glm::vec2(0, 1));  // the file's uv as stored (Mitsuba's, no flip)
  if (uvs) CHECK(m.corner_uvs[1] == glm::vec2(1, 0.25f));
}

std::string error_of(const std::string& path, int index) {
  try {
    read_serialized_file(path, index, "f: ");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("serialized versions 3, 4 and 5 read back value for value, shape_index picks the mesh", "[serialized]") {
  TempDir t("dray-serialized-");
  const std::string v3 = write_file(t, "a.serialized", 3, {stream_v34(3, square(), kNormals, kUvs, false), stream_v34(3, square(5), {}, {}, false)});
  check_square(read_serialized_file(v3, 0, ""), 0, true, true);
  check_square(read_serialized_file(v3, 1, ""), 5, false, false);
  const std::string v4 = write_file(t, "b.serialized", 4,
                                    {stream_v34(4, square(), {}, kUvs, true), stream_v34(4, square(2), kNormals, {}, true), stream_v34(4, square(7), {}, {}, false)});
  check_square(read_serialized_file(v4, 0, ""), 0, false, true);
  check_square(read_serialized_file(v4, 1, ""), 2, true, false);
  check_square(read_serialized_file(v4, 2, ""), 7, false, false);
  const std::string v5 = write_file(t, "c.serialized", 5, {stream_v5(square(), kNormals, kUvs, true)});
  const SerializedMesh m5 = read_serialized_file(v5, 0, "");
  check_square(m5, 0, true, true);
  CHECK(m5.face_normals);
  // Problems, named.
  CHECK_THAT(error_of(v4, 3), Catch::Contains("shape_index 3 is out of range (the file holds 3 meshes)"));
  const std::string bad = t.write("bad.serialized", "OBJ?");
  CHECK_THAT(error_of(bad, 0), Catch::Contains("not a Mitsuba serialized mesh"));
  std::ifstream in(v3, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = t.write("cut.serialized", bytes.substr(0, 30));
  CHECK_THAT(error_of(cut, 0), Catch::Contains("corrupt or truncated"));
  TriangleMesh wrong = square();
  wrong.indices[4] = 9;
  CHECK_THAT(error_of(write_file(t, "w.serialized", 3, {stream_v34(3, wrong, {}, {}, false)}), 0),
             Catch::Contains("face 1: vertex index 9 is out of range (4 vertices)"));
}

TEST_CASE("a serialized mesh renders bitwise as its OBJ, from JSON and from Mitsuba XML", "[serialized][mitsuba]") {
  TempDir t("dray-serialized-render-");
  const std::string obj = std::string(DRAY_SOURCE_DIR) + "/scenes/models/icosphere-4.obj";
  const ObjFile ico = read_obj_file(obj, "");
  const std::string file = write_file(t, "ico.serialized", 4, {stream_v34(4, square(), {}, {}, false), stream_v34(4, ico, {}, {}, false)});
  auto scene = [&](const std::string& path, int index) {
    json mesh = {{"name", "ball"}, {"type", "mesh"}, {"file", path}, {"material", "m"}, {"transform", {{"translate", {0, 0.5, 0}}}}};
    if (index) mesh["shape_index"] = index;
    return json{{"camera", {{"origin", {0, 1, 4}}, {"target", {0, 0.5, 0}}, {"up", {0, 1, 0}}, {"fov_y", 40}, {"width", 48}, {"height", 32}}},
                {"render", {{"spp", 4}, {"max_depth", 2}}},
                {"materials", {{"m", {{"type", "diffuse"}, {"albedo", {0.7, 0.5, 0.3}}}}}},
                {"shapes", json::array({mesh})},
                {"lights", json::array({{{"name", "sky"}, {"type", "environment"}, {"radiance", {1, 1, 1}}}})}};
  };
  const Image a = render_local(load_scene(scene(obj, 0), (t.dir / "s.json").string()), 2);
  const Image b = render_local(load_scene(scene(file, 1), (t.dir / "s.json").string()), 2);
  CHECK(a.data == b.data);
  double sum = 0;
  for (float v : a.data) sum += v;
  CHECK(sum > 0);
  // Mitsuba XML: <shape type="serialized"> with shape_index.
  const std::string xml = t.write("s.xml", R"(<scene version="3.0.0"><sensor type="perspective"><film type="hdrfilm"/></sensor>
  <shape type="serialized"><string name="filename" value=")" + file + R"("/><integer name="shape_index" value="1"/></shape></scene>)");
  std::vector<std::string> warnings;
  const json doc = read_scene_document(xml, {}, warnings);
  CHECK(doc["shapes"][0]["shape_index"] == 1);
  CHECK(load_scene(xml).meshes.at(0).indices.size() == ico.indices.size());
  // shape_index on a file of another format is refused by key.
  json other = scene(obj, 0);
  other["shapes"][0]["shape_index"] = 1;
  CHECK_THROWS_WITH(load_scene(other, (t.dir / "s.json").string()), Catch::Contains("shape_index") && Catch::Contains("serialized files only"));
}
