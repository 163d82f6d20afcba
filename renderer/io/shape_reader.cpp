#include "renderer/io/shape_reader.h"

#include <algorithm>
#include <fstream>
#include <optional>

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include "renderer/core/registry.h"
#include "renderer/io/json_props.h"
#include "renderer/io/mesh_file.h"
#include "renderer/io/obj_file.h"
#include "renderer/io/ply_file.h"
#include "renderer/io/serialized_file.h"
#include "renderer/io/scene_loader.h"
#include "renderer/shapes/cube_mesh.h"
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
  file_flat_ = false;
  if (const auto reader = plugin_reader<ShapeModel, Props>(type)) {
    // A plugin that reads its own keys (sphere, quad). In a group (whose trees hold triangles) its
    // tessellation, a mesh over the same surface: its values, not parameters.
    ParamTable scratch;
    JsonProps<Props> props(rd, in_group_ ? scratch : scene.params, s, p, prefix, {"name", "material", "interior", "exterior"}, type);
    shape.model = reader(props);
    shape.material = material_ref(s["material"], p + "/material");
    if (in_group_) return tessellated_member(shape, scratch);
  } else if (std::ranges::find(MeshShape::kPlugins, type) != MeshShape::kPlugins.end()) {  // a mesh file or a tessellation
    const bool disk = type == "disk", grid = type == "grid", curve = type == "linearcurve" || type == "bsplinecurve";
    const bool tessellated = disk || grid || curve || type == "cylinder" || type == "cube";
    if (grid) rd.object(s, p, {"name", "type", "material", "transform", "resolution", "interior", "exterior", "displacement"}, {"material"});
    else if (curve) rd.object(s, p, {"name", "type", "file", "material", "transform"}, {"file", "material"});
    else if (tessellated) rd.object(s, p, {"name", "type", "material", "transform", "flip_normals", "interior", "exterior"}, {"material"});
    else rd.object(s, p, {"name", "type", "file", "material", "materials", "transform", "face_normals", "flip_tex_coords", "shape_index", "interior", "exterior", "displacement"}, {"file"});
    if (in_group_ && s.contains("displacement")) rd.fail(p + "/displacement", "a group's mesh cannot be displaced (its vertices are not parameters)");
    MeshShape& mesh_shape = shape.model.emplace<MeshShape>();
    mesh_shape.mesh = uint32_t(scene.meshes.size());
    scene.meshes.emplace_back();
    attributes_.clear();
    std::optional<uint32_t> material;
    if (s.contains("material")) material = material_ref(s["material"], p + "/material");
    if (tessellated) {
      ObjFile shape_mesh;
      const bool flip = !grid && flag(s, p, "flip_normals");
      if (flip && type == "cube") rd.fail(p + "/flip_normals", "a cube faces out (flip_normals is not supported)");
      if (grid) static_cast<TriangleMesh&>(shape_mesh) = grid_mesh_of(s, p);
      else if (curve) static_cast<TriangleMesh&>(shape_mesh) = curve_mesh_of(s, p, type);
      else static_cast<TriangleMesh&>(shape_mesh) = disk             ? disk_mesh(kDiskSegments, flip)
                                                    : type == "cube" ? cube_mesh()
                                                                     : cylinder_mesh(kCylinderSegments, flip);
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
      // Mitsuba's OBJ flips v (flip_tex_coords, default true): the OBJ convention's origin at the bottom.
      MeshFileOptions o;
      o.flip_uv = !s.contains("flip_tex_coords") || flag(s, p, "flip_tex_coords");
      if (s.contains("shape_index")) o.shape_index = int(rd.integer(s["shape_index"], p + "/shape_index", 0, INT32_MAX));
      o.face_normals_set = s.contains("face_normals");
      load_obj(rd.string(s["file"], p + "/file"), p + "/file", shape.name, material, mapping, o, scene.meshes.back());
    }
    json tj = s.contains("transform") ? s["transform"] : json::object();
    if (curve) tj.erase("matrix");  // it moved the control points (curve_mesh_of), not the radii
    if (in_group_) {
      bake_transform(tj, p + "/transform", scene.meshes.back());
    } else {
      rd.object(tj, p + "/transform", {"matrix", "scale", "rotate_x", "rotate_y", "rotate_z", "translate"});
      if (tj.contains("matrix")) apply_mesh_matrix(rd, tj["matrix"], p + "/transform/matrix", scene.meshes.back());
      transform_params(tj, p + "/transform", prefix, mesh_shape.transform, scene.params);
    }
    // Smooth shading as in Mitsuba 3: the file's `vn`, else computed; `face_normals: true`
    // shades flat (a disk is flat).
    Mesh& mesh = scene.meshes.back();
    if (disk || type == "cube" || flag(s, p, "face_normals") || file_flat_) mesh.object_normals.clear();
    else if (mesh.object_normals.empty()) mesh.object_normals = vertex_normals(mesh.object_positions, mesh.indices);
    // The object-space positions as a parameter block (after the constant matrix); a group's
    // meshes have none (Mitsuba differentiates an instance's transform, not its group's vertices).
    add_attribute_blocks(prefix, mesh);
    if (in_group_) {
      add_normals_block(prefix, mesh);
      return shape;
    }
    if (s.contains("displacement")) return read_displacement(s["displacement"], p + "/displacement", mesh), shape;
    std::vector<float> flat;
    flat.reserve(3 * mesh.object_positions.size());
    for (const glm::vec3& v : mesh.object_positions) flat.insert(flat.end(), {v.x, v.y, v.z});
    mesh.vertices = scene.params.add_block(prefix + "vertices", flat, {uint32_t(mesh.object_positions.size()), 3});
    add_normals_block(prefix, mesh);
  } else if (type == "sdfgrid") {
    shape = read_sdf_grid(s, p, prefix, shape);
  } else {
    rd.fail(p + "/type", "unknown shape type \"" + type + "\" (expected " + plugin_names<ShapeModel>() + ", group or instance)");
  }
  if (s.contains("interior")) shape.interior = medium_ref(s["interior"], p + "/interior");
  if (s.contains("exterior")) shape.exterior = medium_ref(s["exterior"], p + "/exterior");
  return shape;
}

