#include "renderer/io/scene_loader.h"

#include "renderer/io/mitsuba_keys.h"
#include <set>

#include "renderer/shapes/cylinder_mesh.h"
#include "renderer/shapes/disk_mesh.h"
#include "renderer/shapes/mesh_normals.h"
#include "renderer/io/light_reader.h"
#include "renderer/io/material_reader.h"
#include "renderer/io/medium_reader.h"
#include "renderer/io/mesh_file.h"
#include "renderer/io/mitsuba_keys.h"
#include "renderer/io/ply_file.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/render_settings_reader.h"
#include "renderer/io/shape_reader.h"
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

  // /camera: one camera, or an array of them (Mitsuba's several sensors; the first is the default).
  void cameras(const json& j) {
    if (!j.is_array()) return camera(j, "/camera", "camera");
    if (j.empty()) rd.fail("/camera", "must be a camera object or an array of at least one");
    std::set<std::string> names;
    for (size_t i = 0; i < j.size(); ++i) {
      const std::string p = "/camera/" + std::to_string(i);
      const std::string name = j[i].is_object() && j[i].contains("name") ? rd.string(j[i]["name"], p + "/name")
                                                                          : (i == 0 ? "camera" : "sensor" + std::to_string(i));
      if (name.empty() || name.find_first_of(".[]") != std::string::npos || !names.insert(name).second)
        rd.fail(p + "/name", "must be a unique name without '.', '[' or ']', got \"" + name + "\"");
      camera(j[i], p, name);
    }
  }

  void camera(const json& j, const std::string& p, const std::string& name) {
    const int i = add_sensor(scene, name, read_camera(rd, j, p));
    if (j.contains("medium")) scene.sensors[size_t(i)].medium = medium_ref(j["medium"], p + "/medium");
  }

  void render(const json& j) {
    scene.render = read_render_settings(rd, j, scene.sensors[0].camera);
    // A crop is every sensor's window.
    for (size_t i = 1; i < scene.sensors.size() && scene.render.crop; ++i) {
      const Camera& c = scene.sensors[i].camera;
      if (scene.render.crop->x1 > c.width || scene.render.crop->y1 > c.height)
        rd.fail("/render/crop", "must lie inside every sensor's film: sensor " + scene.sensors[i].name + "'s is " +
                                    std::to_string(c.width) + "x" + std::to_string(c.height));
    }
  }

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
    ShapeReader reader(rd, scene, base_dir, material_index, medium_index, &textures);
    for (size_t i = 0; i < j.size(); ++i) {
      auto [p, name, type, prefix] = element(j, "shapes", i, names);
      if (type == "group") reader.read_group(j[i], p, name);
      else if (type == "instance") reader.read_instance(j[i], p, name, prefix);
      else scene.shapes.push_back(reader.read(j[i], p, name, type, prefix));
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
      if (s.is<MeshShape>()) {
        for (uint32_t m : scene.meshes[s.as<MeshShape>().mesh].face_materials) emits = emits || scene.materials[m].emissive;
      } else {
        emits = scene.materials[s.material].emissive;
      }
      if (!emits) continue;
      AreaEmitter area;
      area.shape = si;
      s.light = int(scene.lights.size());
      scene.lights.push_back(Light{s.name, std::move(area)});
    }
  }

  // A mesh_attribute texture names an attribute some mesh of the scene holds (Mitsuba refuses one
  // that its shape lacks: "attribute requested but had not been found").
  void check_mesh_attributes() {
    for (const Texture& t : scene.textures) {
      const auto* m = std::get_if<MeshAttributeTexture>(&t.model);
      if (!m) continue;
      std::set<std::string> held;
      bool found = false;
      for (const Mesh& mesh : scene.meshes)
        for (const MeshAttribute& a : mesh.attributes) {
          found = found || a.id == m->attribute;
          held.insert(scene.attribute_names[size_t(a.id)]);
        }
      if (found) continue;
      std::string list;
      for (const std::string& h : held) list += (list.empty() ? "" : ", ") + h;
      rd.fail("/textures/" + t.name + "/name", "no mesh of the scene has the attribute \"" +
                                                   scene.attribute_names[size_t(m->attribute)] + "\" (" +
                                                   (list.empty() ? std::string("its meshes have none") : "its meshes have: " + list) + ")");
    }
  }

  Scene load(const json& doc, bool build) {
    rd.object(doc, "", {"camera", "render", "textures", "materials", "media", "shapes", "lights", "mitsuba_ids"}, {"camera"});
    if (doc.contains("media")) medium_index = read_media(rd, scene, doc["media"], base_dir);
    cameras(doc["camera"]);
    if (doc.contains("render")) render(doc["render"]);
    if (doc.contains("textures")) textures.read_all(doc["textures"]);
    if (doc.contains("materials")) materials(doc["materials"]);
    shapes(doc.contains("shapes") ? doc["shapes"] : json::array());
    if (doc.contains("lights")) lights(doc["lights"]);
    area_lights();
    std::set<std::string> with_uvs;  // meshes with texture coordinates (Mitsuba's `texcoords`)
    for (const Shape& s : scene.shapes)
      if (s.is<MeshShape>() && !scene.meshes[s.as<MeshShape>().mesh].corner_uvs.empty()) with_uvs.insert(s.name);
    add_mitsuba_aliases(scene.params, doc.contains("mitsuba_ids") ? doc["mitsuba_ids"] : json::object(), with_uvs);
    check_media_closed(rd, scene);
    check_mesh_attributes();
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
