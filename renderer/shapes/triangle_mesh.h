#pragma once
// Triangles as mesh files and tessellated shapes give them (before the scene owns them as a Mesh):
// positions, indices and the per-corner attributes, with one material index per face.
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

namespace dray {

struct TriangleMesh {
  std::vector<glm::vec3> positions;
  std::vector<uint32_t> indices;          // 3 per triangle
  std::vector<glm::vec3> corner_normals;  // 3 per triangle; empty unless every corner has one
  // 3 per triangle, v flipped (1 - v: image rows from the top, as Mitsuba reads OBJ); empty unless
  // every corner has one.
  std::vector<glm::vec2> corner_uvs;
  std::vector<int> face_material;  // -1: none
  // Vertex and face attributes (a PLY file's, Mitsuba's names: `vertex_color`, `face_NAME`, ...):
  // `dim` values per vertex, or per triangle for a `face_` name.
  struct Attribute {
    std::string name;
    int dim = 1;
    std::vector<float> values;
  };
  std::vector<Attribute> attributes;
  std::vector<std::string> warnings;  // what the reader skipped, for people
};

}  // namespace dray