// A sphere or quad in a group: its plugin's tessellation (the same surface; a sphere's:
// renderer/shapes/sphere_mesh.h), a mesh of the group.
Shape ShapeReader::tessellated_member(Shape shape, const ParamTable& values) {
  ObjFile m;
  std::visit([&](const auto& plugin) {
    if constexpr (requires { plugin.tessellation(values); }) static_cast<TriangleMesh&>(m) = plugin.tessellation(values);
  }, shape.model);
  shape.model = MeshShape{};
  shape.as<MeshShape>().mesh = uint32_t(scene.meshes.size());
  scene.meshes.emplace_back();
  use_mesh(std::move(m), shape.material, scene.meshes.back());
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
  if (in_group_) {  // no block: the corners normalized as build_geometry loads a block (as a copy's)
    for (size_t c = 0; c < mesh.indices.size(); ++c) mesh.object_normals[c] = to_glm(unit_normal(Vec3<float>(per_vertex[mesh.indices[c]])));
    return;
  }
  std::vector<float> flat;
  flat.reserve(3 * per_vertex.size());
  for (const glm::vec3& n : per_vertex) flat.insert(flat.end(), {n.x, n.y, n.z});
  mesh.normals = scene.params.add_block(prefix + "normals", flat, {uint32_t(per_vertex.size()), 3});
}

// A transform's parameters scale, rotate, translate (after any constant `matrix`), in `table`.
void ShapeReader::transform_params(const json& j, const std::string& p, const std::string& prefix, Transform& t,
                                   ParamTable& table) {
  float scale = j.contains("scale") ? rd.positive(j["scale"], p + "/scale") : 1.f;
  t.scale = table.add(prefix + "scale", scale, Domain::positive());
  // Three consecutive scalar slots, read together as a vector.
  t.rotate = table.add(prefix + "rotate_x", j.contains("rotate_x") ? float(rd.number(j["rotate_x"], p + "/rotate_x")) : 0.f);
  table.add(prefix + "rotate_y", j.contains("rotate_y") ? float(rd.number(j["rotate_y"], p + "/rotate_y")) : 0.f);
  table.add(prefix + "rotate_z", j.contains("rotate_z") ? float(rd.number(j["rotate_z"], p + "/rotate_z")) : 0.f);
  t.translate = table.add(prefix + "translate", j.contains("translate") ? rd.vec3(j["translate"], p + "/translate") : glm::vec3(0.f));
}

