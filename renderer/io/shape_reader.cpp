#include "renderer/io/shape_reader.h"

#include <algorithm>
#include <fstream>
#include <optional>

#include <glm/geometric.hpp>

#include "renderer/io/mesh_file.h"
#include "renderer/io/obj_file.h"
#include "renderer/io/ply_file.h"
#include "renderer/io/scene_loader.h"
#include "renderer/shapes/cylinder_mesh.h"
#include "renderer/shapes/disk_mesh.h"
#include "renderer/shapes/mesh_normals.h"

namespace dray {

using nlohmann::json;
namespace fs = std::filesystem;

int ShapeReader::medium_ref(const json& j, const std::string& path) {
  const std::string name = rd.string(j, path);
  auto it = media.find(name);
  if (it == media.end()) rd.fail(path, "no medium named \"" + name + "\" in /media");
  return it->second;
}

uint32_t ShapeReader::material_ref(const json& j, const std::string& path) {
  const std::string name = rd.string(j, path);
  auto it = materials.find(name);
  if (it == materials.end()) rd.fail(path, "no material named \"" + name + "\" in /materials");
  return it->second;
}

uint32_t ShapeReader::add_material(const std::string& name, const glm::vec3& reflectance, const glm::vec3* emission) {
  const uint32_t index = MaterialReader(rd, scene).add_diffuse(name, reflectance, emission);
  materials[name] = index;
  return index;
}

Shape ShapeReader::read(const json& s, const std::string& p, const std::string& name, const std::string& type,
                        const std::string& prefix) {
  Shape shape;
  shape.name = name;
  if (type == "sphere") {
    rd.object(s, p, {"name", "type", "center", "radius", "material", "interior", "exterior"}, {"material"});
    shape.kind = Shape::Kind::sphere;
    // Mitsuba's sphere: the unit sphere at the origin.
    shape.a = scene.params.add(prefix + "center", rd.vec3_or(s, "center", p, glm::vec3(0.f)));
    shape.b = scene.params.add(prefix + "radius", s.contains("radius") ? rd.positive(s["radius"], p + "/radius") : 1.f, Domain::positive());
    shape.material = material_ref(s["material"], p + "/material");
  } else if (type == "quad") {
    rd.object(s, p, {"name", "type", "corner", "edge_u", "edge_v", "material", "interior", "exterior"}, {"material"});
    shape.kind = Shape::Kind::quad;
    // Mitsuba's rectangle: [-1, 1]² in the z = 0 plane, facing +z.
    glm::vec3 eu = rd.vec3_or(s, "edge_u", p, glm::vec3(2, 0, 0)), ev = rd.vec3_or(s, "edge_v", p, glm::vec3(0, 2, 0));
    if (!(glm::length(glm::cross(eu, ev)) > 0.f))
      rd.fail(p + "/edge_v", "must not be parallel to edge_u (the quad has no area)");
    shape.a = scene.params.add(prefix + "corner", rd.vec3_or(s, "corner", p, glm::vec3(-1, -1, 0)));
    shape.b = scene.params.add(prefix + "edge_u", eu);
    shape.c = scene.params.add(prefix + "edge_v", ev);
    shape.material = material_ref(s["material"], p + "/material");
  } else if (type == "mesh" || type == "disk" || type == "cylinder") {
    const bool disk = type == "disk", tessellated = disk || type == "cylinder";
    if (tessellated) rd.object(s, p, {"name", "type", "material", "transform", "flip_normals", "interior", "exterior"}, {"material"});
    else rd.object(s, p, {"name", "type", "file", "material", "materials", "transform", "face_normals", "interior", "exterior"}, {"file"});
    shape.kind = Shape::Kind::mesh;
    shape.mesh = uint32_t(scene.meshes.size());
    scene.meshes.emplace_back();
    std::optional<uint32_t> material;
    if (s.contains("material")) material = material_ref(s["material"], p + "/material");
    if (tessellated) {
      ObjFile shape_mesh;
      const bool flip = flag(s, p, "flip_normals");
      static_cast<TriangleMesh&>(shape_mesh) = disk ? disk_mesh(kDiskSegments, flip) : cylinder_mesh(kCylinderSegments, flip);
      use_mesh(std::move(shape_mesh), *material, scene.meshes.back());
    } else {
      // OBJ material name -> scene material, for the OBJ materials named.
      std::map<std::string, uint32_t> mapping;
      if (s.contains("materials")) {
        if (material) rd.fail(p + "/materials", "give either material or materials, not both");
        if (!s["materials"].is_object())
          rd.fail(p + "/materials", std::string("must be an object, got ") + s["materials"].type_name());
        for (auto it = s["materials"].begin(); it != s["materials"].end(); ++it)
          mapping[it.key()] = material_ref(it.value(), p + "/materials/" + it.key());
      }
      load_obj(rd.string(s["file"], p + "/file"), p + "/file", shape.name, material, mapping,
               scene.meshes.back());
    }
    transform(s.contains("transform") ? s["transform"] : json::object(), p + "/transform",
              prefix, shape.transform, scene.meshes.back());
    // Smooth shading as in Mitsuba 3: the file's `vn`, else computed; `face_normals: true`
    // shades flat (a disk is flat).
    Mesh& mesh = scene.meshes.back();
    if (disk || flag(s, p, "face_normals")) mesh.object_normals.clear();
    else if (mesh.object_normals.empty()) mesh.object_normals = vertex_normals(mesh.object_positions, mesh.indices);
    // The object-space positions as a parameter block (after the constant matrix).
    std::vector<float> flat;
    flat.reserve(3 * mesh.object_positions.size());
    for (const glm::vec3& v : mesh.object_positions) flat.insert(flat.end(), {v.x, v.y, v.z});
    mesh.vertices = scene.params.add_block(prefix + "vertices", flat, {uint32_t(mesh.object_positions.size()), 3});
    add_normals_block(prefix, mesh);
  } else {
    rd.fail(p + "/type", "unknown shape type \"" + type + "\" (expected sphere, quad, mesh, disk or cylinder)");
  }
  if (s.contains("interior")) shape.interior = medium_ref(s["interior"], p + "/interior");
  if (s.contains("exterior")) shape.exterior = medium_ref(s["exterior"], p + "/exterior");
  return shape;
}

// A smooth mesh's normals as the block shapes.NAME.normals (per vertex, as Mitsuba's `normals`),
// when each vertex has one normal at all its corners (a file's `vn` may split them: then none).
void ShapeReader::add_normals_block(const std::string& prefix, Mesh& mesh) {
  if (mesh.object_normals.empty()) return;
  std::vector<glm::vec3> per_vertex(mesh.object_positions.size(), glm::vec3(0.f, 0.f, 1.f));
  std::vector<bool> seen(per_vertex.size(), false);
  for (size_t c = 0; c < mesh.indices.size(); ++c) {
    const uint32_t v = mesh.indices[c];
    if (seen[v] && glm::length(per_vertex[v] - mesh.object_normals[c]) > 1e-6f) return;
    per_vertex[v] = mesh.object_normals[c];
    seen[v] = true;
  }
  std::vector<float> flat;
  flat.reserve(3 * per_vertex.size());
  for (const glm::vec3& n : per_vertex) flat.insert(flat.end(), {n.x, n.y, n.z});
  mesh.normals = scene.params.add_block(prefix + "normals", flat, {uint32_t(per_vertex.size()), 3});
}

// A mesh's transform: an optional constant `matrix` (4x4, row-major, applied to the file's
// vertices and normals first: Mitsuba's to_world), then the parameters scale, rotate, translate.
void ShapeReader::transform(const json& j, const std::string& p, const std::string& prefix, Transform& t, Mesh& mesh) {
  rd.object(j, p, {"matrix", "scale", "rotate_x", "rotate_y", "rotate_z", "translate"});
  if (j.contains("matrix")) apply_mesh_matrix(rd, j["matrix"], p + "/matrix", mesh);
  float scale = j.contains("scale") ? rd.positive(j["scale"], p + "/scale") : 1.f;
  t.scale = scene.params.add(prefix + "scale", scale, Domain::positive());
  // Three consecutive scalar slots, read together as a vector.
  t.rotate = scene.params.add(prefix + "rotate_x", j.contains("rotate_x") ? float(rd.number(j["rotate_x"], p + "/rotate_x")) : 0.f);
  scene.params.add(prefix + "rotate_y", j.contains("rotate_y") ? float(rd.number(j["rotate_y"], p + "/rotate_y")) : 0.f);
  scene.params.add(prefix + "rotate_z", j.contains("rotate_z") ? float(rd.number(j["rotate_z"], p + "/rotate_z")) : 0.f);
  t.translate = scene.params.add(prefix + "translate",
                                 j.contains("translate") ? rd.vec3(j["translate"], p + "/translate") : glm::vec3(0.f));
}

// A boolean key, false when absent.
bool ShapeReader::flag(const json& s, const std::string& p, const char* key) {
  if (!s.contains(key)) return false;
  if (!s[key].is_boolean()) rd.fail(p + "/" + key, std::string("must be true or false, got ") + s[key].type_name());
  return s[key].get<bool>();
}

// A mesh of one material from a file or a built-in shape.
void ShapeReader::use_mesh(ObjFile&& m, uint32_t material, Mesh& mesh) {
  mesh.object_positions = std::move(m.positions);
  mesh.indices = std::move(m.indices);
  mesh.object_normals = std::move(m.corner_normals);
  mesh.corner_uvs = std::move(m.corner_uvs);
  mesh.face_materials.assign(mesh.indices.size() / 3, material);
}

void ShapeReader::load_obj(const std::string& rel, const std::string& jpath, const std::string& shape_name,
              std::optional<uint32_t> material, const std::map<std::string, uint32_t>& mapping, Mesh& mesh) {
  fs::path file = fs::path(rel).is_absolute() ? fs::path(rel) : base_dir / rel;
  std::error_code ec;
  if (!fs::exists(file, ec)) rd.fail(jpath, "cannot open \"" + file.string() + "\": no such file");
  if (fs::is_directory(file, ec)) rd.fail(jpath, "\"" + file.string() + "\" is a directory, not an OBJ file");
  if (!fs::is_regular_file(file, ec)) rd.fail(jpath, "\"" + file.string() + "\" is not a regular file");
  if (std::ifstream probe(file); !probe) rd.fail(jpath, "cannot open \"" + file.string() + "\" for reading");
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  if (ext != ".obj" && ext != ".ply" && !is_assimp_mesh(ext))
    rd.fail(jpath, "\"" + file.string() + "\": " +
                       (ext.empty() ? std::string("has no extension") : "\"" + ext + "\" meshes are not supported") +
                       "; supported mesh formats: Wavefront OBJ (.obj), PLY (.ply), glTF 2.0 (.gltf, .glb)");
  // Errors inside the file name it and the scene shape that loads it.
  const std::string where = rd.file() + ": " + jpath + ": " + file.string() + ": ";
  if (ext != ".obj") {
    if (!material) rd.fail(jpath.substr(0, jpath.rfind('/')) + "/material", "required for a " + ext.substr(1) + " mesh");
    use_mesh(ext == ".ply" ? read_ply_file(file, where) : read_mesh_file(file, where), *material, mesh);
    return;
  }
  if (std::string problem = missing_mtllib(file); !problem.empty()) {
    if (!material) throw LoadError(where + problem + "; give the shape a \"material\"");
    scene.warnings.push_back(file.string() + ": " + problem + "; the shape's \"material\" is used");
  }
  const ObjFile obj = read_obj_file(file, where);
  mesh.object_positions = obj.positions;
  mesh.indices = obj.indices;
  mesh.object_normals = obj.corner_normals;
  mesh.corner_uvs = obj.corner_uvs;
  // The OBJ's own materials, used when the scene names none.
  std::vector<uint32_t> obj_materials;
  const auto& mtls = obj.materials;
  if (!material) {
    for (const ObjMaterial& m : mtls) {
      if (auto mapped = mapping.find(m.name); mapped != mapping.end()) {
        obj_materials.push_back(mapped->second);
        continue;
      }
      obj_materials.push_back(add_material(shape_name + "." + m.name, m.albedo,
                                           m.emission ? &*m.emission : nullptr));
    }
    for (const auto& entry : mapping) {
      const std::string& name = entry.first;
      if (std::none_of(mtls.begin(), mtls.end(), [&](const auto& m) { return m.name == name; }))
        rd.fail(jpath.substr(0, jpath.rfind('/')) + "/materials/" + name,
                "\"" + file.string() + "\" has no material named \"" + name + "\"");
    }
    if (obj_materials.empty())
      rd.fail(jpath.substr(0, jpath.rfind('/')) + "/material",
              "required: \"" + file.string() + "\" defines no materials");
  }
  // One material per face: the scene's, the OBJ's, or a default grey for faces without one.
  std::optional<uint32_t> fallback;
  for (int id : obj.face_material) {
    if (material) {
      mesh.face_materials.push_back(*material);
    } else if (id >= 0 && size_t(id) < obj_materials.size()) {
      mesh.face_materials.push_back(obj_materials[size_t(id)]);
    } else {
      if (!fallback) fallback = add_material(shape_name + ".default", glm::vec3(0.8f), nullptr);
      mesh.face_materials.push_back(*fallback);
    }
  }
}

}  // namespace dray
