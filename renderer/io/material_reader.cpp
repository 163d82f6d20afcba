#include "renderer/io/material_reader.h"

#include <algorithm>

#include "renderer/bsdfs/ior.h"

namespace dray {

using nlohmann::json;

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

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
  const Slot s = scene_.params.add(prefix + key, c);
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

ScalarInput MaterialReader::scalar_or_texture(const json& m, const std::string& p, const std::string& prefix,
                                              const std::string& key, float fallback) {
  if (m.contains(key) && (m[key].is_string() || m[key].is_object())) {
    ScalarInput in;
    in.texture = texture_input(m[key], p + "/" + key, prefix, key);
    return in;
  }
  return scalar(m, p, prefix, key, fallback);
}

Slot MaterialReader::scalar(const json& m, const std::string& p, const std::string& prefix, const std::string& key,
                            float fallback) {
  return scene_.params.add(prefix + key, m.contains(key) ? rd_.positive(m[key], p + "/" + key) : fallback);
}

// An index of refraction: a number or Mitsuba's name of a dielectric.
float MaterialReader::ior(const json& m, const std::string& p, const std::string& key, const char* fallback) {
  const std::string path = p + "/" + key;
  if (m.contains(key) && m[key].is_number()) return rd_.positive(m[key], path);
  const std::string name = m.contains(key) ? rd_.string(m[key], path) : fallback;
  const auto v = dielectric_ior(name);
  if (!v) rd_.fail(path, "unknown index of refraction \"" + name + "\" (a number, or one of: " + join(dielectric_ior_names()) + ")");
  return *v;
}

void MaterialReader::roughness(const json& m, const std::string& p, const std::string& prefix, MicrofacetType& type,
                               ScalarInput& alpha_u, ScalarInput& alpha_v, bool textured) {
  const std::string d = m.contains("distribution") ? rd_.string(m["distribution"], p + "/distribution") : "beckmann";
  if (d != "beckmann" && d != "ggx") rd_.fail(p + "/distribution", "must be \"beckmann\" or \"ggx\", got \"" + d + "\"");
  type = d == "ggx" ? MicrofacetType::ggx : MicrofacetType::beckmann;
  // dray always samples visible normals; Mitsuba's switch is accepted for its scenes.
  if (m.contains("sample_visible")) rd_.boolean(m["sample_visible"], p + "/sample_visible");
  const bool aniso = m.contains("alpha_u") || m.contains("alpha_v");
  if (aniso) {
    if (m.contains("alpha")) rd_.fail(p + "/alpha", "give either alpha or alpha_u and alpha_v, not both");
    if (!m.contains("alpha_u") || !m.contains("alpha_v"))
      rd_.fail(p + (m.contains("alpha_u") ? "/alpha_v" : "/alpha_u"), "required with " + std::string(m.contains("alpha_u") ? "alpha_u" : "alpha_v"));
    alpha_u = textured ? scalar_or_texture(m, p, prefix, "alpha_u", 0.1f) : scalar(m, p, prefix, "alpha_u", 0.1f);
    alpha_v = textured ? scalar_or_texture(m, p, prefix, "alpha_v", 0.1f) : scalar(m, p, prefix, "alpha_v", 0.1f);
  } else {
    alpha_u = alpha_v = textured ? scalar_or_texture(m, p, prefix, "alpha", 0.1f) : scalar(m, p, prefix, "alpha", 0.1f);
  }
}

// A conductor's complex index: `material` (Mitsuba's names; default "none", a perfect mirror) or
// `eta` and `k` (RGB or one number).
void MaterialReader::conductor_index(const json& m, const std::string& p, const std::string& prefix, ColourInput& eta, ColourInput& k) {
  if (m.contains("material") && (m.contains("eta") || m.contains("k")))
    rd_.fail(p + "/material", "give either material or eta and k, not both");
  if (m.contains("eta") != m.contains("k")) rd_.fail(p + (m.contains("eta") ? "/k" : "/eta"), "required with " + std::string(m.contains("eta") ? "eta" : "k"));
  glm::vec3 e(0.f), kk(1.f);
  if (m.contains("eta")) {
    e = rd_.colour(m["eta"], p + "/eta");
    kk = rd_.colour(m["k"], p + "/k");
  } else {
    const std::string name = m.contains("material") ? rd_.string(m["material"], p + "/material") : "none";
    const auto v = conductor_ior(name);
    if (!v) rd_.fail(p + "/material", "unknown conductor \"" + name + "\" (one of: " + join(conductor_ior_names()) + ")");
    e = v->eta;
    kk = v->k;
  }
  eta = scene_.params.add(prefix + "eta", e);
  k = scene_.params.add(prefix + "k", kk);
}

uint32_t MaterialReader::bsdf(const json& m, const std::string& p, const std::string& prefix,
                              const std::vector<std::string>& extra) {
  if (!m.is_object() || !m.contains("type")) rd_.fail(p + "/type", "required key is missing");
  const std::string type = rd_.string(m["type"], p + "/type");
  if (type == "diffuse") {
    rd_.object(m, p, with({"type", "reflectance", "albedo"}, extra));
    return push(DiffuseBsdf{colour(m, p, prefix, "reflectance", glm::vec3(0.5f), "albedo", true)});
  }
  if (type == "mirror") {
    rd_.object(m, p, with({"type", "specular_reflectance", "tint"}, extra));
    ConductorBsdf b;
    b.specular_reflectance = colour(m, p, prefix, "specular_reflectance", glm::vec3(1.f), "tint");
    return push(b);
  }
  if (type == "conductor") {
    rd_.object(m, p, with({"type", "material", "eta", "k", "specular_reflectance"}, extra));
    ConductorBsdf b;
    conductor_index(m, p, prefix, b.eta, b.k);
    b.specular_reflectance = colour(m, p, prefix, "specular_reflectance", glm::vec3(1.f));
    return push(b);
  }
  if (type == "roughconductor") {
    rd_.object(m, p, with({"type", "material", "eta", "k", "specular_reflectance", "distribution", "alpha", "alpha_u",
                           "alpha_v", "sample_visible"}, extra));
    RoughConductorBsdf b;
    roughness(m, p, prefix, b.distribution, b.alpha_u, b.alpha_v);
    conductor_index(m, p, prefix, b.eta, b.k);
    b.specular_reflectance = colour(m, p, prefix, "specular_reflectance", glm::vec3(1.f));
    return push(b);
  }
  if (type == "dielectric" || type == "thindielectric") {
    rd_.object(m, p, with({"type", "int_ior", "ext_ior", "specular_reflectance", "specular_transmittance"}, extra));
    auto read = [&](auto b) {
      b.int_ior = scene_.params.add(prefix + "int_ior", ior(m, p, "int_ior", "bk7"));
      b.ext_ior = scene_.params.add(prefix + "ext_ior", ior(m, p, "ext_ior", "air"));
      b.specular_reflectance = colour(m, p, prefix, "specular_reflectance", glm::vec3(1.f));
      b.specular_transmittance = colour(m, p, prefix, "specular_transmittance", glm::vec3(1.f));
      return push(b);
    };
    return type == "dielectric" ? read(DielectricBsdf{}) : read(ThinDielectricBsdf{});
  }
  if (type == "roughdielectric") {
    rd_.object(m, p, with({"type", "int_ior", "ext_ior", "specular_reflectance", "specular_transmittance", "distribution",
                           "alpha", "alpha_u", "alpha_v", "sample_visible"}, extra));
    RoughDielectricBsdf b;
    roughness(m, p, prefix, b.distribution, b.alpha_u, b.alpha_v);
    b.int_ior = scene_.params.add(prefix + "int_ior", ior(m, p, "int_ior", "bk7"));
    b.ext_ior = scene_.params.add(prefix + "ext_ior", ior(m, p, "ext_ior", "air"));
    b.specular_reflectance = colour(m, p, prefix, "specular_reflectance", glm::vec3(1.f));
    b.specular_transmittance = colour(m, p, prefix, "specular_transmittance", glm::vec3(1.f));
    return push(b);
  }
  if (type == "plastic" || type == "roughplastic") {
    const bool rough = type == "roughplastic";
    std::vector<std::string> keys = {"type", "int_ior", "ext_ior", "diffuse_reflectance", "specular_reflectance", "nonlinear"};
    if (rough) keys.insert(keys.end(), {"distribution", "alpha", "sample_visible"});
    rd_.object(m, p, with(keys, extra));
    PlasticBsdf b;
    b.int_ior = scene_.params.add(prefix + "int_ior", ior(m, p, "int_ior", "polypropylene"));
    b.ext_ior = scene_.params.add(prefix + "ext_ior", ior(m, p, "ext_ior", "air"));
    b.diffuse_reflectance = colour(m, p, prefix, "diffuse_reflectance", glm::vec3(0.5f), nullptr, true);
    b.specular_reflectance = colour(m, p, prefix, "specular_reflectance", glm::vec3(1.f));
    b.nonlinear = m.contains("nonlinear") && rd_.boolean(m["nonlinear"], p + "/nonlinear");
    if (!rough) return push(b);
    RoughPlasticBsdf r;
    r.base = b;
    ScalarInput alpha_u, alpha_v;  // a number: the coating's table is built for it (Mitsuba's roughplastic too)
    roughness(m, p, prefix, r.distribution, alpha_u, alpha_v, false);
    r.alpha = alpha_u.slot;
    if (scene_.params.get(b.int_ior) == scene_.params.get(b.ext_ior))
      rd_.fail(p + "/int_ior", "must differ from ext_ior (a coating that does not refract has no transmittance table)");
    refresh_coating(r, scene_.params);
    return push(r);
  }
  if (type == "principled" || type == "principledthin") return principled(m, p, prefix, type, extra);
  if (type == "blendbsdf") {
    // Mitsuba's names for the two: materials.X.bsdf_0.KEY and materials.X.bsdf_1.KEY.
    rd_.object(m, p, with({"type", "weight", "bsdf"}, extra), {"weight", "bsdf"});
    if (!m["bsdf"].is_array() || m["bsdf"].size() != 2) rd_.fail(p + "/bsdf", "must be an array of two BSDF objects");
    BlendBsdf b;
    b.weight = bounded(m, p, prefix, "weight", 0.5f);
    b.a = BsdfBox(scene_.bsdfs[bsdf(m["bsdf"][0], p + "/bsdf/0", prefix + "bsdf_0.", {})]);
    b.b = BsdfBox(scene_.bsdfs[bsdf(m["bsdf"][1], p + "/bsdf/1", prefix + "bsdf_1.", {})]);
    return push(b);
  }
  rd_.fail(p + "/type", "unknown material type \"" + type +
                            "\" (expected diffuse, conductor, roughconductor, dielectric, thindielectric, roughdielectric, plastic, roughplastic, "
                            "principled, principledthin, blendbsdf, null, mirror; wrappers twosided, mask, normalmap, bumpmap)");
}

// A mask's opacity: a number in (0, 1] (a parameter), or a texture whose luminance is the opacity
// (Mitsuba's bitmap opacity).
void MaterialReader::mask_opacity(const json& m, const std::string& p, const std::string& prefix, Material& mat) {
  if (m.contains("opacity") && (m["opacity"].is_string() || m["opacity"].is_object())) {
    mat.opacity_texture = colour(m, p, prefix, "opacity", glm::vec3(0.f)).texture;
  } else {
    const float opacity = m.contains("opacity") ? float(rd_.number(m["opacity"], p + "/opacity")) : 0.5f;
    if (!(opacity > 0.f && opacity <= 1.f)) rd_.fail(p + "/opacity", "must be in (0, 1], got " + fmt_number(opacity));
    mat.opacity = scene_.params.add(prefix + "opacity", opacity);
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
  const std::vector<std::string> common = {"emission", "two_sided"};
  Material mat;
  mat.name = name;
  if (type == "null") {
    // Mitsuba's `null`: no surface to light; dray's mask of opacity 0 (paths and shadow rays pass).
    rd_.object(m, p, {"type"});
    mat.front = mat.back = push(DiffuseBsdf{scene_.params.add(prefix + "reflectance", glm::vec3(0.f))});
    mat.opacity = scene_.params.add(prefix + "opacity", 0.f);
    scene_.has_masks = true;
    scene_.materials.push_back(mat);
    return uint32_t(scene_.materials.size() - 1);
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
  // A material that declares emission is a light even at zero, so that an optimization can start
  // a light from dark. Emission leaves the front side only (as Mitsuba's area emitter), both with
  // two_sided.
  if (m.contains("emission")) {
    mat.emission = scene_.params.add(prefix + "emission", rd_.colour(m["emission"], p + "/emission"));
    mat.emissive = true;
  }
  if (m.contains("two_sided")) {
    if (!m.contains("emission")) rd_.fail(p + "/two_sided", "applies to emission: give \"emission\" too");
    mat.two_sided = rd_.boolean(m["two_sided"], p + "/two_sided");
  }
  scene_.materials.push_back(mat);
  return uint32_t(scene_.materials.size() - 1);
}

uint32_t MaterialReader::add_diffuse(const std::string& name, const glm::vec3& reflectance, const glm::vec3* emission) {
  const std::string prefix = "materials." + name + ".";
  Material mat;
  mat.name = name;
  mat.front = mat.back = push(DiffuseBsdf{scene_.params.add(prefix + "reflectance", reflectance)});
  scene_.params.alias(prefix + "albedo", prefix + "reflectance");
  if (emission) {
    mat.emission = scene_.params.add(prefix + "emission", *emission);
    mat.emissive = emission->x > 0.f || emission->y > 0.f || emission->z > 0.f;
  }
  scene_.materials.push_back(mat);
  return uint32_t(scene_.materials.size() - 1);
}

}  // namespace dray
