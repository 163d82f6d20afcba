#include "renderer/io/scene_loader.h"

#include "renderer/shapes/cylinder_mesh.h"
#include "renderer/shapes/disk_mesh.h"
#include "renderer/shapes/mesh_normals.h"
#include "renderer/io/light_reader.h"
#include "renderer/io/material_reader.h"
#include "renderer/io/medium_reader.h"
#include "renderer/io/mesh_file.h"
#include "renderer/io/ply_file.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/render_settings_reader.h"
#include "renderer/io/mitsuba/xml.h"
#include "renderer/scene_params.h"
#include "renderer/io/obj_file.h"
#include "renderer/io/texture_reader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <climits>
#include <sstream>

#include <glm/common.hpp>
#include <glm/geometric.hpp>
#include <glm/vector_relational.hpp>

namespace dray {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Loader {
  JsonReader rd;
  fs::path base_dir;
  Scene scene;
  std::map<std::string, uint32_t> material_index;
  std::map<std::string, int> medium_index;

  TextureReader textures{rd, scene, base_dir};

  Loader(const std::string& path) : rd(path), base_dir(fs::path(path).parent_path()) {
    scene.path = path;
  }

  uint32_t add_material(const std::string& name, const glm::vec3& reflectance, const glm::vec3* emission) {
    const uint32_t index = MaterialReader(rd, scene).add_diffuse(name, reflectance, emission);
    material_index[name] = index;
    return index;
  }

  void camera(const json& j) {
    add_camera(scene, read_camera(rd, j, "/camera"));
    if (j.contains("medium")) scene.camera_medium = medium_ref(j["medium"], "/camera/medium");
  }

  void render(const json& j) { scene.render = read_render_settings(rd, j, scene.camera); }

  void materials(const json& j) {
    if (!j.is_object()) rd.fail("/materials", std::string("must be an object, got ") + j.type_name());
    MaterialReader reader(rd, scene, &textures);
    for (auto it = j.begin(); it != j.end(); ++it) material_index[it.key()] = reader.read(it.key(), it.value(), "/materials/" + it.key());
  }

  int medium_ref(const json& j, const std::string& path) {
    const std::string name = rd.string(j, path);
    auto it = medium_index.find(name);
    if (it == medium_index.end()) rd.fail(path, "no medium named \"" + name + "\" in /media");
    return it->second;
  }

  uint32_t material_ref(const json& j, const std::string& path) {
    std::string name = rd.string(j, path);
    auto it = material_index.find(name);
    if (it == material_index.end()) rd.fail(path, "no material named \"" + name + "\" in /materials");
    return it->second;
  }

  // The head of a /shapes or /lights element: an object with a "type" and a unique "name"
  // (default: the singular of the list and the index, "shape3").
  struct Element {
    std::string path, name, type, prefix;  // prefix: of its parameter names, "shapes.ball."
  };
  Element element(const json& list, const std::string& key, size_t i, std::set<std::string>& names) {
    Element e{"/" + key + "/" + std::to_string(i), "", "", ""};
    const json& j = list[i];
    if (!j.is_object() || !j.contains("type")) rd.fail(e.path + "/type", "required key is missing");
    const std::string singular = key.substr(0, key.size() - 1);
    e.name = j.contains("name") ? rd.string(j["name"], e.path + "/name") : singular + std::to_string(i);
    if (!names.insert(e.name).second) rd.fail(e.path + "/name", "duplicate " + singular + " name \"" + e.name + "\"");
    if (j.contains("name")) e.path += " (" + e.name + ")";  // errors say which: /shapes/1 (ball)/radius
    e.type = rd.string(j["type"], e.path + "/type");
    e.prefix = key + "." + e.name + ".";
    return e;
  }

  void shapes(const json& j) {
    if (!j.is_array()) rd.fail("/shapes", std::string("must be an array, got ") + j.type_name());
    std::set<std::string> names;
    for (size_t i = 0; i < j.size(); ++i) {
      const json& s = j[i];
      auto [p, name, type, prefix] = element(j, "shapes", i, names);
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
      scene.shapes.push_back(shape);
    }
  }

