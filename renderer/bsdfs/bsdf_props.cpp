#include "renderer/bsdfs/bsdf_props.h"

#include <sstream>

#include "renderer/bsdfs/ior.h"

namespace dray {

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::string fmt_value(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

ScalarInput positive_input(BsdfProps& p, const std::string& key, float fallback, bool textured) {
  if (textured && p.is_texture(key)) {
    ScalarInput in;
    in.texture = p.texture(key);
    return in;
  }
  const double v = p.has(key) ? p.number(key) : fallback;
  if (!(v > 0)) p.fail(key, "must be > 0, got " + fmt_value(v));
  return p.param(key, float(v), Domain::positive());
}

ScalarInput bounded_input(BsdfProps& p, const std::string& key, float fallback, float hi, bool textured) {
  if (textured && p.is_texture(key)) {
    ScalarInput in;
    in.texture = p.texture(key);
    return in;
  }
  const float v = p.has(key) ? float(p.number(key)) : fallback;
  if (!(v >= 0.f && v <= hi)) p.fail(key, "must be in [0, " + fmt_value(hi) + "], got " + fmt_value(v));
  return p.param(key, v, Domain::closed(0, hi));
}

float ior_value(const BsdfProps& p, const std::string& key, const char* fallback) {
  if (p.has(key) && p.is_number(key)) {
    const double v = p.number(key);
    if (!(v > 0)) p.fail(key, "must be > 0, got " + fmt_value(v));
    return float(v);
  }
  const std::string name = p.has(key) ? p.string(key) : fallback;
  const auto v = dielectric_ior(name);
  if (!v) p.fail(key, "unknown index of refraction \"" + name + "\" (a number, or one of: " + join(dielectric_ior_names()) + ")");
  return *v;
}

void read_roughness(BsdfProps& p, MicrofacetType& type, ScalarInput& alpha_u, ScalarInput& alpha_v, bool textured) {
  const std::string d = p.has("distribution") ? p.string("distribution") : "beckmann";
  if (d != "beckmann" && d != "ggx") p.fail("distribution", "must be \"beckmann\" or \"ggx\", got \"" + d + "\"");
  type = d == "ggx" ? MicrofacetType::ggx : MicrofacetType::beckmann;
  // dray always samples visible normals; Mitsuba's switch is accepted for its scenes.
  if (p.has("sample_visible")) p.boolean("sample_visible");
  if (p.has("alpha_u") || p.has("alpha_v")) {
    if (p.has("alpha")) p.fail("alpha", "give either alpha or alpha_u and alpha_v, not both");
    if (!p.has("alpha_u") || !p.has("alpha_v"))
      p.fail(p.has("alpha_u") ? "alpha_v" : "alpha_u", std::string("required with ") + (p.has("alpha_u") ? "alpha_u" : "alpha_v"));
    alpha_u = positive_input(p, "alpha_u", 0.1f, textured);
    alpha_v = positive_input(p, "alpha_v", 0.1f, textured);
  } else {
    alpha_u = alpha_v = positive_input(p, "alpha", 0.1f, textured);
  }
}

void read_dielectric(BsdfProps& p, Slot& int_ior, Slot& ext_ior, ColourInput& reflectance, ColourInput& transmittance) {
  int_ior = p.param("int_ior", ior_value(p, "int_ior", "bk7"), Domain::positive());
  ext_ior = p.param("ext_ior", ior_value(p, "ext_ior", "air"), Domain::positive());
  reflectance = p.colour("specular_reflectance", glm::vec3(1.f));
  transmittance = p.colour("specular_transmittance", glm::vec3(1.f));
}

void read_conductor_index(BsdfProps& p, ColourInput& eta, ColourInput& k) {
  if (p.has("material") && (p.has("eta") || p.has("k"))) p.fail("material", "give either material or eta and k, not both");
  if (p.has("eta") != p.has("k")) p.fail(p.has("eta") ? "k" : "eta", std::string("required with ") + (p.has("eta") ? "eta" : "k"));
  glm::vec3 e(0.f), kk(1.f);
  if (p.has("eta")) {
    e = p.colour_value("eta");
    kk = p.colour_value("k");
  } else {
    const std::string name = p.has("material") ? p.string("material") : "none";
    const auto v = conductor_ior(name);
    if (!v) p.fail("material", "unknown conductor \"" + name + "\" (one of: " + join(conductor_ior_names()) + ")");
    e = v->eta;
    kk = v->k;
  }
  eta = p.param("eta", e, Domain::at_least(0));
  k = p.param("k", kk, Domain::at_least(0));
}

}  // namespace dray
