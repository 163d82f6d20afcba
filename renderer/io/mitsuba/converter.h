#pragma once
// The Mitsuba XML reader's object layer (renderer/io/mitsuba/xml.cpp, scene_objects.cpp): each
// scene object converted, in file order, into dray's native scene document.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <glm/mat4x4.hpp>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "renderer/io/mitsuba/file_resolver.h"
#include "renderer/io/mitsuba/values.h"
#include "renderer/io/json_reader.h"

namespace dray::mitsuba {

using nlohmann::json;

inline bool element(const pugi::xml_node& n) { return n.type() == pugi::node_element; }
inline std::string tag(const pugi::xml_node& n) { return n.name(); }
// A point or vector as the document holds it: components below 1e-12 of the largest are the
// residue of rotations (cos 90° = 6e-17), far below float precision, written as 0.
inline json vec(const glm::dvec3& v) {
  const double big = std::max({std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
  auto clean = [&](double x) { return std::fabs(x) < 1e-12 * big ? 0.0 : x; };
  return {clean(v.x), clean(v.y), clean(v.z)};
}
// A 4x4 matrix as 16 numbers, row by row (a mesh's transform.matrix, a grid's to_world), the
// rotation residue of each row's linear part cleaned as vec() does.
inline json matrix(const glm::dmat4& m) {
  json rows = json::array();
  for (int r = 0; r < 4; ++r) {
    const json row = vec(glm::dvec3(m[0][r], m[1][r], m[2][r]));
    rows.insert(rows.end(), row.begin(), row.end());
    rows.push_back(m[3][r]);
  }
  return rows;
}
inline glm::dvec3 apply(const glm::dmat4& m, const glm::dvec3& p, double w) { return glm::dvec3(m * glm::dvec4(p, w)); }

// A plugin's named property values, taken one by one with their type checked; what is left at
// the end is unsupported.
class Properties {
 public:
  Properties(const XmlFiles& x, const pugi::xml_node& n) : x_(x), n_(n) {}
  // Property element c's value v, under c's name (given twice: an error, as Mitsuba's).
  void set(const pugi::xml_node& c, json v) {
    const std::string key = x_.attr(c, "name");
    if (values_.contains(key)) x_.fail(c, "property \"" + key + "\" is given twice");
    values_[key] = std::move(v);
  }
  json take(const char* key, const json& fallback) {
    json v = values_.contains(key) ? values_[key] : fallback;
    values_.erase(key);
    return v;
  }
  bool flag(const char* key, bool fallback) {
    const json v = take(key, fallback);
    if (!v.is_boolean()) x_.fail(n_, std::string(key) + " must be a boolean");
    return v.get<bool>();
  }
  double number(const char* key, double fallback) {
    const json v = take(key, fallback);
    if (!v.is_number()) x_.fail(n_, std::string(key) + " must be a number");
    return v.get<double>();
  }
  glm::dvec3 point(const char* key, const glm::dvec3& fallback) {
    const json v = take(key, vec(fallback));
    if (!v.is_array() || v.size() != 3 || !v[0].is_number() || !v[1].is_number() || !v[2].is_number())
      x_.fail(n_, std::string(key) + " must be a point or vector");
    return {v[0].get<double>(), v[1].get<double>(), v[2].get<double>()};
  }
  // The properties nobody took (a plugin's own, passed to its reader), taken.
  json rest() {
    json out = std::move(values_);
    values_ = json::object();
    return out;
  }
  // Fails naming the first property nobody took.
  void finish(const std::string& what) const {
    if (!values_.empty()) x_.fail(n_, "unsupported property \"" + values_.begin().key() + "\" for " + what);
  }

 private:
  const XmlFiles& x_;
  pugi::xml_node n_;
  json values_ = json::object();
};

// The document a Mitsuba scene converts to, built object by object in file order.
class Converter {
 public:
  Converter(const std::map<std::string, std::string>& defines, std::vector<std::string>& warnings)
      : x_(defines), warnings_(warnings) {}

  json run(const std::string& path);
  // Where each object of the document came from: JSON pointer ("/materials/gold", "/shapes/3")
  // -> "file.xml:LINE:COLUMN: <element ...>".
  const std::map<std::string, std::string>& locations() const { return where_; }

 private:
  mitsuba::XmlFiles x_;
  FileResolver resolver_{"."};       // the top file's (with its <path>s), or an include's copy
  std::string top_folder_;          // the document's paths are relative to it
  std::vector<std::string> open_;   // the files being read, outermost first (include cycles)
  std::vector<std::string>& warnings_;
  std::map<std::string, pugi::xml_node> ids_;
  std::map<std::string, std::string> material_of_id_;  // a bsdf's id -> its material's name
  std::string default_material_;                        // Mitsuba's diffuse 0.5, once needed
  std::set<std::string> names_;
  json camera_, render_ = json::object(), shapes_ = json::array(), lights_ = json::array();
  json materials_ = json::object(), textures_ = json::object(), media_ = json::object();
  bool filter_seen_ = false;
  std::string integrator_at_;  // where the scene's <integrator> is, once read
  std::map<std::string, std::string> where_;
  // The key prefix mi.traverse gives a dray object where it is not the object's name (a shape's
  // inline bsdf: "teapot.bsdf"; its area emitter: "light.emitter"): the document's /mitsuba_ids,
  // read by renderer/io/mitsuba_keys.h. A Mitsuba object without an id has no stable key.
  json mitsuba_ids_ = json::object();
  std::string shape_id_;  // the Mitsuba shape being converted: its id, or empty
  void mitsuba_id(const std::string& object, const std::string& prefix) {
    if (!mitsuba_ids_.contains(object)) mitsuba_ids_[object] = prefix;
  }
  void locate(const std::string& pointer, const pugi::xml_node& n) { where_.emplace(pointer, x_.where(n)); }

  void scene(const pugi::xml_node& root);
  void add_path(const pugi::xml_node& n);  // <path value>
  void include(const pugi::xml_node& n);   // <include filename>
  void read_file(const std::string& path, const pugi::xml_node* at = nullptr);  // at: the <include> naming it

  // A file a plugin names (a mesh, a bitmap): resolved once the whole scene is read, against the
  // top file's resolver, as Mitsuba's plugins resolve theirs when they are created.
  json file_ref(const pugi::xml_node& at, const json& value) {
    if (!value.is_string() || value.get<std::string>().empty()) x_.fail(at, "a file name must be a non-empty string");
    return {{"$file", value}, {"$at", x_.where(at)}};
  }
  void resolve_files(json& j) const;

  void register_id(const pugi::xml_node& n) {
    const std::string id = x_.attr(n, "id");
    if (!ids_.emplace(id, n).second) x_.fail(n, "id \"" + id + "\" is used twice");
  }
  pugi::xml_node find(const pugi::xml_node& at, const std::string& id) {
    auto it = ids_.find(id);
    if (it == ids_.end()) x_.fail(at, "no object with id \"" + id + "\" before this reference");
    return it->second;
  }
  bool is_area_emitter(const pugi::xml_node& n) const {
    const std::string type = x_.attr(n, "type");
    return type == "area" || type == "directionalarea";
  }
  // The plugins of Mitsuba's polarized variants (issue 80): refused with the variant they need.
  void refuse_polarized(const pugi::xml_node& n, const std::string& type) const {
    for (const char* p : {"polarizer", "retarder", "circular", "pplastic", "measured_polarized", "stokes"})
      if (type == p)
        x_.fail(n, "\"" + type + "\" is a plugin of Mitsuba's polarized variants (scalar_spectral_polarized, "
                   "scalar_mono_polarized): dray renders Mitsuba's RGB variants only");
  }
  // The element kind (bsdf, emitter, texture, …) of the object a <ref> names.
  std::string referred_kind(const pugi::xml_node& ref) { return tag(find(ref, x_.attr(ref, "id"))); }
  // n itself, or the object a <ref> names (of element kind `kind`).
  pugi::xml_node resolve(const pugi::xml_node& n, const char* kind) {
    if (tag(n) != "ref") return n;
    pugi::xml_node o = find(n, x_.attr(n, "id"));
    if (tag(o) != kind) x_.fail(n, "refers to a <" + tag(o) + ">, expected a <" + kind + ">");
    return o;
  }
  // An id as a part of parameter names (materials.ID.reflectance): letters, digits, _ and -.
  static std::string safe(std::string name) {
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    return name.empty() ? "_" : name;
  }
  // A unique name for the objects dray names (shapes, lights): the id, else kind + index.
  std::string unique_name(const pugi::xml_node& n, const std::string& kind, size_t index) {
    std::string name = safe(n.attribute("id") ? x_.attr(n, "id") : kind + std::to_string(index));
    while (!names_.insert(name).second) name += "_";
    return name;
  }

  // A property element's value: numbers, colours, points, strings, inline textures, texture refs.
  json property(const pugi::xml_node& c, bool within_emitter = false);
  // Sets o[key] to property c's value; a key given twice is an error, as in Mitsuba.
  void put(json& o, const std::string& key, const pugi::xml_node& c, json v) {
    if (o.contains(key)) x_.fail(c, "property \"" + key + "\" is given twice");
    o[key] = std::move(v);
  }

  json texture(const pugi::xml_node& n);
  // A top-level texture with an id: added to /textures under it; its name.
  std::string texture_name(const pugi::xml_node& n) {
    const std::string id = safe(x_.attr(n, "id"));
    if (!textures_.contains(id)) {
      textures_[id] = texture(n);
      locate("/textures/" + id, n);
    }
    return id;
  }

  json bsdf(const pugi::xml_node& ref_or_bsdf);
  // The material of a named <bsdf> (top level or referenced): /materials under its id.
  std::string material_for(const pugi::xml_node& n) {
    const std::string id = x_.attr(n, "id");
    if (auto it = material_of_id_.find(id); it != material_of_id_.end()) return it->second;
    const std::string name = add_material(safe(id), bsdf(n), n);
    material_of_id_[id] = name;
    return name;
  }
  // Adds material m under `name`, or name_, name__, ... when taken; returns the name used.
  std::string add_material(std::string name, json m, const pugi::xml_node& at) {
    while (materials_.contains(name)) name += "_";
    if (m.value("type", "") != "null") m["one_sided"] = !holds_twosided(m);  // Mitsuba's BSDFs are one-sided
    // Mitsuba's twosided holds its one BSDF as brdf_0: its keys are "red.brdf_0.reflectance.value".
    if (m.value("type", "") == "twosided" && m.contains("bsdf") && m["bsdf"].is_object()) mitsuba_ids_["twosided:materials." + name] = true;
    materials_[name] = std::move(m);
    locate("/materials/" + name, at);
    return name;
  }

  void shape(const pugi::xml_node& n);
  void shape_objects(const pugi::xml_node& n);  // the dray shape of Mitsuba shape n, asked of its plugin
  // A <shape>'s elements other than its own properties (those go to props).
  struct ShapeElements {
    glm::dmat4 to_world{1.0};
    pugi::xml_node bsdf, emitter, sensor;  // sensor: an irradiance meter measuring over it
    json media = json::object();  // interior, exterior
  };
  ShapeElements shape_elements(const pugi::xml_node& n, Properties& props);
  // Each MitsubaPlacing's keys (shapes/mitsuba_shape.h).
  json shape_file(const pugi::xml_node& n, Properties& props, const char* why);  // its filename, required
  void mesh_file_keys(const pugi::xml_node& n, const std::string& type, Properties& props, json& s);
  glm::dmat4 cylinder_frame(const pugi::xml_node& n, Properties& props);  // the unit cylinder to p0, p1, radius
  json ball(const pugi::xml_node& n, Properties& props, const glm::dmat4& to_world, json s);
  void grid_file_keys(const pugi::xml_node& n, const ShapeElements& e, Properties& props, json& s);
  void curve_file_keys(const pugi::xml_node& n, Properties& props, json& s);
  std::string shape_group(const pugi::xml_node& n);  // a shapegroup as a dray group; its name
  void instance(const pugi::xml_node& n);
  std::map<std::string, std::string> groups_;  // shapegroup id -> dray group name

  // A square o + s u + t v, s and t in [-1, 1], facing u x v (Mitsuba's rectangle: o = 0, u = x,
  // v = y), under to_world, as a dray quad; `flip` turns it to face the other way.
  static json quad(const std::string& name, const std::string& material, const glm::dmat4& to_world, const glm::dvec3& o,
                   const glm::dvec3& u, const glm::dvec3& v, bool flip) {
    const glm::dvec3 corner = apply(to_world, o - u - v, 1.0), edge_u = apply(to_world, 2.0 * u, 0.0), edge_v = apply(to_world, 2.0 * v, 0.0);
    return {{"name", name}, {"type", "quad"}, {"corner", vec(corner)}, {"edge_u", vec(flip ? edge_v : edge_u)},
            {"edge_v", vec(flip ? edge_u : edge_v)}, {"material", material}};
  }

  // The material of a shape: its bsdf's (named by its id, or by the shape when inline), Mitsuba's
  // default (diffuse 0.5) without one; an area emitter makes a material of the shape's own.
  std::string shape_material(const std::string& shape, const pugi::xml_node& b, const pugi::xml_node& e);
  std::string inline_material(const std::string& shape, json m, const pugi::xml_node& at);

  // A <medium> (or a <ref> to one): added to /media under its id (renderer/io/mitsuba/media.cpp);
  // its name there.
  std::string medium(const pugi::xml_node& ref_or_medium);
  // A medium's <volume>; `bounded`: its sigma_t, whose box bounds a medium of volumes.
  json volume(const pugi::xml_node& n, bool bounded);
  json phase(const pugi::xml_node& n);   // a medium's <phase>

  void emitter(const pugi::xml_node& n);
  void emitter_lookat(const pugi::xml_node& n, const std::string& type, const glm::dmat4& to_world,
                      const std::optional<XmlFiles::LookAt>& lookat, json& l);
  // A <sensor> at the scene's level, or nested in the shape named `attached` (an irradiance meter).
  void sensor(const pugi::xml_node& n, const std::string& attached = "");
  json sensor_camera(const pugi::xml_node& n, const std::string& attached);  // one <sensor> as a /camera object
  glm::dmat4 origin_direction(const pugi::xml_node& n, const std::optional<glm::dvec3>& origin,
                              const std::optional<glm::dvec3>& direction);
  void aov_integrator(const pugi::xml_node& n);
  void film(const pugi::xml_node& n, int& width, int& height);  // hdrfilm: its size; its crop as render.crop
  double fov_y(const pugi::xml_node& n, double fov, std::string axis, const std::string& focal_length, int width,
               int height);
  void sampler(const pugi::xml_node& n);
  void rfilter(const pugi::xml_node& n);  // a film's rfilter: render.filter
  void integrator(const pugi::xml_node& n);
  void projective_samples(const pugi::xml_node& c, const std::string& key);
};


}  // namespace dray::mitsuba
