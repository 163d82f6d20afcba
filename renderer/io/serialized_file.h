#pragma once
// Mitsuba's `serialized` meshes: a file of zlib-compressed meshes (Mitsuba 0.5's format, versions
// 3 and 4, and version 5's single-precision packed layout without tangents or index maps), each
// segment a 16-bit magic 0x041C and version then one zlib stream, and after the last a table of
// the segments' offsets and their count. Read through zlib; little-endian throughout.
#include <filesystem>
#include <string>

#include "renderer/io/obj_file.h"

namespace dray {

struct SerializedMesh : ObjFile {
  bool face_normals = false;  // version 5's flag: the file asks for flat shading
};

// Mesh `shape_index` of the file: positions, indices, corner normals and UVs (per corner, as an
// OBJ's). Throws LoadError(where + problem) on a bad or truncated file or an index out of range.
SerializedMesh read_serialized_file(const std::filesystem::path& file, int shape_index, const std::string& where);

}  // namespace dray
