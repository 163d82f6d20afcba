#include "renderer/io/mesh_file.h"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/matrix.hpp>

#include "renderer/io/json_reader.h"

namespace dray {

bool is_assimp_mesh(const std::string& ext) { return ext == ".gltf" || ext == ".glb"; }

ObjFile read_mesh_file(const std::filesystem::path& file, const std::string& where) {
  Assimp::Importer importer;
  // Points and lines are dropped; glTF node transforms are baked into the vertices.
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const aiScene* scene = importer.ReadFile(
      file.string(), aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_PreTransformVertices);
  if (!scene || !scene->mRootNode || (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE))
    throw LoadError(where + importer.GetErrorString());
  // glTF's texture coordinates start at the image's top-left; assimp hands them bottom-left (as
  // an OBJ's): flip them back, as dray keeps UVs (v down the image, as Mitsuba).
  const bool flip_v = true;
  ObjFile out;
  bool normals = true, uvs = true;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    normals = normals && mesh->HasNormals();
    uvs = uvs && mesh->HasTextureCoords(0);
  }
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    const uint32_t base = uint32_t(out.positions.size());
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      const aiVector3D& p = mesh->mVertices[v];
      out.positions.push_back({p.x, p.y, p.z});
    }
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3) continue;
      for (int k = 0; k < 3; ++k) {
        const unsigned i = face.mIndices[k];
        if (i >= mesh->mNumVertices) throw LoadError(where + "face " + std::to_string(f) + " has a vertex index out of range");
        out.indices.push_back(base + i);
        if (normals) {
          const aiVector3D& n = mesh->mNormals[i];
          out.corner_normals.push_back({n.x, n.y, n.z});
        }
        if (uvs) {
          const aiVector3D& t = mesh->mTextureCoords[0][i];
          out.corner_uvs.push_back({t.x, flip_v ? 1.f - t.y : t.y});
        }
      }
      out.face_material.push_back(-1);
    }
  }
  if (out.indices.empty()) throw LoadError(where + "has no triangles");
  for (const glm::vec3& p : out.positions)
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) throw LoadError(where + "has a vertex that is not finite");
  return out;
}

glm::dmat4 read_affine_matrix(const JsonReader& rd, const nlohmann::json& j, const std::string& p) {
  if (!j.is_array() || j.size() != 16) rd.fail(p, "must be an array of 16 numbers (a 4x4 matrix, row by row)");
  glm::dmat4 m(1.0);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) m[c][r] = rd.number(j[size_t(4 * r + c)], p + "/" + std::to_string(4 * r + c));
  if (m[0][3] != 0.0 || m[1][3] != 0.0 || m[2][3] != 0.0 || m[3][3] != 1.0)
    rd.fail(p, "must be affine: its last row must be 0 0 0 1");
  const glm::dmat3 linear(m);
  if (!(std::fabs(glm::determinant(linear)) > 0.0)) rd.fail(p, "must be invertible");
  return m;
}

void apply_mesh_matrix(const JsonReader& rd, const nlohmann::json& j, const std::string& p, Mesh& mesh) {
  const glm::dmat4 m = read_affine_matrix(rd, j, p);
  const glm::dmat3 linear(m);
  const glm::dmat3 normal = glm::transpose(glm::inverse(linear));
  for (glm::vec3& v : mesh.object_positions) v = glm::vec3(m * glm::dvec4(glm::dvec3(v), 1.0));
  for (glm::vec3& n : mesh.object_normals) n = glm::vec3(glm::normalize(normal * glm::dvec3(n)));
  // A mirroring matrix reverses the surface's orientation: its faces' winding is reversed too, so
  // that the geometric normal turns with the shading normals, as Mitsuba's meshes do.
  if (glm::determinant(linear) < 0.0) {
    const size_t faces = mesh.indices.size() / 3;
    for (size_t f = 0; f < faces; ++f) {
      std::swap(mesh.indices[3 * f], mesh.indices[3 * f + 2]);
      if (!mesh.object_normals.empty()) std::swap(mesh.object_normals[3 * f], mesh.object_normals[3 * f + 2]);
      if (!mesh.corner_uvs.empty()) std::swap(mesh.corner_uvs[3 * f], mesh.corner_uvs[3 * f + 2]);
    }
  }
}

}  // namespace dray
