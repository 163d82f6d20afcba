// The shape reader's grid (a tessellated rectangle) and a mesh's displacement by a texture
// (renderer/shapes/grid_mesh.h, renderer/shapes/displacement.h).
#include "renderer/io/shape_reader.h"
#include "renderer/shapes/grid_mesh.h"
#include "renderer/shapes/mesh_normals.h"

namespace dray {

using nlohmann::json;

// A `grid`'s mesh: `resolution` vertices per side (a number, or [along u, along v]; default 2).
TriangleMesh ShapeReader::grid_mesh_of(const json& s, const std::string& p) {
  int nu = 2, nv = 2;
  if (s.contains("resolution")) {
    const json& r = s["resolution"];
    const std::string at = p + "/resolution";
    if (r.is_array() && r.size() == 2) {
      nu = int(rd.integer(r[0], at + "/0", 2, 1 << 14));
      nv = int(rd.integer(r[1], at + "/1", 2, 1 << 14));
    } else if (r.is_array()) {
      rd.fail(at, "must be a number of vertices per side or two of them, [along u, along v]");
    } else {
      nu = nv = int(rd.integer(r, at, 2, 1 << 14));
    }
  }
  return grid_mesh(nu, nv);
}

// A mesh's `displacement` ({"texture": NAME, "scale": s}, shapes/displacement.h): each vertex moves
// along its loaded normal (a flat mesh's: the smooth normal it would have) by the texture's scalar
// at its UV. Needs one UV per vertex.
void ShapeReader::read_displacement(const json& j, const std::string& p, Mesh& mesh) {
  rd.object(j, p, {"texture", "scale"}, {"texture"});
  MeshDisplacement d;
  const std::string name = rd.string(j["texture"], p + "/texture");
  d.texture = textures ? textures->find(name) : -1;
  if (d.texture < 0) rd.fail(p + "/texture", "no texture named \"" + name + "\" in /textures");
  const TextureModel& model = scene.textures[size_t(d.texture)].model;
  if (std::holds_alternative<MeshAttributeTexture>(model) || std::holds_alternative<VolumeTexture>(model))
    rd.fail(p + "/texture", "\"" + name + "\" is not a texture over UV (a bitmap, checkerboard or rawconstant)");
  if (j.contains("scale")) d.scale = float(rd.number(j["scale"], p + "/scale"));
  if (mesh.corner_uvs.empty()) rd.fail(p, "the mesh has no texture coordinates to look its heights up at");
  const size_t n = mesh.object_positions.size();
  const std::vector<glm::vec3> normals = mesh.object_normals.empty() ? vertex_normals(mesh.object_positions, mesh.indices) : mesh.object_normals;
  d.base = mesh.object_positions;
  d.directions.assign(n, glm::vec3(0.f));
  d.uvs.assign(n, glm::vec2(0.f));
  std::vector<bool> seen(n, false);
  for (size_t c = 0; c < mesh.indices.size(); ++c) {
    const uint32_t v = mesh.indices[c];
    if (seen[v] && d.uvs[v] != mesh.corner_uvs[c])
      rd.fail(p, "vertex " + std::to_string(v) + " has two texture coordinates (a seam: split the vertex, as a PLY's are)");
    d.uvs[v] = mesh.corner_uvs[c];
    d.directions[v] = normals[c];
    seen[v] = true;
  }
  mesh.displacement = std::move(d);
}

}  // namespace dray
