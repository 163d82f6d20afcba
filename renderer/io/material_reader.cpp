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
    const std::string path = p + "/" + given;
    if (!textures_) rd_.fail(path, "must be a colour here, not a texture");
    ColourInput in;
    if (m[given].is_object() && !m[given].contains("type"))
      rd_.fail(path, "must be an array of 3 numbers, one number, or a texture (the name of one, or an object with a \"type\")");
    if (m[given].is_object()) {
      // An inline texture, named after the material and key: textures.MATERIAL.KEY.data.
      in.texture = textures_->read(prefix.substr(10) + given, m[given], path);
    } else {
      in.texture = textures_->find(m[given].get<std::string>());
      if (in.texture < 0)
        rd_.fail(path, "no texture named \"" + m[given].get<std::string>() + "\" in /textures (" + textures_->names() + ")");
    }
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
                               Slot& alpha_u, Slot& alpha_v) {
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
    alpha_u = scalar(m, p, prefix, "alpha_u", 0.1f);
    alpha_v = scalar(m, p, prefix, "alpha_v", 0.1f);
  } else {
    alpha_u = alpha_v = scalar(m, p, prefix, "alpha", 0.1f);
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
  if (type == "dielectric") {
    rd_.object(m, p, with({"type", "int_ior", "ext_ior", "specular_reflectance", "specular_transmittance"}, extra));
    DielectricBsdf b;
    b.int_ior = scene_.params.add(prefix + "int_ior", ior(m, p, "int_ior", "bk7"));
    b.ext_ior = scene_.params.add(prefix + "ext_ior", ior(m, p, "ext_ior", "air"));
    b.specular_reflectance = colour(m, p, prefix, "specular_reflectance", glm::vec3(1.f));
    b.specular_transmittance = colour(m, p, prefix, "specular_transmittance", glm::vec3(1.f));
    return push(b);
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
    Slot alpha_v;
    roughness(m, p, prefix, r.distribution, r.alpha, alpha_v);
    return push(r);
  }
  rd_.fail(p + "/type", "unknown material type \"" + type +
                            "\" (expected diffuse, conductor, roughconductor, dielectric, roughdielectric, plastic, roughplastic, mirror, twosided or mask)");
}

uint32_t MaterialReader::read(const std::string& name, const json& m, const std::string& p) {
  if (!m.is_object() || !m.contains("type")) rd_.fail(p + "/type", "required key is missing");
  const std::string type = rd_.string(m["type"], p + "/type");
  const std::string prefix = "materials." + name + ".";
  const std::vector<std::string> common = {"emission", "two_sided"};
  Material mat;
  mat.name = name;
  if (type == "twosided" || type == "mask") {
    // Wrappers: the nested BSDF's parameters keep the material's names (materials.X.reflectance);
    // Mitsuba's two-BSDF twosided names them brdf_0 (front) and brdf_1 (back).
    const bool mask = type == "mask";
    rd_.object(m, p, with({"type", "bsdf"}, mask ? with({"opacity"}, common) : common), {"bsdf"});
    const json* inner = &m["bsdf"];
    std::string ip = p + "/bsdf";
    bool sided = !mask;
    // A mask over a twosided (Mitsuba's leaves): the twosided's sides, under the mask's opacity.
    if (mask && inner->is_object() && inner->contains("type") && (*inner)["type"] == "twosided") {
      rd_.object(*inner, ip, {"type", "bsdf"}, {"bsdf"});
      inner = &(*inner)["bsdf"];
      ip += "/bsdf";
      sided = true;
    }
    if (sided && inner->is_array()) {
      if (inner->size() != 2) rd_.fail(ip, "must be one BSDF object or an array of two (front, back)");
      mat.front = bsdf((*inner)[0], ip + "/0", prefix + "brdf_0.", {});
      mat.back = bsdf((*inner)[1], ip + "/1", prefix + "brdf_1.", {});
    } else {
      mat.front = mat.back = bsdf(*inner, ip, prefix, {});
    }
    for (uint32_t b : {mat.front, mat.back})
      if (sided && (bsdf_flags(scene_.bsdfs[b]) & kLobeTransmission))
        rd_.fail(ip + "/type", "twosided wraps reflecting materials only, not a transmitting one");
    if (mask) {
      // A number, or a texture whose luminance is the opacity (Mitsuba's bitmap opacity).
      if (m.contains("opacity") && (m["opacity"].is_string() || m["opacity"].is_object())) {
        mat.opacity_texture = colour(m, p, prefix, "opacity", glm::vec3(0.f)).texture;
      } else {
        const float opacity = m.contains("opacity") ? float(rd_.number(m["opacity"], p + "/opacity")) : 0.5f;
        if (!(opacity > 0.f && opacity <= 1.f)) rd_.fail(p + "/opacity", "must be in (0, 1], got " + fmt_number(opacity));
        mat.opacity = scene_.params.add(prefix + "opacity", opacity);
      }
      scene_.has_masks = true;
    }
  } else {
    mat.front = mat.back = bsdf(m, p, prefix, common);
  }
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
