#include "renderer/io/mesh_file.h"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "renderer/json_reader.h"

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

}  // namespace dray
