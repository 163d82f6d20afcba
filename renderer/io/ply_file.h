#pragma once
// PLY meshes (ASCII, binary little and big endian), read directly: positions (x, y, z), normals
// (nx, ny, nz) and texture coordinates (u v, s t, texture_u texture_v, texture_s texture_t, used
// as they are, as Mitsuba does) of the `vertex` element, `vertex_indices` (or `vertex_index`) of
// the `face` element, polygons fan-triangulated; other elements and properties skipped. assimp's
// PLY reader hung on a non-numeric count and crashed on a truncated binary file: this one checks
// every count against the file's size and every index against the vertices.
#include <filesystem>
#include <string>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "renderer/io/obj_file.h"

namespace dray {

// Throws LoadError(where + problem), the problem naming the header or ASCII line, or the byte
// where a binary file ends early.
ObjFile read_ply_file(const std::filesystem::path& file, const std::string& where);

// A triangle mesh as a PLY file holds it: per vertex a position, a normal and texture coordinates
// (each of the last two for every vertex, or none), and 3 indices per triangle.
struct PlyMesh {
  std::vector<glm::vec3> positions, normals;
  std::vector<glm::vec2> uvs;
  std::vector<uint32_t> indices;
};

// Writes it as binary little-endian PLY (x y z [nx ny nz] [u v], vertex_indices), atomically.
void write_ply_file(const std::filesystem::path& file, const PlyMesh& m);

}  // namespace dray
