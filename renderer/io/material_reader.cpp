#include "renderer/io/material_reader.h"

#include <algorithm>

#include "renderer/core/registry.h"
#include "renderer/io/json_props.h"

namespace dray {

using nlohmann::json;

namespace {

std::vector<std::string> with(std::vector<std::string> keys, const std::vector<std::string>& extra) {
  keys.insert(keys.end(), extra.begin(), extra.end());
  return keys;
}

}  // namespace

uint32_t MaterialReader::push(const Bsdf& b) {
  scene_.bsdfs.push_back(b);
  return uint32_t(scene_.bsdfs.size() - 1);
}

ColourInput MaterialReader::colour(const json& m, const std::string& p, const std::string& prefix, const std::string& key,
                                   const glm::vec3& fallback, const char* alias, bool at_most_one) {
  std::string given = key;
  if (alias && m.contains(alias)) {
    if (m.contains(key)) rd_.fail(p + "/" + alias, "is another name for \"" + key + "\": give one of them");
    given = alias;
  }
  if (m.contains(given) && (m[given].is_string() || m[given].is_object())) {
    ColourInput in;
    in.texture = texture_input(m[given], p + "/" + given, prefix, given);
    return in;
  }
  const glm::vec3 c = m.contains(given) ? rd_.colour(m[given], p + "/" + given) : fallback;
  if (at_most_one)
    for (int i = 0; i < 3; ++i)
      if (c[i] > 1.f) rd_.fail(p + "/" + given, "must be <= 1, got " + fmt_number(c[i]));
  const Slot s = scene_.params.add(prefix + key, c, at_most_one ? Domain::closed(0, 1) : Domain::at_least(0));
  if (alias) scene_.params.alias(prefix + alias, prefix + key);
  return s;
}

int MaterialReader::texture_input(const json& v, const std::string& path, const std::string& prefix, const std::string& key) {
  if (!textures_) rd_.fail(path, "must be a value here, not a texture");
  if (v.is_object() && !v.contains("type"))
    rd_.fail(path, "must be a number, an array of 3 numbers, or a texture (the name of one, or an object with a \"type\")");
  // An inline texture is named after the material and key: textures.MATERIAL.KEY.data.
  return textures_->input(v, path, prefix.substr(10) + key);
}

// A BSDF's keys as it reads them (bsdfs/bsdf_props.h): the JSON object at path p, parameters named
// prefix + key, the material-level keys `extra` allowed besides the BSDF's own.
class JsonBsdfProps final : public JsonProps<BsdfProps> {
 public:
  JsonBsdfProps(MaterialReader& r, const json& m, std::string p, std::string prefix, std::vector<std::string> extra,
                std::string type)
      : JsonProps(r.rd_, r.scene_.params, m, std::move(p), std::move(prefix), std::move(extra), std::move(type)), r_(r) {}
  bool is_texture(const std::string& key) const override { return has(key) && (m_[key].is_string() || m_[key].is_object()); }
  int texture(const std::string& key) override { return r_.texture_input(m_[key], path(key), prefix_, key); }
  ColourInput colour(const std::string& key, const glm::vec3& fallback, const char* alias, bool at_most_one) override {
    return r_.colour(m_, p_, prefix_, key, fallback, alias, at_most_one);
  }
  BsdfBox nested(const std::string& key, int index, const std::string& name) override {
    const std::string at = path(key) + "/" + std::to_string(index);
    return BsdfBox(r_.scene_.bsdfs[r_.bsdf(m_[key][index], at, prefix_ + name + ".", {})]);
  }

