#pragma once
// The XML writer's pieces (renderer/io/mitsuba/xml_writer.h is its entry point): values, textures
// and BSDFs in xml_writer.cpp, the sensors, integrator, shapes and lights in writer_objects.cpp.
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

namespace dray {
struct Scene;
}

namespace dray::mitsuba {

// The shortest text that reads back as the same double; several, comma-separated.
std::string num(double v);
std::string num(float v);  // a float's shortest text
std::string nums(const nlohmann::json& a);
bool is_triple(const nlohmann::json& v);
// A triple as the scene holds it: in float (so that sums of its values are exact in double).
glm::dvec3 float_triple(const nlohmann::json& v);

class Writer {
 public:
  // scene, xml_file: the loaded document and where the XML goes, for meshes whose faces take
  // their OBJ file's materials (written beside it as one PLY file per material).
  Writer(const nlohmann::json& doc, std::vector<std::string>& warnings, const Scene* scene = nullptr,
         std::filesystem::path xml_file = {})
      : doc_(doc), warnings_(warnings), scene_(scene), xml_file_(std::move(xml_file)) {}
  std::string run();

 private:
  using json = nlohmann::json;
  [[noreturn]] void fail(const std::string& path, const std::string& msg) const;
  static pugi::xml_node add(pugi::xml_node parent, const char* tag, const std::string& name = "") {
    pugi::xml_node n = parent.append_child(tag);
    if (!name.empty()) n.append_attribute("name") = name.c_str();
    return n;
  }
  static void attr(pugi::xml_node n, const char* key, const std::string& v) { n.append_attribute(key) = v.c_str(); }
  static void typed(pugi::xml_node parent, const char* tag, const std::string& name, const std::string& v) {
    attr(add(parent, tag, name), "value", v);
  }
  static void xyz(pugi::xml_node parent, const char* tag, const std::string& name, const glm::dvec3& v);
  static void lookat(pugi::xml_node transform, const json& origin, const json& target, const json& up);

  // A plugin parameter: a number (float), a colour (rgb), a boolean, a string, a texture (inline,
  // or a reference to one in /textures).
  void value(pugi::xml_node parent, const std::string& key, const json& v, const std::string& path);
  void texture(pugi::xml_node parent, const std::string& key, const json& t, const std::string& path, const std::string& id = "");
  void bsdf(pugi::xml_node parent, const json& m, const std::string& path, const std::string& id = "");
  // Material m as Mitsuba reads it: dray's two-sided reflecting BSDF wrapped in twosided.
  static json as_mitsuba_sided(const json& m);
  // A shape's transform: matrix first, then scale, rotate_x, _y, _z, translate, as dray applies them.
  void transform(pugi::xml_node parent, const json& t, const std::string& path);

  // A medium of /media: its coefficients (numbers, colours, grid or constant volumes), scale,
  // phase function and flags.
  void medium(pugi::xml_node scene, const json& m, const std::string& path, const std::string& id);
  void medium_ref(pugi::xml_node parent, const std::string& side, const json& name, const std::string& path);
  void phase(pugi::xml_node parent, const json& ph, const std::string& path, const std::string& name);
  void integrator(pugi::xml_node scene);
  void sensor(pugi::xml_node scene, const json& cam, const std::string& path, bool named);
  void film(pugi::xml_node sensor, int width, int height);
  void shape(pugi::xml_node parent, const json& s, const std::string& path);
  void emitter(pugi::xml_node shape, const std::string& material, const std::string& path);
  void light(pugi::xml_node scene, const json& l, const std::string& path);
  // A mesh of its OBJ file's materials (renderer/io/mitsuba/writer_meshes.cpp).
  void obj_parts(pugi::xml_node parent, const json& s, const std::string& path, const std::string& name);
  void obj_material(pugi::xml_node shape, uint32_t material);

  // Mitsuba's ids are one namespace: a name taken by an earlier texture, BSDF, sensor, shape or
  // light gets its kind appended (said in a warning). The id each named object was given, by kind.
  std::string unique_id(const std::string& name, const std::string& kind, const std::string& path);
  std::set<std::string> ids_;
  std::map<std::string, std::string> texture_ids_, material_ids_, group_ids_, medium_ids_;
  // Materials written inside their shape, not under an id: emissive ones (beside the shape's
  // emitter) and one shape's own (named after it, as the converter names a shape's inline bsdf).
  std::set<std::string> inline_materials_;
  void find_inline_materials();

  const json& doc_;
  std::vector<std::string>& warnings_;
  const Scene* scene_;
  std::filesystem::path xml_file_;
  json textures_ = json::object();
};

}  // namespace dray::mitsuba