// A group mesh's whole transform applied to its vertices and normals: constants, not parameters.
void ShapeReader::bake_transform(const json& j, const std::string& p, Mesh& mesh) {
  rd.object(j, p, {"matrix", "scale", "rotate_x", "rotate_y", "rotate_z", "translate"});
  if (j.empty()) return;
  if (j.contains("matrix")) apply_mesh_matrix(rd, j["matrix"], p + "/matrix", mesh);
  ParamTable scratch;
  Transform t;
  transform_params(j, p, "", t, scratch);
  const TransformT<float> xf = transform_from_params(ParamView<float>(scratch), t);
  for (glm::vec3& v : mesh.object_positions) v = to_glm(transform_point(xf, Vec3<float>(v)));
  for (glm::vec3& n : mesh.object_normals) n = to_glm(transform_normal(xf, Vec3<float>(n)));
}

void ShapeReader::read_group(const json& s, const std::string& p, const std::string& name) {
  rd.object(s, p, {"name", "type", "shapes"}, {"shapes"});
  const json& list = s["shapes"];
  if (!list.is_array() || list.empty()) rd.fail(p + "/shapes", "must be a non-empty array of meshes");
  ShapeGroup group{name, {}};
  in_group_ = true;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string q = p + "/shapes/" + std::to_string(i);
    const json& m = list[i];
    if (!m.is_object() || !m.contains("type")) rd.fail(q + "/type", "required key is missing");
    const std::string type = rd.string(m["type"], q + "/type");
    if (!with_plugin<ShapeModel>(type, [](const auto&) {}))
      rd.fail(q + "/type", "a group holds shapes (" + plugin_names<ShapeModel>() + "), not \"" + type + "\"");
    if (m.contains("interior") || m.contains("exterior")) rd.fail(q, "a group's shapes hold no media");
    const Shape member = read(m, q, name + "." + std::to_string(i), type, "");
    if (member.is<MeshShape>())  // (an sdfgrid's reader refuses an emissive material)
      for (uint32_t f : scene.meshes[member.as<MeshShape>().mesh].face_materials)
        if (scene.materials[f].emissive)
          rd.fail(q + "/material", "a group's shapes cannot emit light (Mitsuba does not instance emitters)");
    group.members.push_back(member);
  }
  in_group_ = false;
  scene.groups.push_back(std::move(group));
}

void ShapeReader::read_instance(const json& s, const std::string& p, const std::string& name, const std::string& prefix) {
  rd.object(s, p, {"name", "type", "group", "transform"}, {"group"});
  const std::string group = rd.string(s["group"], p + "/group");
  auto g = std::find_if(scene.groups.begin(), scene.groups.end(), [&](const ShapeGroup& x) { return x.name == group; });
  if (g == scene.groups.end()) rd.fail(p + "/group", "no group named \"" + group + "\" earlier in /shapes");
  const json& tj = s.contains("transform") ? s["transform"] : json::object();
  const std::string tp = p + "/transform";
  rd.object(tj, tp, {"matrix", "scale", "rotate_x", "rotate_y", "rotate_z", "translate"});
  Shape shape;
  shape.name = name;
  shape.instance = int(scene.instances.size());
  Transform transform;
  read_base(tj, tp, transform);  // the group's vertices are shared: its matrix stays a base
  transform_params(tj, tp, prefix, transform, scene.params);
  scene.instances.push_back({name, uint32_t(g - scene.groups.begin()), uint32_t(scene.shapes.size())});
  for (const Shape& member : g->members) {
    shape.model = member.model;  // a mesh or an sdfgrid, under the instance's transform
    std::visit([&](auto& plugin) {
      if constexpr (requires { plugin.transform; }) plugin.transform = transform;
    }, shape.model);
    shape.material = member.material;
    scene.shapes.push_back(shape);
  }
}