 private:
  MaterialReader& r_;
};

// A BSDF object, read by its plugin in the registry (the Bsdf variant's list, bsdfs/bsdf.h).
uint32_t MaterialReader::bsdf(const json& m, const std::string& p, const std::string& prefix,
                              const std::vector<std::string>& extra) {
  if (!m.is_object() || !m.contains("type")) rd_.fail(p + "/type", "required key is missing");
  const std::string type = rd_.string(m["type"], p + "/type");
  const auto read = plugin_reader<Bsdf, BsdfProps>(type);
  if (!read)
    rd_.fail(p + "/type", "unknown material type \"" + type + "\" (expected " + plugin_names<Bsdf>() +
                              ", null; wrappers twosided, mask, normalmap, bumpmap)");
  JsonBsdfProps props(*this, m, p, prefix, extra, type);
  return push(read(props));
}

// A mask's opacity: a number in (0, 1] (a parameter), or a texture whose luminance is the opacity
// (Mitsuba's bitmap opacity).
void MaterialReader::mask_opacity(const json& m, const std::string& p, const std::string& prefix, Material& mat) {
  if (m.contains("opacity") && (m["opacity"].is_string() || m["opacity"].is_object())) {
    mat.opacity_texture = colour(m, p, prefix, "opacity", glm::vec3(0.f)).texture;
  } else {
    const float opacity = m.contains("opacity") ? float(rd_.number(m["opacity"], p + "/opacity")) : 0.5f;
    if (!(opacity > 0.f && opacity <= 1.f)) rd_.fail(p + "/opacity", "must be in (0, 1], got " + fmt_number(opacity));
    mat.opacity = scene_.params.add(prefix + "opacity", opacity, Domain::left_open(0, 1));
  }
  scene_.has_masks = true;
}

// Mitsuba's `normalmap` (`normalmap`: a texture, raw RGB as 0.5 (n + 1) in the shading frame) or
// `bumpmap` (`texture`: a height, its luminance times `scale`); both take flip_invalid_normals
// and use_shadowing_function. The texture's texels are parameters (textures.MATERIAL.KEY.data
// when inline).
void MaterialReader::perturbation(const json& m, const std::string& p, const std::string& prefix, const std::string& type,
                                  std::vector<std::string> extra, Material& mat) {
  const bool normal = type == "normalmap";
  const char* key = normal ? "normalmap" : "texture";
  if (!normal) extra.push_back("scale");
  rd_.object(m, p, with({"type", "bsdf", key, "flip_invalid_normals", "use_shadowing_function"}, extra), {"bsdf", key});
  const int tex = texture_input(m[key], p + "/" + key, prefix, key);
  (normal ? mat.normal_map : mat.bump_map) = tex;
  if (m.contains("scale")) mat.bump_scale = float(rd_.number(m["scale"], p + "/scale"));
  if (m.contains("flip_invalid_normals")) mat.flip_invalid_normals = rd_.boolean(m["flip_invalid_normals"], p + "/flip_invalid_normals");
  if (m.contains("use_shadowing_function")) mat.shadowing = rd_.boolean(m["use_shadowing_function"], p + "/use_shadowing_function");
}

uint32_t MaterialReader::read(const std::string& name, const json& m, const std::string& p) {
  if (!m.is_object() || !m.contains("type")) rd_.fail(p + "/type", "required key is missing");
  const std::string type = rd_.string(m["type"], p + "/type");
  const std::string prefix = "materials." + name + ".";
  const std::vector<std::string> common = {"emission", "two_sided", "directional", "one_sided"};
  Material mat;
  mat.name = name;
  if (type == "null") {
    // Mitsuba's `null`: no surface to light; dray's mask of opacity 0 (paths and shadow rays pass).
    // An emitting null surface (Mitsuba's light with a null bsdf) emits and lets paths through.
    rd_.object(m, p, {"type", "emission", "two_sided", "directional"});
    mat.front = mat.back = push(DiffuseBsdf{scene_.params.add(prefix + "reflectance", glm::vec3(0.f), Domain::closed(0, 0))});
    mat.opacity = scene_.params.add(prefix + "opacity", 0.f, Domain::closed(0, 0));
    scene_.has_masks = true;
    return finish(mat, m, p, prefix);
  }
  // Wrappers, outermost first: `mask`, then `normalmap` or `bumpmap` and `twosided` (either
  // order), each at most once. The nested BSDF's parameters keep the material's names
  // (materials.X.reflectance); Mitsuba's two-BSDF twosided names them brdf_0 (front), brdf_1 (back).
  const json* cur = &m;
  std::string cp = p;
  bool mask = false, sided = false, perturbed = false;
  for (;;) {
    const std::string t = cur == &m ? type : rd_.string((*cur)["type"], cp + "/type");
    const std::vector<std::string> extra = cur == &m ? common : std::vector<std::string>{};
    if (t == "mask" && cur == &m) {
      rd_.object(*cur, cp, with({"type", "bsdf", "opacity"}, extra), {"bsdf"});
      mask_opacity(*cur, cp, prefix, mat);
      mask = true;
    } else if ((t == "normalmap" || t == "bumpmap") && !perturbed) {
      perturbation(*cur, cp, prefix, t, extra, mat);
      perturbed = true;
    } else if (t == "twosided" && !sided) {
      rd_.object(*cur, cp, with({"type", "bsdf"}, extra), {"bsdf"});
      sided = true;
    } else {
      break;
    }
    cur = &(*cur)["bsdf"];
    cp += "/bsdf";
    if (!cur->is_object() || !cur->contains("type")) break;  // an array (twosided's two), or bsdf() reports it
  }
  if (cur == &m) {
    mat.front = mat.back = bsdf(m, p, prefix, common);
  } else if (sided && cur->is_array()) {
    if (cur->size() != 2) rd_.fail(cp, "must be one BSDF object or an array of two (front, back)");
    mat.front = bsdf((*cur)[0], cp + "/0", prefix + "brdf_0.", {});
    mat.back = bsdf((*cur)[1], cp + "/1", prefix + "brdf_1.", {});
  } else {
    mat.front = mat.back = bsdf(*cur, cp, prefix, {});
  }
  for (uint32_t b : {mat.front, mat.back})
    if (sided && (bsdf_flags(scene_.bsdfs[b]) & kLobeTransmission))
      rd_.fail(cp + "/type", "twosided wraps reflecting materials only, not a transmitting one");
  if (mask && !sided) mat.back = mat.front;
  // One-sided (Mitsuba's reflecting BSDFs): black from the back; a twosided inside has two sides.
  if (m.contains("one_sided")) mat.one_sided = rd_.boolean(m["one_sided"], p + "/one_sided") && !sided;
  return finish(mat, m, p, prefix);
}

uint32_t MaterialReader::finish(Material& mat, const json& m, const std::string& p, const std::string& prefix) {
  // A material that declares emission is a light even at zero, so that an optimization can start
  // a light from dark. Emission leaves the front side only (as Mitsuba's area emitter), both with
  // two_sided.
  if (m.contains("emission")) {
    mat.emission = colour(m, p, prefix, "emission", glm::vec3(0.f), nullptr, false);
    mat.emissive = true;
  }
  if (m.contains("two_sided")) {
    if (!m.contains("emission")) rd_.fail(p + "/two_sided", "applies to emission: give \"emission\" too");
    mat.two_sided = rd_.boolean(m["two_sided"], p + "/two_sided");
  }
  if (m.contains("directional")) {
    if (!m.contains("emission")) rd_.fail(p + "/directional", "applies to emission: give \"emission\" too");
    mat.directional = rd_.boolean(m["directional"], p + "/directional");
    if (mat.directional && mat.two_sided) rd_.fail(p + "/directional", "a directional emitter leaves its front side only: not two_sided");
  }
  scene_.materials.push_back(mat);
  return uint32_t(scene_.materials.size() - 1);
}

uint32_t MaterialReader::add_diffuse(const std::string& name, const glm::vec3& reflectance, const glm::vec3* emission) {
  const std::string prefix = "materials." + name + ".";
  Material mat;
  mat.name = name;
  mat.front = mat.back = push(DiffuseBsdf{scene_.params.add(prefix + "reflectance", reflectance, Domain::closed(0, 1))});
  scene_.params.alias(prefix + "albedo", prefix + "reflectance");
  if (emission) {
    mat.emission = scene_.params.add(prefix + "emission", *emission, Domain::at_least(0));
    mat.emissive = emission->x > 0.f || emission->y > 0.f || emission->z > 0.f;
  }
  scene_.materials.push_back(mat);
  return uint32_t(scene_.materials.size() - 1);
}

}  // namespace dray
