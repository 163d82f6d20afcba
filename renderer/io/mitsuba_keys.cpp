// Mitsuba's traverse() keys, plugin by plugin (src/bsdfs, src/emitters, src/render/mesh.cpp,
// src/media, src/volumes of mitsuba3): a texture slot adds `.value` (a constant) or `.data` (a
// bitmap, a grid), a plain Float does not.
#include "renderer/io/mitsuba_keys.h"

#include <set>

namespace dray {
namespace {

using nlohmann::json;

std::string prefix_of(const json& ids, const std::string& object, const std::string& fallback) {
  const auto it = ids.find(object);
  return it != ids.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// A material's key: texture slots end in `.value`; roughplastic's and the rough dielectrics' alpha
// and eta, and principled's specular, are plain Floats in Mitsuba, so both spellings are given.
std::vector<std::string> material_keys(const std::string& prefix, const std::string& key) {
  static const std::set<std::string> slots = {
      "reflectance", "diffuse_reflectance", "specular_reflectance", "specular_transmittance", "alpha", "alpha_u", "alpha_v",
      "eta", "k", "base_color", "roughness", "metallic", "specular", "spec_tint", "sheen", "sheen_tint", "clearcoat",
      "clearcoat_gloss", "spec_trans", "anisotropic", "flatness", "weight", "opacity"};
  static const std::set<std::string> plain = {"alpha", "eta", "specular"};
  if (prefix.empty() || !slots.count(key)) return {};
  std::vector<std::string> keys = {prefix + "." + key + ".value"};
  if (plain.count(key)) keys.push_back(prefix + "." + key);
  return keys;
}

// An object's key prefix; a material's one BSDF inside Mitsuba's twosided is its brdf_0.
std::string material_prefix(const json& ids, const std::string& path, const std::string& object) {
  const std::string prefix = prefix_of(ids, path, object);
  return ids.contains("twosided:" + path) ? prefix + ".brdf_0" : prefix;
}

std::vector<std::string> light_keys(const std::string& prefix, const std::string& key) {
  static const std::set<std::string> textured = {"intensity", "radiance", "irradiance"};
  if (textured.count(key)) return {prefix + "." + key + ".value"};
  return {prefix + "." + key};  // position, scale, cutoff_angle, beam_width, data
}

}  // namespace

std::vector<std::string> mitsuba_keys(const ParamEntry& entry, const json& ids) {
  const std::string& name = entry.name;
  const size_t first = name.find('.');
  if (first == std::string::npos) return {};
  const std::string kind = name.substr(0, first);
  if (kind == "camera") {
    const std::string key = name.substr(first + 1);
    if (key == "near_clip" || key == "far_clip") return {prefix_of(ids, "camera", "sensor") + "." + key};
    return {};
  }
  const size_t second = name.find('.', first + 1);
  if (second == std::string::npos) return {};
  const std::string object = name.substr(first + 1, second - first - 1), key = name.substr(second + 1);
  const std::string path = kind + "." + object, prefix = material_prefix(ids, path, object);
  if (kind == "textures" && key.size() > 5 && key.compare(key.size() - 5, 5, ".data") == 0)  // a material's own: MATERIAL.SLOT
    return {material_prefix(ids, "materials." + object, object) + "." + key};
  if (kind == "materials") {
    if (key != "emission") return material_keys(prefix, key);
    const auto emitter = ids.find("emission:" + path);  // the shape whose area emitter it is
    if (emitter == ids.end()) return {};
    return {emitter->get<std::string>() + ".radiance.value"};
  }
  if (kind == "shapes") {
    if (key == "vertices") return {prefix + ".vertex_positions", prefix + ".positions"};
    if (key == "normals") return {prefix + ".vertex_normals", prefix + ".normals"};
    return {};
  }
  if (kind == "lights") return light_keys(prefix, key);
  if (kind == "textures" && key == "data") return {prefix + ".data"};
  if (kind == "media") {
    if (key == "sigma_t" || key == "albedo") return {prefix + "." + key + (entry.block() ? ".data" : ".value.value")};
    if (key == "scale") return {prefix + ".scale"};
    if (key.rfind("phase.", 0) == 0) return {prefix + ".phase_function." + key.substr(6)};  // g, weight, values, phase_0.g
  }
  return {};
}

void add_mitsuba_aliases(ParamTable& table, const json& ids, const std::set<std::string>& with_uvs) {
  const std::vector<ParamEntry> entries = table.entries();  // alias() leaves entries alone; a copy all the same
  for (const ParamEntry& e : entries) {
    for (const std::string& key : mitsuba_keys(e, ids))
      if (!table.find(key)) table.mitsuba_alias(key, e.name);
    // A mesh's faces: a scene value, not a parameter (Python reads it as Mitsuba's `faces`).
    if (e.name.rfind("shapes.", 0) == 0 && e.name.size() > 9 && e.name.compare(e.name.size() - 9, 9, ".vertices") == 0) {
      const std::string shape = e.name.substr(7, e.name.size() - 16);
      table.mitsuba_alias(prefix_of(ids, "shapes." + shape, shape) + ".faces", "shapes." + shape + ".faces");
      if (with_uvs.count(shape))
        for (const char* key : {".texcoords", ".vertex_texcoords"})
          table.mitsuba_alias(prefix_of(ids, "shapes." + shape, shape) + key, "shapes." + shape + ".texcoords");
    }
  }
  // The first camera's clip planes: scene values too (Mitsuba's are not differentiable either).
  const std::string sensor = prefix_of(ids, "camera", "sensor");
  for (const char* key : {"near_clip", "far_clip"})
    if (!table.find(std::string("camera.") + key)) table.mitsuba_alias(sensor + "." + key, std::string("camera.") + key);
  // Its to_world and horizontal field of view: values made of camera.origin, target, up and
  // fov_y, which Python reads and sets through them (python/dray/params.py).
  if (table.find("camera.origin")) table.mitsuba_alias(sensor + ".to_world", "camera.to_world");
  if (table.find("camera.fov_y")) table.mitsuba_alias(sensor + ".x_fov", "camera.x_fov");
}

}  // namespace dray
