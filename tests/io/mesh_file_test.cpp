// PLY (ASCII, binary little and big endian) and glTF meshes (renderer/io/mesh_file.h) against the
// OBJ of the same mesh: the same triangles, normals and texture coordinates, and bitwise the same
// image; broken files refused naming the file and the shape.
#include <catch2/catch.hpp>

#include <cstring>
#include <numeric>

#include "../temp_dir.h"
#include "renderer/io/mesh_file.h"
#include "renderer/io/ply_file.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using dray::testing::TempDir;

namespace {

// A square pyramid: a quad base (fan-triangulated) and four triangles, with texture coordinates.
const float kPositions[5][3] = {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}, {0.5f, 1, 0.5f}};
const float kUvs[5][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0.5f, 0.5f}};
const std::vector<std::vector<int>> kFaces = {{0, 1, 2, 3}, {0, 4, 1}, {1, 4, 2}, {2, 4, 3}, {3, 4, 0}};

std::string obj_text() {
  std::string s;
  for (auto& p : kPositions) s += "v " + std::to_string(p[0]) + " " + std::to_string(p[1]) + " " + std::to_string(p[2]) + "\n";
  // OBJ's v runs up the image: dray (as Mitsuba) flips it.
  for (auto& t : kUvs) s += "vt " + std::to_string(t[0]) + " " + std::to_string(1.f - t[1]) + "\n";
  // The base as the fan a PLY polygon becomes (tinyobjloader splits a quad its own way).
  for (const auto& f : kFaces)
    for (size_t k = 1; k + 1 < f.size(); ++k) {
      s += "f";
      for (int i : {f[0], f[k], f[k + 1]}) s += " " + std::to_string(i + 1) + "/" + std::to_string(i + 1);
      s += "\n";
    }
  return s;
}

std::string ply_header(const std::string& format) {
  return "ply\nformat " + format + " 1.0\nelement vertex 5\nproperty float x\nproperty float y\nproperty float z\n"
         "property float u\nproperty float v\nelement face 5\nproperty list uchar int vertex_indices\nend_header\n";
}

std::string ply_ascii() {
  std::string s = ply_header("ascii");
  for (int v = 0; v < 5; ++v)
    s += std::to_string(kPositions[v][0]) + " " + std::to_string(kPositions[v][1]) + " " + std::to_string(kPositions[v][2]) + " " +
         std::to_string(kUvs[v][0]) + " " + std::to_string(kUvs[v][1]) + "\n";
  for (const auto& f : kFaces) {
    s += std::to_string(f.size());
    for (int i : f) s += " " + std::to_string(i);
    s += "\n";
  }
  return s;
}

std::string ply_binary(bool big_endian) {
  std::string s = ply_header(big_endian ? "binary_big_endian" : "binary_little_endian");
  auto put = [&](const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    for (size_t k = 0; k < n; ++k) s += c[big_endian ? n - 1 - k : k];  // this machine is little endian
  };
  for (int v = 0; v < 5; ++v) {
    for (float x : kPositions[v]) put(&x, 4);
    for (float x : kUvs[v]) put(&x, 4);
  }
  for (const auto& f : kFaces) {
    s += char(f.size());
    for (int i : f) put(&i, 4);
  }
  return s;
}

Image render(const Scene& scene) {
  std::vector<Tile> tiles = make_tiles(scene.own_camera().width, scene.own_camera().height, 8);
  std::vector<int> ids(tiles.size());
  std::iota(ids.begin(), ids.end(), 0);
  Image img(scene.own_camera().width, scene.own_camera().height, 3);
  render_tiles(scene, scene.shot(), tiles, ids, img, 1);
  return img;
}

std::string scene_with(const TempDir& t, const std::string& mesh) {
  return t.write("scene-" + mesh + ".json", R"({
    "camera": {"origin": [2, 1.5, 3], "target": [0.5, 0.4, 0.5], "width": 24, "height": 16},
    "render": {"spp": 2},
    "textures": {"check": {"type": "checkerboard", "to_uv": {"scale": [4, 4]}}},
    "materials": {"m": {"type": "diffuse", "reflectance": "check"}},
    "shapes": [{"name": "pyramid", "type": "mesh", "file": ")" + mesh + R"(", "material": "m"}],
    "lights": [{"type": "point", "position": [2, 3, 2], "intensity": [10, 10, 10]}]})");
}

}  // namespace

