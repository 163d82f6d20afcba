#pragma once
// glTF 2.0 / GLB meshes, read with assimp (Debian libassimp-dev) into the same triangles as an OBJ
// (renderer/io/obj_file.h): positions, indices, per-corner normals and texture coordinates when
// every corner has them. A glTF file's nodes are applied to its meshes, which are joined into one.
// (PLY files have a reader of their own: renderer/io/ply_file.h.) Also the constant matrix a
// scene may apply to any mesh file's vertices.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "renderer/io/obj_file.h"
#include "renderer/io/json_reader.h"
#include "renderer/scene.h"

#include <glm/mat4x4.hpp>

namespace dray {

// Whether `ext` (lower case, with the dot) names a mesh format read_mesh_file reads.
bool is_assimp_mesh(const std::string& ext);

// Reads a regular, readable glTF or GLB file (no materials: the scene gives the shape one).
// Throws LoadError(where + problem).
ObjFile read_mesh_file(const std::filesystem::path& file, const std::string& where);

// A `transform.matrix` (16 numbers, row by row, affine and invertible). Fails through rd at p.
glm::dmat4 read_affine_matrix(const JsonReader& rd, const nlohmann::json& j, const std::string& p);

// A mesh's constant `transform.matrix` (16 numbers, row by row, affine and invertible: Mitsuba's
// to_world), applied to its file's vertices and normals. Fails through rd at JSON path p.
void apply_mesh_matrix(const JsonReader& rd, const nlohmann::json& j, const std::string& p, Mesh& mesh);

}  // namespace dray