// A transform's `matrix`, kept as its constant base (the parameters apply after it).
void ShapeReader::read_base(const json& tj, const std::string& tp, Transform& t) {
  if (!tj.contains("matrix")) return;
  const glm::dmat4 m = read_affine_matrix(rd, tj["matrix"], tp + "/matrix");
  const glm::dmat3 b(m);
  t.has_base = true;
  t.base_linear = glm::mat3(b);
  t.base_offset = glm::vec3(m[3]);
  t.normal_pre = glm::mat3(glm::inverse(glm::transpose(b) * b));
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
  attributes_ = std::move(m.attributes);
}

// The file's attributes as parameter blocks `shapes.NAME.ATTRIBUTE` (rows × dim), as Mitsuba's.
void ShapeReader::add_attribute_blocks(const std::string& prefix, Mesh& mesh) {
  for (TriangleMesh::Attribute& a : attributes_) {
    MeshAttribute m;
    m.id = scene.attribute_id(a.name);
    m.face = a.name.rfind("face_", 0) == 0;
    m.dim = a.dim;
    const size_t rows = a.values.size() / size_t(a.dim);
    m.data = scene.params.add_block(prefix + a.name, a.values, {uint32_t(rows), uint32_t(a.dim)});
    mesh.attributes.push_back(m);
  }
  attributes_.clear();
}

void ShapeReader::load_obj(const std::string& rel, const std::string& jpath, const std::string& shape_name,
                            std::optional<uint32_t> material, const std::map<std::string, uint32_t>& mapping,
                            const MeshFileOptions& o, Mesh& mesh) {
  fs::path file = fs::path(rel).is_absolute() ? fs::path(rel) : base_dir / rel;
  std::error_code ec;
  if (!fs::exists(file, ec)) rd.fail(jpath, "cannot open \"" + file.string() + "\": no such file");
  if (fs::is_directory(file, ec)) rd.fail(jpath, "\"" + file.string() + "\" is a directory, not an OBJ file");
  if (!fs::is_regular_file(file, ec)) rd.fail(jpath, "\"" + file.string() + "\" is not a regular file");
  if (std::ifstream probe(file); !probe) rd.fail(jpath, "cannot open \"" + file.string() + "\" for reading");
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  if (ext != ".obj" && ext != ".ply" && ext != ".serialized" && !is_assimp_mesh(ext))
    rd.fail(jpath, "\"" + file.string() + "\": " +
                       (ext.empty() ? std::string("has no extension") : "\"" + ext + "\" meshes are not supported") +
                       "; supported mesh formats: Wavefront OBJ (.obj), PLY (.ply), Mitsuba serialized (.serialized), glTF 2.0 (.gltf, .glb)");
  // Errors inside the file name it and the scene shape that loads it.
  const std::string where = rd.file() + ": " + jpath + ": " + file.string() + ": ";
  const std::string shape_path = jpath.substr(0, jpath.rfind('/'));
  if (ext != ".serialized" && o.shape_index) rd.fail(shape_path + "/shape_index", "applies to serialized files only");
  if (ext != ".obj") {
    if (!o.flip_uv) rd.fail(shape_path + "/flip_tex_coords", "applies to OBJ files only (as Mitsuba's obj)");
    if (!material) rd.fail(shape_path + "/material", "required for a " + ext.substr(1) + " mesh");
    if (ext == ".serialized") {
      SerializedMesh m = read_serialized_file(file, o.shape_index.value_or(0), where);
      file_flat_ = m.face_normals && !o.face_normals_set;  // version 5's flag, unless the scene says
      use_mesh(std::move(m), *material, mesh);
      return;
    }
    ObjFile m = ext == ".ply" ? read_ply_file(file, where) : read_mesh_file(file, where);
    for (const std::string& w : m.warnings) scene.warnings.push_back(file.string() + ": " + w);
    use_mesh(std::move(m), *material, mesh);
    return;
  }
  if (std::string problem = missing_mtllib(file); !problem.empty()) {
    if (!material) throw LoadError(where + problem + "; give the shape a \"material\"");
    scene.warnings.push_back(file.string() + ": " + problem + "; the shape's \"material\" is used");
  }
  const ObjFile obj = read_obj_file(file, where, o.flip_uv);
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
