#pragma once
// Wavefront OBJ files (tinyobjloader), checked line by line where tinyobjloader is silent, with
// errors that name the line.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "renderer/shapes/triangle_mesh.h"

namespace dray {

// An OBJ material as the renderer reads it: Kd as albedo (clamped to [0, 1]); Ke, or else Ka,
// as emission when > 0.
struct ObjMaterial {
  std::string name;
  glm::vec3 albedo;
  std::optional<glm::vec3> emission;
};

// Triangles (polygons triangulated) with one material index per face (-1: none), and the
// materials those indices name.
struct ObjFile : TriangleMesh {
  std::vector<ObjMaterial> materials;
};

// Reads a regular, readable OBJ file. Throws LoadError(where + problem), the problem naming the
// line where it can: "line 12: vertex index 9 is out of range (3 vertices defined before it)".
ObjFile read_obj_file(const std::filesystem::path& file, const std::string& where, bool flip_tex_coords = true);

// Writes triangles as an OBJ file (atomically): `v` per position, `vt` per corner when
// corner_uvs is not empty (v flipped back, as read_obj_file reads it), `f` per triangle; no
// normals or materials.
void write_obj_file(const std::filesystem::path& file, const std::vector<glm::vec3>& positions,
                    const std::vector<uint32_t>& indices, const std::vector<glm::vec2>& corner_uvs);

// The first "mtllib" whose file does not exist beside the OBJ: "line 3: material library
// \"x.mtl\" not found (looked in DIR)", or an empty string.
std::string missing_mtllib(const std::filesystem::path& file);

}  // namespace dray
