#pragma once
// Smooth shading normals for meshes that come without them, as Mitsuba 3 computes them for a
// mesh without `face_normals`: each vertex's normal is the average of the normals of the faces
// around it, weighted by the face's angle at the vertex (Thürmer and Wüthrich 1998), so that a
// vertex's normal does not depend on how the faces around it are triangulated.
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

namespace dray {

// One unit normal per triangle corner (3 per triangle), from the triangles' positions.
// Degenerate faces add nothing; a vertex with no usable face gets the normal of its face.
std::vector<glm::vec3> vertex_normals(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices);

}  // namespace dray
