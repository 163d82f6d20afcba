// Mitsuba 3's `principled` and `principledthin` (their keys, defaults and lobe switches), for
// MaterialReader.
#include "renderer/io/material_reader.h"

namespace dray {

using nlohmann::json;

namespace {

// Mitsuba's get_flag: a lobe is on when its key is given, unless as the number 0.
bool given(const json& m, const char* key) { return m.contains(key) && !(m[key].is_number() && m[key].get<double>() == 0.0); }

}  // namespace

ScalarInput MaterialReader::bounded(const json& m, const std::string& p, const std::string& prefix, const std::string& key,
                                    float fallback, float hi) {
  if (m.contains(key) && (m[key].is_string() || m[key].is_object())) {
    ScalarInput in;
    in.texture = texture_input(m[key], p + "/" + key, prefix, key);
    return in;
  }
  const float v = m.contains(key) ? float(rd_.number(m[key], p + "/" + key)) : fallback;
  if (!(v >= 0.f && v <= hi)) rd_.fail(p + "/" + key, "must be in [0, " + fmt_number(hi) + "], got " + fmt_number(v));
  return scene_.params.add(prefix + key, v);
}

uint32_t MaterialReader::principled(const json& m, const std::string& p, const std::string& prefix, const std::string& type,
                                    const std::vector<std::string>& extra) {
  const bool thin = type == "principledthin";
  std::vector<std::string> keys = {"type", "base_color", "roughness", "anisotropic", "spec_trans", "sheen", "sheen_tint",
                                   "flatness", "spec_tint", "eta"};
  if (thin) keys.insert(keys.end(), {"diff_trans", "specular_reflectance_sampling_rate", "specular_transmittance_sampling_rate",
                                     "diffuse_reflectance_sampling_rate", "diffuse_transmittance_sampling_rate"});
  else keys.insert(keys.end(), {"metallic", "clearcoat", "clearcoat_gloss", "specular", "main_specular_sampling_rate",
                                "clearcoat_sampling_rate", "diffuse_reflectance_sampling_rate"});
  keys.insert(keys.end(), extra.begin(), extra.end());
  rd_.object(m, p, keys);
  auto lobe = [&](const char* key, ScalarInput& in, bool& has, float hi = 1.f) {
    has = given(m, key);
    in = bounded(m, p, prefix, key, 0.f, hi);
  };
  auto rate = [&](const char* key) {
    const float r = m.contains(key) ? float(rd_.number(m[key], p + "/" + key)) : 1.f;
    if (!(r >= 0.f)) rd_.fail(p + "/" + key, "must be >= 0, got " + fmt_number(r));
    return r;
  };
  // What both share.
  auto common = [&](auto& b) {
    b.base_color = colour(m, p, prefix, "base_color", glm::vec3(0.5f), nullptr, true);
    b.roughness = bounded(m, p, prefix, "roughness", 0.5f);
    lobe("anisotropic", b.anisotropic, b.has_anisotropic);
    lobe("spec_trans", b.spec_trans, b.has_spec_trans);
    lobe("sheen", b.sheen, b.has_sheen);
    lobe("sheen_tint", b.sheen_tint, b.has_sheen_tint);
    lobe("flatness", b.flatness, b.has_flatness);
    lobe("spec_tint", b.spec_tint, b.has_spec_tint);
  };
  if (thin) {
    PrincipledThinBsdf b;
    common(b);
    lobe("diff_trans", b.diff_trans, b.has_diff_trans, 2.f);
    // eta: a number (> 0) or a texture.
    if (m.contains("eta") && (m["eta"].is_string() || m["eta"].is_object())) b.eta.texture = texture_input(m["eta"], p + "/eta", prefix, "eta");
    else b.eta = scene_.params.add(prefix + "eta", m.contains("eta") ? rd_.positive(m["eta"], p + "/eta") : 1.5f);
    b.spec_reflect_rate = rate("specular_reflectance_sampling_rate");
    b.spec_trans_rate = rate("specular_transmittance_sampling_rate");
    b.diffuse_reflect_rate = rate("diffuse_reflectance_sampling_rate");
    b.diffuse_trans_rate = rate("diffuse_transmittance_sampling_rate");
    return push(b);
  }
  PrincipledBsdf b;
  common(b);
  lobe("metallic", b.metallic, b.has_metallic);
  lobe("clearcoat", b.clearcoat, b.has_clearcoat);
  b.clearcoat_gloss = bounded(m, p, prefix, "clearcoat_gloss", 0.f);
  // eta (> 0, a number), or specular (in [0, 1], a number) giving it; not both.
  if (m.contains("eta") && m.contains("specular")) rd_.fail(p + "/specular", "give either eta or specular, not both");
  if (m.contains("eta")) {
    b.eta = scene_.params.add(prefix + "eta", rd_.positive(m["eta"], p + "/eta"));
  } else {
    const float v = m.contains("specular") ? float(rd_.number(m["specular"], p + "/specular")) : 0.5f;
    if (!(v >= 0.f && v <= 1.f)) rd_.fail(p + "/specular", "must be in [0, 1], got " + fmt_number(v));
    b.specular = scene_.params.add(prefix + "specular", v);
  }
  b.spec_rate = rate("main_specular_sampling_rate");
  b.clearcoat_rate = rate("clearcoat_sampling_rate");
  b.diffuse_rate = rate("diffuse_reflectance_sampling_rate");
  return push(b);
}

}  // namespace dray
