// Mitsuba textures and BSDFs as the scene document's (their keys passed through: each plugin reads
// its own, renderer/textures/ and renderer/bsdfs/), and a shape's material: its bsdf, shared by id
// or its own, joined by its area emitter.
#include <utility>

#include "renderer/io/mitsuba/converter.h"

namespace dray::mitsuba {

json Converter::texture(const pugi::xml_node& n) {
  json t = {{"type", x_.attr(n, "type")}};
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    const std::string name = x_.attr(c, "name");
    if (tag(c) == "volume") {
      put(t, name, c, volume(c, false));  // a 3D texture's volume
    } else if (tag(c) == "transform" && name == "to_uv") {
      const glm::dmat4 m = x_.transform(c);
      if (m[1][0] != 0.0 || m[0][1] != 0.0) x_.fail(c, "to_uv may scale and offset, not rotate");
      t["to_uv"] = {{"scale", {m[0][0], m[1][1]}}, {"offset", {m[3][0], m[3][1]}}};
    } else {
      put(t, name, c, name == "filename" ? file_ref(c, property(c)) : property(c));
    }
  }
  return t;
}

json Converter::bsdf(const pugi::xml_node& ref_or_bsdf) {
  const pugi::xml_node n = resolve(ref_or_bsdf, "bsdf");
  const std::string type = x_.attr(n, "type");
  refuse_polarized(n, type);
  json m = {{"type", type}};
  json inner = json::array();
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    if (tag(c) == "bsdf" || (tag(c) == "ref" && (!c.attribute("name") || referred_kind(c) == "bsdf"))) inner.push_back(bsdf(c));
    else if (type == "bumpmap" && tag(c) == "texture") put(m, "texture", c, property(c));  // its one texture, any name
    else put(m, x_.attr(c, "name"), c, property(c));
  }
  if (type == "blendbsdf") {
    if (inner.size() != 2) x_.fail(n, "needs two nested bsdfs");
    m["bsdf"] = inner;
  } else if (type == "twosided" || type == "mask" || type == "normalmap" || type == "bumpmap") {
    if (inner.empty() || inner.size() > (type == "twosided" ? 2u : 1u)) x_.fail(n, "needs one nested bsdf" + std::string(type == "twosided" ? " (or two)" : ""));
    m["bsdf"] = inner.size() == 1 ? inner[0] : inner;
  } else if (!inner.empty()) {
    x_.fail(n, "a " + type + " bsdf has no nested bsdf");
  }
  return m;
}

std::string Converter::shape_material(const std::string& shape, const pugi::xml_node& b, const pugi::xml_node& e) {
  if (!e) {
    if (!b) {
      if (default_material_.empty())
        default_material_ = add_material("default", {{"type", "diffuse"}, {"reflectance", {0.5, 0.5, 0.5}}}, e.parent());
      return default_material_;
    }
    const pugi::xml_node n = resolve(b, "bsdf");
    if (n.attribute("id")) return material_for(n);
    return inline_material(shape, bsdf(n), n);
  }
  json m = b ? bsdf(b) : json{{"type", "diffuse"}, {"reflectance", {0.5, 0.5, 0.5}}};
  json radiance = {1.0, 1.0, 1.0};
  for (pugi::xml_node c : e.children()) {
    if (!element(c)) continue;
    if (x_.attr(c, "name") != "radiance") x_.fail(c, "unsupported area emitter property");
    radiance = property(c, true);
  }
  m["emission"] = radiance;
  if (x_.attr(e, "type") == "directionalarea") m["directional"] = true;
  const pugi::xml_node at = b ? resolve(b, "bsdf") : e;
  // A bsdf with an id keeps its keys under the id (Mitsuba lists a shared object once); an emitter
  // declared apart (with its id, shared by the shapes that refer to it) is each shape's own.
  const bool shared = b && at.attribute("id");
  const std::string name = shared ? add_material(shape, m, at) : inline_material(shape, m, at);
  if (shared) mitsuba_id("materials." + name, "");  // a copy: Mitsuba has no keys for it
  if (!shape_id_.empty()) mitsuba_id("emission:materials." + name, shape_id_ + ".emitter");
  return name;
}

// A material of the shape's own (an inline bsdf, or one an area emitter joins): Mitsuba's keys
// for it are the shape's ("teapot.bsdf.reflectance.value").
std::string Converter::inline_material(const std::string& shape, json m, const pugi::xml_node& at) {
  const std::string name = add_material(shape, std::move(m), at);
  if (!shape_id_.empty()) mitsuba_id("materials." + name, shape_id_ + ".bsdf");
  return name;
}

}  // namespace dray::mitsuba
