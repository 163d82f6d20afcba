// The XML writer's meshes of OBJ materials: Mitsuba's obj plugin reads no .mtl file, so such a mesh
// is written as one PLY file per material beside the XML (its faces of that material, vertices
// welded by position, normal and uv), each a shape with that material.
#include <map>
#include <tuple>

#include "renderer/io/mitsuba/writer.h"
#include "renderer/io/ply_file.h"
#include "renderer/scene.h"

namespace dray::mitsuba {

using nlohmann::json;

void Writer::obj_parts(pugi::xml_node parent, const json& s, const std::string& path, const std::string& name) {
  if (!scene_ || xml_file_.empty()) fail(path + "/material", "a mesh's OBJ materials have no Mitsuba form: give it one material");
  const Shape* shape = nullptr;
  for (const Shape& sh : scene_->shapes)
    if (sh.name == name && sh.is<MeshShape>() && sh.instance < 0) shape = &sh;
  if (!shape) fail(path, "the loaded scene has no mesh named \"" + name + "\"");
  const Mesh& m = scene_->meshes[shape->as<MeshShape>().mesh];
  const bool smooth = !m.object_normals.empty(), textured = !m.corner_uvs.empty();
  std::map<uint32_t, std::vector<size_t>> faces;  // material -> its triangles
  for (size_t t = 0; t < m.face_materials.size(); ++t) faces[m.face_materials[t]].push_back(t);
  json tj = s.value("transform", json::object());
  tj.erase("matrix");  // the scene's vertices have it applied
  int part = 0;
  for (const auto& [material, triangles] : faces) {
    PlyMesh ply;
    std::map<std::tuple<uint32_t, float, float, float, float, float>, uint32_t> welded;  // vertex, normal, uv
    for (size_t t : triangles)
      for (size_t corner = 3 * t; corner < 3 * t + 3; ++corner) {
        const uint32_t v = m.indices[corner];
        const glm::vec3 n = smooth ? m.object_normals[corner] : glm::vec3(0.f);
        const glm::vec2 uv = textured ? m.corner_uvs[corner] : glm::vec2(0.f);
        const auto [it, fresh] = welded.try_emplace({v, n.x, n.y, n.z, uv.x, uv.y}, uint32_t(ply.positions.size()));
        if (fresh) {
          ply.positions.push_back(m.object_positions[v]);
          if (smooth) ply.normals.push_back(n);
          if (textured) ply.uvs.push_back(uv);
        }
        ply.indices.push_back(it->second);
      }
    const std::string file = xml_file_.stem().string() + "_" + name + "_" + std::to_string(part) + ".ply";
    write_ply_file(xml_file_.parent_path() / file, ply);
    pugi::xml_node n = add(parent, "shape");
    attr(n, "type", "ply");
    attr(n, "id", unique_id(name + "_" + std::to_string(part), "shape", path));
    typed(n, "string", "filename", file);
    if (!smooth) typed(n, "boolean", "face_normals", "true");
    if (!tj.empty()) transform(n, tj, path + "/transform");
    const std::string& mat = scene_->materials[material].name;
    if (doc_.contains("materials") && doc_["materials"].contains(mat)) emitter(n, mat, path + "/materials");  // named by the scene
    else obj_material(n, material);
    ++part;
  }
  warnings_.push_back(path + ": its faces take its OBJ file's materials (Mitsuba reads no .mtl): written as " +
                      std::to_string(part) + " PLY files beside the XML, one per material");
}

// An OBJ file's own material as the loader made it: diffuse (its Kd; two-sided), emitting its Ke or Ka.
void Writer::obj_material(pugi::xml_node shape, uint32_t material) {
  const Material& m = scene_->materials[material];
  const std::string& name = m.name;
  auto colour = [&](const char* key) {
    const auto e = scene_->params.find("materials." + name + "." + key);
    if (!e) fail("/materials", "the loaded scene has no parameter materials." + name + "." + key);
    const glm::vec3 c = scene_->params.get_vec3(e->slot);
    return num(c.x) + ", " + num(c.y) + ", " + num(c.z);
  };
  pugi::xml_node sided = add(shape, "bsdf");  // dray's surfaces shade both sides: Mitsuba's twosided
  attr(sided, "type", "twosided");
  pugi::xml_node b = add(sided, "bsdf");
  attr(b, "type", "diffuse");
  typed(b, "rgb", "reflectance", colour("reflectance"));
  if (!m.emissive) return;
  pugi::xml_node e = add(shape, "emitter");
  attr(e, "type", "area");
  typed(e, "rgb", "radiance", colour("emission"));
}

}  // namespace dray::mitsuba
