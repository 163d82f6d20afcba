#include "renderer/io/mitsuba/xml_writer.h"

#include <charconv>
#include <set>
#include <sstream>

#include "renderer/io/json_reader.h"
#include "renderer/io/mitsuba/values.h"
#include "renderer/io/mitsuba/writer.h"

namespace dray::mitsuba {

using nlohmann::json;

namespace {

template <class F>
std::string shortest(F v) {
  char b[32];
  const auto r = std::to_chars(b, b + sizeof b, v);
  return std::string(b, r.ptr);
}

}  // namespace

std::string num(double v) { return shortest(v); }
std::string num(float v) { return shortest(v); }

std::string nums(const json& a) {
  std::string out;
  for (const json& v : a) out += (out.empty() ? "" : ", ") + num(v.get<double>());
  return out;
}

bool is_triple(const json& v) {
  return v.is_array() && v.size() == 3 && v[0].is_number() && v[1].is_number() && v[2].is_number();
}

glm::dvec3 float_triple(const json& v) {
  return {float(v[0].get<double>()), float(v[1].get<double>()), float(v[2].get<double>())};
}

std::string write_xml(const json& doc, std::vector<std::string>& warnings) { return Writer(doc, warnings).run(); }

std::string write_xml(const json& doc, std::vector<std::string>& warnings, const Scene& scene, const std::filesystem::path& xml_file) {
  return Writer(doc, warnings, &scene, xml_file).run();
}

namespace {

// Keys whose strings are strings, never a texture's name.
const std::set<std::string> kStringKeys = {"material", "distribution", "int_ior", "ext_ior", "filename", "filter_type", "fov_axis",
                                           "wrap_mode", "format", "name", "type"};
// Keys Mitsuba reads as integers, and triples it reads as vectors (not colours).
const std::set<std::string> kIntegerKeys = {"year", "month", "day"};
const std::set<std::string> kVectorKeys = {"sun_direction"};

}  // namespace

std::string Writer::run() {
  pugi::xml_document out;
  pugi::xml_node scene = out.append_child("scene");
  scene.append_attribute("version") = "3.0.0";
  if (doc_.contains("textures")) textures_ = doc_["textures"];
  integrator(scene);
  find_inline_materials();
  for (auto it = textures_.begin(); it != textures_.end(); ++it) {
    const std::string p = "/textures/" + it.key();
    texture(scene, "", it.value(), p, texture_ids_[it.key()] = unique_id(it.key(), "texture", p));
  }
  if (doc_.contains("materials"))
    for (auto it = doc_["materials"].begin(); it != doc_["materials"].end(); ++it) {
      if (inline_materials_.count(it.key())) continue;  // inside its shapes
      const std::string p = "/materials/" + it.key();
      bsdf(scene, as_mitsuba_sided(it.value()), p, material_ids_[it.key()] = unique_id(it.key(), "bsdf", p));
    }
  if (doc_.contains("media"))
    for (auto it = doc_["media"].begin(); it != doc_["media"].end(); ++it) {
      const std::string p = "/media/" + it.key();
      medium(scene, it.value(), p, medium_ids_[it.key()] = unique_id(it.key(), "medium", p));
    }
  const json& cams = doc_["camera"];
  if (cams.is_array())
    for (size_t i = 0; i < cams.size(); ++i) sensor(scene, cams[i], "/camera/" + std::to_string(i), true);
  else
    sensor(scene, cams, "/camera", false);
  if (doc_.contains("shapes"))
    for (size_t i = 0; i < doc_["shapes"].size(); ++i) shape(scene, doc_["shapes"][i], "/shapes/" + std::to_string(i));
  if (doc_.contains("lights"))
    for (size_t i = 0; i < doc_["lights"].size(); ++i) light(scene, doc_["lights"][i], "/lights/" + std::to_string(i));
  std::ostringstream s;
  out.save(s, "  ");
  return s.str();
}

void Writer::fail(const std::string& path, const std::string& msg) const { throw LoadError(path + ": " + msg); }

void Writer::find_inline_materials() {
  if (!doc_.contains("materials")) return;
  std::map<std::string, std::vector<std::string>> users;  // material -> the shapes using it
  auto visit = [&](const json& shapes, auto& self) -> void {
    for (const json& s : shapes) {
      if (s.contains("material") && s["material"].is_string()) users[s["material"].get<std::string>()].push_back(s.value("name", ""));
      if (s.contains("shapes")) self(s["shapes"], self);
    }
  };
  if (doc_.contains("shapes")) visit(doc_["shapes"], visit);
  for (auto it = doc_["materials"].begin(); it != doc_["materials"].end(); ++it) {
    const auto u = users.find(it.key());
    const bool own = u != users.end() && u->second.size() == 1 && u->second[0] == it.key();
    if (it.value().contains("emission") || own) inline_materials_.insert(it.key());
  }
}

std::string Writer::unique_id(const std::string& name, const std::string& kind, const std::string& path) {
  std::string id = name;
  for (int k = 1; ids_.count(id); ++k) id = name + "_" + kind + (k > 1 ? std::to_string(k) : "");
  if (id != name) warnings_.push_back(path + ": id \"" + name + "\" is taken (Mitsuba's ids are one namespace): written as \"" + id + "\"");
  ids_.insert(id);
  return id;
}

void Writer::xyz(pugi::xml_node parent, const char* tag, const std::string& name, const glm::dvec3& v) {
  pugi::xml_node n = add(parent, tag, name);
  attr(n, "x", num(v.x));
  attr(n, "y", num(v.y));
  attr(n, "z", num(v.z));
}

void Writer::lookat(pugi::xml_node transform, const json& origin, const json& target, const json& up) {
  pugi::xml_node l = add(transform, "lookat");
  attr(l, "origin", nums(origin));
  attr(l, "target", nums(target));
  attr(l, "up", nums(up));
}

void Writer::value(pugi::xml_node parent, const std::string& key, const json& v, const std::string& path) {
  if (v.is_boolean()) typed(parent, "boolean", key, v.get<bool>() ? "true" : "false");
  else if (v.is_number_integer() && kIntegerKeys.count(key)) typed(parent, "integer", key, std::to_string(v.get<long>()));
  else if (v.is_number()) typed(parent, "float", key, num(v.get<double>()));
  else if (is_triple(v) && kVectorKeys.count(key)) xyz(parent, "vector", key, float_triple(v));
  else if (is_triple(v)) typed(parent, "rgb", key, nums(v));
  else if (v.is_string() && !kStringKeys.count(key) && textures_.contains(v.get<std::string>()))
    attr(add(parent, "ref", key), "id", texture_ids_.at(v.get<std::string>()));
  else if (v.is_string()) typed(parent, "string", key, v.get<std::string>());
  else if (v.is_object() && v.contains("type")) texture(parent, key, v, path);
  else fail(path, "has no Mitsuba XML form");
}

void Writer::texture(pugi::xml_node parent, const std::string& key, const json& t, const std::string& path, const std::string& id) {
  pugi::xml_node n = add(parent, "texture", key);
  const std::string type = t["type"].get<std::string>();
  attr(n, "type", type);
  if (!id.empty()) attr(n, "id", id);
  for (auto it = t.begin(); it != t.end(); ++it) {
    const std::string k = it.key(), p = path + "/" + k;
    if (k == "type") continue;
    if (type == "bitmap" && (k == "width" || k == "height" || k == "value"))
      fail(p, "a constant bitmap (width, height, value) has no Mitsuba form: give a filename");
    if (k == "to_uv") {  // uv · scale + offset: a scale, then a translation
      auto pair = [&](const char* name, double fallback) {
        if (!it.value().contains(name)) return glm::dvec3(fallback, fallback, 0.0);
        const json& v = it.value()[name];
        return v.is_number() ? glm::dvec3(v.get<double>(), v.get<double>(), 0.0) : glm::dvec3(v[0].get<double>(), v[1].get<double>(), 0.0);
      };
      pugi::xml_node tr = add(n, "transform", "to_uv");
      xyz(tr, "scale", "", pair("scale", 1.0) + glm::dvec3(0, 0, 1));
      xyz(tr, "translate", "", pair("offset", 0.0));
    } else if (type == "rawconstant" && is_triple(it.value())) {
      xyz(n, "vector", k, float_triple(it.value()));
    } else {
      value(n, k, it.value(), p);
    }
  }
}

namespace {

// Whether a material's BSDF may transmit (Mitsuba's twosided refuses those).
bool may_transmit(const json& m) {
  const std::string type = m.value("type", "");
  if (type == "dielectric" || type == "thindielectric" || type == "roughdielectric" || type == "null") return true;
  if (type == "principled") return m.contains("spec_trans");
  if (m.contains("bsdf")) {
    if (m["bsdf"].is_array()) {
      for (const json& b : m["bsdf"])
        if (may_transmit(b)) return true;
      return false;
    }
    return may_transmit(m["bsdf"]);
  }
  return false;
}

}  // namespace

json Writer::as_mitsuba_sided(const json& m) {
  // dray's reflecting surfaces shade both sides unless one_sided; Mitsuba's one: twosided says so.
  if (m.value("one_sided", false) || may_transmit(m) || holds_twosided(m)) return m;
  json out = m;
  json* at = &out;  // twosided goes inside a mask (Mitsuba's mask of a twosided leaf)
  if (at->value("type", "") == "mask") at = &(*at)["bsdf"];
  json leaf = *at;
  for (const char* key : {"emission", "two_sided", "directional", "one_sided"}) leaf.erase(key);
  json wrapped = {{"type", "twosided"}, {"bsdf", leaf}};
  for (const char* key : {"emission", "two_sided", "directional"})
    if (at->contains(key)) wrapped[key] = (*at)[key];
  *at = wrapped;
  return out;
}

void Writer::bsdf(pugi::xml_node parent, const json& m, const std::string& path, const std::string& id) {
  pugi::xml_node n = add(parent, "bsdf");
  std::string type = m["type"].get<std::string>();
  attr(n, "type", type == "mirror" ? "conductor" : type);  // dray's mirror: a conductor of material none
  if (!id.empty()) attr(n, "id", id);
  if (type == "mirror") typed(n, "string", "material", "none");
  for (auto it = m.begin(); it != m.end(); ++it) {
    std::string k = it.key();
    const std::string p = path + "/" + k;
    if (k == "type" || k == "emission" || k == "two_sided" || k == "directional") continue;  // a shape's emitter
    if (k == "one_sided") continue;  // Mitsuba's BSDFs are one-sided already
    if (k == "bsdf") {
      if (it.value().is_array())
        for (size_t i = 0; i < it.value().size(); ++i) bsdf(n, it.value()[i], p + "/" + std::to_string(i));
      else
        bsdf(n, it.value(), p);
      continue;
    }
    if (k == "albedo") k = "reflectance";  // dray's aliases
    if (k == "tint") k = "specular_reflectance";
    value(n, k, it.value(), p);
  }
}

void Writer::medium(pugi::xml_node scene, const json& m, const std::string& path, const std::string& id) {
  pugi::xml_node n = add(scene, "medium");
  attr(n, "type", m["type"].get<std::string>());
  attr(n, "id", id);
  for (auto it = m.begin(); it != m.end(); ++it) {
    const std::string k = it.key(), p = path + "/" + k;
    const json& v = it.value();
    if (k == "type") continue;
    if (k == "phase") {
      phase(n, v, p, "");
    } else if (v.is_object()) {  // a volume: a grid (its file, under to_world) or a constant
      pugi::xml_node vol = add(n, "volume", k);
      attr(vol, "type", v["type"].get<std::string>());
      if (v.contains("filename")) typed(vol, "string", "filename", v["filename"].get<std::string>());
      if (v.contains("to_world")) typed(add(vol, "transform", "to_world"), "matrix", "", nums(v["to_world"]));
      if (v.contains("value")) value(vol, "value", v["value"], p + "/value");
    } else {
      value(n, k, v, p);
    }
  }
}

// A phase function with its keys as they are (Mitsuba's), the phase functions nested in one as phase_0
// and phase_1.
void Writer::phase(pugi::xml_node parent, const json& ph, const std::string& path, const std::string& name) {
  pugi::xml_node n = add(parent, "phase", name);
  attr(n, "type", ph["type"].get<std::string>());
  for (auto it = ph.begin(); it != ph.end(); ++it) {
    const std::string k = it.key(), p = path + "/" + k;
    if (k == "type") continue;
    if (k == "phase" && it.value().is_array()) {
      for (size_t i = 0; i < it.value().size(); ++i)
        phase(n, it.value()[i], p + "/" + std::to_string(i), "phase_" + std::to_string(i));
    } else if (it.value().is_string()) {
      typed(n, "string", k, it.value().get<std::string>());
    } else if (it.value().is_array()) {  // a table of numbers (a phase function has no colours): Mitsuba takes it as a string
      std::string list;
      for (const json& x : it.value()) list += (list.empty() ? "" : ", ") + num(x.get<double>());
      typed(n, "string", k, list);
    } else {
      value(n, k, it.value(), p);
    }
  }
}

void Writer::medium_ref(pugi::xml_node parent, const std::string& side, const json& name, const std::string& path) {
  if (!name.is_string() || !medium_ids_.count(name.get<std::string>())) fail(path, "names no medium of /media");
  attr(add(parent, "ref", side), "id", medium_ids_.at(name.get<std::string>()));
}

void Writer::transform(pugi::xml_node parent, const json& t, const std::string& path) {
  for (auto it = t.begin(); it != t.end(); ++it)
    if (it.key() != "matrix" && it.key() != "scale" && it.key() != "translate" && it.key().rfind("rotate_", 0) != 0)
      fail(path + "/" + it.key(), "has no Mitsuba XML form");
  pugi::xml_node n = add(parent, "transform", "to_world");
  if (t.contains("matrix")) typed(n, "matrix", "", nums(t["matrix"]));
  if (t.contains("scale")) {
    const double s = t["scale"].get<double>();
    xyz(n, "scale", "", {s, s, s});
  }
  for (const char* axis : {"x", "y", "z"})
    if (t.contains(std::string("rotate_") + axis)) {
      pugi::xml_node r = add(n, "rotate");
      attr(r, axis, "1");
      attr(r, "angle", num(t[std::string("rotate_") + axis].get<double>()));
    }
  if (t.contains("translate")) xyz(n, "translate", "", float_triple(t["translate"]));
}

}  // namespace dray::mitsuba