TEST_CASE("PLY meshes equal the OBJ of the same mesh", "[mesh]") {
  TempDir t("dray-mesh-");
  t.write("p.obj", obj_text());
  t.write("p.ply", ply_ascii());
  t.write("p-le.ply", ply_binary(false));
  t.write("p-be.ply", ply_binary(true));
  const ObjFile obj = read_obj_file(t.dir / "p.obj", "");
  REQUIRE(obj.indices.size() == 18);  // the base's two triangles and four sides
  const Image reference = render(load_scene(scene_with(t, "p.obj")));
  for (const char* file : {"p.ply", "p-le.ply", "p-be.ply"}) {
    INFO(file);
    const ObjFile ply = read_ply_file(t.dir / file, "");
    CHECK(ply.positions == obj.positions);
    CHECK(ply.indices == obj.indices);
    REQUIRE(ply.corner_uvs.size() == obj.corner_uvs.size());
    for (size_t k = 0; k < ply.corner_uvs.size(); ++k) CHECK(glm::length(ply.corner_uvs[k] - obj.corner_uvs[k]) < 1e-6f);
    CHECK(render(load_scene(scene_with(t, file))).data == reference.data);
  }
}

TEST_CASE("glTF meshes equal the OBJ of the same mesh", "[mesh]") {
  TempDir t("dray-mesh-g-");
  t.write("p.obj", obj_text());
  // The pyramid as glTF: positions, texture coordinates (top-left origin) and indices in one
  // buffer, written as a separate .bin file.
  std::string bin;
  auto put = [&](const void* p, size_t n) { bin.append(static_cast<const char*>(p), n); };
  for (auto& p : kPositions) put(p, 12);
  for (auto& uv : kUvs) put(uv, 8);
  const uint16_t idx[18] = {0, 1, 2, 0, 2, 3, 0, 4, 1, 1, 4, 2, 2, 4, 3, 3, 4, 0};
  put(idx, sizeof idx);
  t.write("p.bin", bin);
  t.write("p.gltf", R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2}]}],
    "buffers": [{"uri": "p.bin", "byteLength": 136}],
    "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 60}, {"buffer": 0, "byteOffset": 60, "byteLength": 40},
                    {"buffer": 0, "byteOffset": 100, "byteLength": 36}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 5, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 1]},
                  {"bufferView": 1, "componentType": 5126, "count": 5, "type": "VEC2"},
                  {"bufferView": 2, "componentType": 5123, "count": 18, "type": "SCALAR"}]})");
  const ObjFile obj = read_obj_file(t.dir / "p.obj", ""), gltf = read_mesh_file(t.dir / "p.gltf", "");
  CHECK(gltf.positions == obj.positions);
  CHECK(gltf.indices == obj.indices);
  REQUIRE(gltf.corner_uvs.size() == obj.corner_uvs.size());
  for (size_t k = 0; k < gltf.corner_uvs.size(); ++k) CHECK(glm::length(gltf.corner_uvs[k] - obj.corner_uvs[k]) < 1e-6f);
  CHECK(render(load_scene(scene_with(t, "p.gltf"))).data == render(load_scene(scene_with(t, "p.obj"))).data);
}

TEST_CASE("broken PLY and glTF files are refused naming the file and the shape", "[mesh]") {
  TempDir t("dray-mesh-e-");
  auto error = [&](const std::string& mesh, const std::string& text) {
    t.write(mesh, text);
    try {
      load_scene(scene_with(t, mesh));
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string truncated = ply_binary(false).substr(0, ply_header("binary_little_endian").size() + 30);
  struct Bad {
    std::string mesh, text, expected;
  };
  for (const auto& [mesh, text, expected] : std::vector<Bad>{
           {"empty.ply", "", "line 1: not a PLY file"},
           {"truncated.ply", truncated, "the file ends inside the data (byte"},
           {"words.ply", "ply\nformat ascii 1.0\nelement vertex two\n", "line 3: element vertex: the count must be a whole number"},
           {"huge.ply", "ply\nformat ascii 1.0\nelement vertex 99999999999\nend_header\n", "line 3: element vertex: the count"},
           {"index.ply", ply_ascii().replace(ply_ascii().rfind("3 3 4 0"), 7, "3 3 4 9"), "line 21: face 4: vertex index 9 is out of range (5 vertices)"},
           {"word.ply", ply_ascii().replace(ply_ascii().find("0.500000 1.000000"), 8, "abc     "), "line 16: \"abc\" is not a number"},
           {"noheader.ply", "ply\nformat ascii 1.0\n", "line 3: the header has no end_header"},
           {"broken.gltf", "{\"asset\": ", ""}}) {
    const std::string e = error(mesh, text);
    INFO(e);
    CHECK(e.find("/shapes/0 (pyramid)/file: ") != std::string::npos);
    CHECK(e.find(mesh + ": " + expected) != std::string::npos);
  }
}