  // A smooth mesh's normals as the block shapes.NAME.normals (per vertex, as Mitsuba's `normals`),
  // when each vertex has one normal at all its corners (a file's `vn` may split them: then none).
  void add_normals_block(const std::string& prefix, Mesh& mesh) {
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
  void transform(const json& j, const std::string& p, const std::string& prefix, Transform& t, Mesh& mesh) {
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
  bool flag(const json& s, const std::string& p, const char* key) {
    if (!s.contains(key)) return false;
    if (!s[key].is_boolean()) rd.fail(p + "/" + key, std::string("must be true or false, got ") + s[key].type_name());
    return s[key].get<bool>();
  }

  // A mesh of one material from a file or a built-in shape.
  static void use_mesh(ObjFile&& m, uint32_t material, Mesh& mesh) {
    mesh.object_positions = std::move(m.positions);
    mesh.indices = std::move(m.indices);
    mesh.object_normals = std::move(m.corner_normals);
    mesh.corner_uvs = std::move(m.corner_uvs);
    mesh.face_materials.assign(mesh.indices.size() / 3, material);
  }

  void load_obj(const std::string& rel, const std::string& jpath, const std::string& shape_name,
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

  void lights(const json& j) {
    if (!j.is_array()) rd.fail("/lights", std::string("must be an array, got ") + j.type_name());
    std::set<std::string> names;
    for (size_t i = 0; i < j.size(); ++i) {
      const json& l = j[i];
      auto [p, name, type, prefix] = element(j, "lights", i, names);
      scene.lights.push_back(LightReader(rd, scene, textures, base_dir).read(l, p, name, type, prefix));
    }
  }

  // Emissive shapes become area lights.
  void area_lights() {
    for (uint32_t si = 0; si < scene.shapes.size(); ++si) {
      Shape& s = scene.shapes[si];
      bool emits = false;
      if (s.kind == Shape::Kind::mesh) {
        for (uint32_t m : scene.meshes[s.mesh].face_materials) emits = emits || scene.materials[m].emissive;
      } else {
        emits = scene.materials[s.material].emissive;
      }
      if (!emits) continue;
      Light l;
      l.name = s.name;
      l.kind = Light::Kind::area;
      l.shape = si;
      s.light = int(scene.lights.size());
      scene.lights.push_back(l);
    }
  }

  Scene load(const json& doc, bool build) {
    rd.object(doc, "", {"camera", "render", "textures", "materials", "media", "shapes", "lights"}, {"camera"});
    if (doc.contains("media")) medium_index = read_media(rd, scene, doc["media"], base_dir);
    camera(doc["camera"]);
    if (doc.contains("render")) render(doc["render"]);
    if (doc.contains("textures")) textures.read_all(doc["textures"]);
    if (doc.contains("materials")) materials(doc["materials"]);
    shapes(doc.contains("shapes") ? doc["shapes"] : json::array());
    if (doc.contains("lights")) lights(doc["lights"]);
    area_lights();
    check_media_closed(rd, scene);
    // Every reader checked its values as it read them; the parameters' own rules are the last word
    // (scene_params.h: the same check scene.update and the optimizer make).
    if (auto why = param_violation(scene)) throw LoadError(rd.file() + ": " + *why);
    if (scene.lights.empty())
      scene.warnings.push_back(rd.file() + ": the scene has no light and no emissive material: the image will be black");
    if (build) scene.build_geometry();
    return std::move(scene);
  }
};

}  // namespace

Scene load_scene(const json& doc, const std::string& path, bool build_geometry) {
  return Loader(path).load(doc, build_geometry);
}

// An error of the document a Mitsuba scene converted to ("scene.xml: /materials/gold/alpha: ..."),
// placed at the XML element its object came from and said with its key ("scene.xml:12:5: <bsdf
// type=... id="gold"> alpha: ...").
std::string located(const std::string& msg, const std::string& path, const std::map<std::string, std::string>& locations) {
  const std::string head = path + ": ";
  if (msg.rfind(head, 0) != 0) return msg;
  const std::string rest = msg.substr(head.size());
  const std::string* best = nullptr;
  size_t best_len = 0;
  for (const auto& [pointer, where] : locations) {
    const size_t k = pointer.size();
    if (k > best_len && rest.compare(0, k, pointer) == 0 && (rest.size() == k || rest[k] == '/' || rest[k] == ' ' || rest[k] == ':')) {
      best = &where;
      best_len = k;
    }
  }
  if (!best) return msg;
  // The key inside the object in Mitsuba's words: "/alpha: …" -> " alpha: …", "/reflectance/1" ->
  // " reflectance[1]"; a light's "(name)" dropped (the element names it).
  std::string key = rest.substr(best_len);
  if (key.rfind(" (", 0) == 0 && key.find(')') != std::string::npos) key = key.substr(key.find(')') + 1);
  const size_t colon = key.find(": ");
  std::string pointer = key.substr(0, colon), out;
  for (size_t i = 0; i < pointer.size();) {
    const size_t next = std::min(pointer.find('/', i + 1), pointer.size());
    const std::string seg = pointer.substr(i + 1, next - i - 1);
    const bool index = !seg.empty() && std::all_of(seg.begin(), seg.end(), ::isdigit);
    out += index && !out.empty() ? "[" + seg + "]" : (out.empty() ? "" : ".") + seg;
    i = next;
  }
  return *best + (out.empty() ? "" : " " + out) + (colon == std::string::npos ? "" : key.substr(colon));
}

bool is_mitsuba_scene(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  return ext == ".xml";
}

json read_scene_document(const std::string& path, const std::map<std::string, std::string>& defines,
                         std::vector<std::string>& warnings, std::map<std::string, std::string>* locations) {
  if (is_mitsuba_scene(path)) return read_mitsuba_xml(path, defines, warnings, locations);
  if (!defines.empty()) throw LoadError(path + ": -D defines values of Mitsuba XML scenes; this scene is JSON (use --set)");
  return read_json_file(path);
}

Scene load_scene(const std::string& path, const std::vector<std::string>& overrides, bool build_geometry,
                 const std::map<std::string, std::string>& defines) {
  std::vector<std::string> warnings;
  std::map<std::string, std::string> locations;
  json doc = read_scene_document(path, defines, warnings, &locations);
  for (const auto& o : overrides) apply_override(doc, o);
  Scene scene;
  try {
    scene = load_scene(doc, path, build_geometry);
  } catch (const LoadError& e) {
    throw LoadError(located(e.what(), path, locations));
  }
  scene.warnings.insert(scene.warnings.begin(), warnings.begin(), warnings.end());
  return scene;
}

}  // namespace dray
