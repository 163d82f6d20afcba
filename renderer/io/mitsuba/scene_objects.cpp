// Mitsuba emitters and the integrator, and the reader's entry point (the sensors: sensors.cpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include "renderer/core/registry.h"
#include "renderer/emitters/light.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/io/mitsuba/converter.h"
#include "renderer/io/mitsuba/xml.h"

namespace dray {

namespace mitsuba {

namespace {

double deg(double radians) { return radians * 180.0 / M_PI; }

// "a sphere", "an envmap".
std::string with_article(const std::string& noun) {
  return (noun.find_first_of("aeiou") == 0 ? "an " : "a ") + noun;
}

// Whether r is a rotation: orthonormal, no mirror.
bool is_rotation(const glm::dmat3& r) {
  const glm::dmat3 rtr = glm::transpose(r) * r;
  for (int i = 0; i < 3; ++i)
    if (glm::length(rtr[i] - glm::dmat3(1.0)[i]) > 1e-6) return false;
  return glm::determinant(r) > 0;
}

}  // namespace

void Converter::emitter(const pugi::xml_node& n) {
  const std::string type = x_.attr(n, "type"), name = unique_name(n, "light", lights_.size());
  if (type == "area") x_.fail(n, "an area emitter belongs inside the <shape> that emits, or has an id the shape refers to");
  EmitterWorld world = EmitterWorld::none;
  bool rotate_y = false;  // a turn about +y is its rotate_y
  if (!with_plugin<EmitterModel>(type, [&](const auto& e) {
        world = e.kWorld;
        if constexpr (requires { e.kRotateY; }) rotate_y = e.kRotateY;
      }))
    x_.fail(n, "unsupported emitter type (supported: " + plugin_names<EmitterModel>() + ")");
  Properties props(x_, n);
  glm::dmat4 to_world(1.0);
  bool has_to_world = false;
  std::optional<XmlFiles::LookAt> lookat;  // its lookat, as written
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    if (tag(c) == "transform") {
      if (x_.attr(c, "name") != "to_world") x_.fail(c, "an emitter's transform must be named to_world");
      to_world = x_.transform(c);
      lookat = x_.lookat(c);
      has_to_world = true;
    } else {
      props.set(c, property(c, true));
    }
  }
  json l = {{"name", name}, {"type", type}};
  const glm::dmat3 r(to_world);
  switch (world) {
    case EmitterWorld::position:
      l["position"] = vec(props.point("position", glm::dvec3(to_world[3])));
      break;
    case EmitterWorld::direction:
      l["direction"] = vec(props.point("direction", glm::dvec3(to_world * glm::dvec4(0, 0, 1, 0))));
      break;
    case EmitterWorld::lookat:
      if (!has_to_world) x_.fail(n, with_article(type) + " emitter needs a to_world (a lookat: where it is and where it points)");
      emitter_lookat(n, type, to_world, lookat, l);
      break;
    case EmitterWorld::rotation: {
      if (!is_rotation(r)) x_.fail(n, with_article(type) + "'s to_world must be a rotation (no scale, no mirror)");
      // A turn about +y is an envmap's rotate_y; any other rotation its matrix (the translation unused).
      const double angle = std::atan2(r[2][0], r[0][0]);
      const glm::dmat3 about_y(glm::dvec3(std::cos(angle), 0, -std::sin(angle)), glm::dvec3(0, 1, 0),
                               glm::dvec3(std::sin(angle), 0, std::cos(angle)));
      bool turns_about_y = true;
      for (int i = 0; i < 3; ++i) turns_about_y = turns_about_y && glm::length(r[i] - about_y[i]) <= 1e-6;
      if (rotate_y && turns_about_y) {
        if (angle != 0.0) l["rotate_y"] = deg(angle);
      } else if (r != glm::dmat3(1.0)) {
        l["matrix"] = matrix(glm::dmat4(r));
      }
      break;
    }
    case EmitterWorld::none:
      break;
  }
  // The plugin's own properties, checked by its reader.
  const json own = props.rest();
  for (const auto& [key, value] : own.items()) l[key] = key == "filename" ? file_ref(n, value) : value;
  locate("/lights/" + std::to_string(lights_.size()), n);
  lights_.push_back(l);
}

// An emitter placed by a lookat (EmitterWorld::lookat): where it is, the point its axis passes through, its up
// (Mitsuba's local +z and +y), the scene's own numbers where the transform is a lookat.
void Converter::emitter_lookat(const pugi::xml_node& n, const std::string& type, const glm::dmat4& to_world,
                               const std::optional<XmlFiles::LookAt>& lookat, json& l) {
  const glm::dvec3 p(to_world[3]), d(to_world * glm::dvec4(0, 0, 1, 0));
  if (!(glm::length(d) > 0.0)) x_.fail(n, "the " + type + " emitter's to_world is degenerate");
  const glm::dvec3 up(to_world * glm::dvec4(0, 1, 0, 0));  // a lookat's up, made orthogonal
  l.update({{"position", vec(p)}, {"target", vec(p + glm::normalize(d))}});
  if (glm::length(up - glm::dvec3(0, 1, 0)) > 1e-9) l["up"] = vec(glm::normalize(up));
  if (lookat) {
    l["position"] = vec(lookat->origin);
    l["target"] = vec(lookat->target);
    if (lookat->up != glm::dvec3(0, 1, 0)) l["up"] = vec(lookat->up);
    else l.erase("up");
  }
}


// The projective integrators' sample counts per pixel: a count other than 0 yields to render()'s spp
// (Mitsuba), as dray's boundary and indirect samples follow pixels x spp by default; 0 turns that
// estimate off: sppp the camera silhouettes, sppi the rest of the visibility term (shadow edges and
// edges seen from path vertices), as in Mitsuba. The continuous derivatives (sppc) dray always estimates.
void Converter::projective_samples(const pugi::xml_node& c, const std::string& key) {
  if (x_.integer(c) != 0) return;
  if (key == "sppp") render_["primary_visibility"] = false;
  else if (key == "sppi") render_["indirect_samples"] = 0, render_["shadow_visibility"] = false;
  else warnings_.push_back(x_.where(c) + ": sppc 0 (no continuous derivatives) is not dray's: they are estimated at spp");
}

void Converter::integrator(const pugi::xml_node& n) {
  const std::string type = x_.attr(n, "type");
  if (type == "moment") {  // a wrapper: its inner integrator renders the image
    for (pugi::xml_node c : n.children())
      if (element(c) && tag(c) == "integrator") return integrator(c);
    x_.fail(n, "a moment integrator needs a nested integrator");
  }
  if (type == "aov") return aov_integrator(n);
  refuse_polarized(n, type);
  int plugin = -1;
  MitsubaIntegrator how{};
  if (!with_mitsuba_integrator(type, [&](int index, const MitsubaIntegrator& m) { plugin = index, how = m; }))
    x_.fail(n, "unsupported integrator (supported: " + mitsuba_integrator_names() + ", moment, aov)");
  if (plugin != 0) render_["integrator"] = std::string(kIntegrators[plugin].name);
  long max_depth = how.max_depth, rr_depth = 5;
  std::optional<long> shading_samples;
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    const std::string key = x_.attr(c, "name");
    if (how.shading_samples && (key == "emitter_samples" || key == "bsdf_samples" || key == "shading_samples")) {
      if (key == "shading_samples" ? render_.contains("emitter_samples") || render_.contains("bsdf_samples") : shading_samples.has_value())
        x_.fail(c, "shading_samples and emitter_samples or bsdf_samples together (Mitsuba refuses them so)");
      const long count = x_.integer(c);
      if (count < 0 || count > 1)
        x_.fail(c, key + " " + std::to_string(count) + ": dray's direct draws 0 or 1 of each per path vertex (for more, raise the spp)");
      if (key == "shading_samples") shading_samples = count;
      for (const char* k : {"emitter_samples", "bsdf_samples"})
        if (key == "shading_samples" || key == k) render_[k] = count;
      continue;
    }
    if (key == "max_depth" && how.depth_keys == DepthKeys::ignore_max_depth) x_.integer(c);
    else if (key == "max_depth" && how.depth_keys == DepthKeys::take) max_depth = x_.integer(c);
    else if (key == "rr_depth" && how.depth_keys != DepthKeys::refuse) rr_depth = x_.integer(c);
    else if (key == "hide_emitters") render_["hide_emitters"] = x_.boolean(c);
    else if (key == "samples_per_pass" && how.samples_per_pass) x_.integer(c);  // a workload split: the same image
    else if (how.projective && (key == "sppc" || key == "sppp" || key == "sppi")) projective_samples(c, key);
    else if (how.projective && (key == "guiding" || key == "guiding_proj" || key == "guiding_rounds")) x_.attr(c, "value");
    else x_.fail(c, "unsupported integrator property");
  }
  if (render_.value("emitter_samples", 1) + render_.value("bsdf_samples", 1) == 0)
    x_.fail(n, "emitter_samples and bsdf_samples are both 0 (Mitsuba: \"Must have at least 1 BSDF or emitter sample!\")");
  // Mitsuba counts path vertices (1: emitters seen directly, 2: direct light); dray bounces.
  if (max_depth == 0 || max_depth < -1) x_.fail(n, "max_depth must be -1 (unlimited) or at least 1");
  render_["max_depth"] = max_depth < 0 ? 1024 : max_depth - 1;
  // Mitsuba's roulette starts once a path has rr_depth vertices: dray's bounce rr_depth - 1.
  if (rr_depth < 1) x_.fail(n, "rr_depth must be at least 1");
  // Mitsuba's projective integrators estimate the visibility terms at sppp and sppi samples per
  // pixel, which render()'s spp overrides: as many edge samples as pixel samples.
  if (how.projective && !render_.contains("boundary_samples")) render_["boundary_ratio"] = 1.0;
  render_["rr_depth"] = rr_depth - 1;
}

// Mitsuba's aov: the AOVs beside the image of its nested integrator (one), or beside a black image
// without one, as Mitsuba's.
void Converter::aov_integrator(const pugi::xml_node& n) {
  pugi::xml_node inner;
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    if (tag(c) == "integrator") {
      if (inner) x_.fail(c, "dray's aov renders one nested integrator");
      inner = c;
    } else if (x_.attr(c, "name") == "aovs") {
      render_["aovs"] = x_.attr(c, "value");
    } else {
      x_.fail(c, "unsupported aov property (supported: aovs, one nested integrator)");
    }
  }
  if (!render_.contains("aovs")) x_.fail(n, "an aov integrator needs its aovs (e.g. \"dd.y:depth,nn:sh_normal\")");
  if (inner) return integrator(inner);
  render_["max_depth"] = 0;  // no path: the image is black
  render_["hide_emitters"] = true;
}

}  // namespace mitsuba

nlohmann::json read_mitsuba_xml(const std::string& path, const std::map<std::string, std::string>& defines,
                                std::vector<std::string>& warnings, std::map<std::string, std::string>* locations) {
  mitsuba::Converter c(defines, warnings);
  json doc = c.run(path);
  if (locations) *locations = c.locations();
  return doc;
}

}  // namespace dray
