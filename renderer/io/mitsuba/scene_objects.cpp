// Mitsuba emitters, the sensor (with its film and sampler) and the integrator, and the reader's
// entry point.
#include <cctype>
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include "renderer/io/mitsuba/converter.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/mitsuba/xml.h"
#include "renderer/core/registry.h"

namespace dray {

namespace mitsuba {

namespace {

double rad(double degrees) { return degrees * M_PI / 180.0; }
double deg(double radians) { return radians * 180.0 / M_PI; }

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
  Properties props(x_, n);
  glm::dmat4 to_world(1.0);
  bool has_to_world = false;
  std::optional<XmlFiles::LookAt> lookat;  // a spot's or projector's lookat, as written
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
  json l = {{"name", name}};
  const json one = {1, 1, 1};
  if (type == "point") {
    l.update({{"type", "point"}, {"position", vec(props.point("position", glm::dvec3(to_world[3])))},
              {"intensity", props.take("intensity", one)}});
  } else if (type == "constant") {
    l.update({{"type", "environment"}, {"radiance", props.take("radiance", one)}});
  } else if (type == "envmap") {
    // A rotation about +y is dray's rotate_y; any other rotation its matrix (the translation unused).
    const glm::dmat3 r(to_world);
    const double angle = std::atan2(r[2][0], r[0][0]);
    const glm::dmat3 about_y(glm::dvec3(std::cos(angle), 0, -std::sin(angle)), glm::dvec3(0, 1, 0),
                             glm::dvec3(std::sin(angle), 0, std::cos(angle)));
    bool turns_about_y = true;
    for (int i = 0; i < 3; ++i) turns_about_y = turns_about_y && glm::length(r[i] - about_y[i]) <= 1e-6;
    if (!is_rotation(r)) x_.fail(n, "an envmap's to_world must be a rotation (no scale, no mirror)");
    l.update({{"type", "envmap"}, {"filename", file_ref(n, props.take("filename", ""))}, {"scale", props.take("scale", 1.0)}});
    if (turns_about_y && angle != 0.0) l["rotate_y"] = deg(angle);
    if (!turns_about_y) l["matrix"] = matrix(glm::dmat4(r));
  } else if (type == "sunsky") {
    l["type"] = "sunsky";
    for (const char* key : {"turbidity", "albedo", "sun_direction", "latitude", "longitude", "timezone", "year", "month", "day", "hour",
                            "minute", "second", "sun_scale", "sky_scale", "sun_aperture", "complex_sun"}) {
      const json v = props.take(key, nullptr);
      if (!v.is_null()) l[key] = v;
    }
    if (!is_rotation(glm::dmat3(to_world))) x_.fail(n, "a sunsky's to_world must be a rotation (no scale, no mirror)");
    if (glm::dmat3(to_world) != glm::dmat3(1.0)) l["matrix"] = matrix(glm::dmat4(glm::dmat3(to_world)));
  } else if (type == "directional") {
    const glm::dvec3 d = props.point("direction", glm::dvec3(to_world * glm::dvec4(0, 0, 1, 0)));
    l.update({{"type", "directional"}, {"direction", vec(d)}, {"irradiance", props.take("irradiance", one)}});
  } else if (type == "spot") {
    if (!has_to_world) x_.fail(n, "a spot light needs a to_world (a lookat: where it is and where it points)");
    const glm::dvec3 p(to_world[3]), d(to_world * glm::dvec4(0, 0, 1, 0));
    if (!(glm::length(d) > 0.0)) x_.fail(n, "the spot light's to_world is degenerate");
    const double cutoff = props.number("cutoff_angle", 20.0);
    const glm::dvec3 up(to_world * glm::dvec4(0, 1, 0, 0));  // a lookat's up, made orthogonal
    l.update({{"type", "spot"}, {"position", vec(p)}, {"target", vec(p + glm::normalize(d))},
              {"intensity", props.take("intensity", one)}, {"cutoff_angle", cutoff},
              {"beam_width", props.take("beam_width", cutoff * 0.75)}});
    if (glm::length(up - glm::dvec3(0, 1, 0)) > 1e-9) l["up"] = vec(glm::normalize(up));
    if (lookat) {  // the scene's own numbers
      l["position"] = vec(lookat->origin);
      l["target"] = vec(lookat->target);
      if (lookat->up != glm::dvec3(0, 1, 0)) l["up"] = vec(lookat->up);
      else l.erase("up");
    }
    const json texture = props.take("texture", nullptr);
    if (!texture.is_null()) l["texture"] = texture;
  } else if (type == "projector") {
    if (!has_to_world) x_.fail(n, "a projector needs a to_world (a lookat: where it is and where it points)");
    const glm::dvec3 p(to_world[3]), d(to_world * glm::dvec4(0, 0, 1, 0)), up(to_world * glm::dvec4(0, 1, 0, 0));
    if (!(glm::length(d) > 0.0)) x_.fail(n, "the projector's to_world is degenerate");
    if (props.take("fov_axis", "x") != "x") x_.fail(n, "a projector's fov_axis must be x (dray's fov is horizontal)");
    l.update({{"type", "projector"}, {"position", vec(p)}, {"target", vec(p + glm::normalize(d))}, {"up", vec(glm::normalize(up))},
              {"irradiance", props.take("irradiance", one)}, {"scale", props.take("scale", 1.0)}});
    if (lookat) l.update({{"position", vec(lookat->origin)}, {"target", vec(lookat->target)}, {"up", vec(lookat->up)}});
    const json fov = props.take("fov", nullptr);
    if (!fov.is_null()) l["fov"] = fov;
  } else if (type == "area") {
    x_.fail(n, "an area emitter belongs inside the <shape> that emits");
  } else {
    x_.fail(n, "unsupported emitter type (supported: point, spot, projector, directional, constant, envmap, sunsky, area)");
  }
  props.finish("a " + type + " emitter");
  locate("/lights/" + std::to_string(lights_.size()), n);
  lights_.push_back(l);
}

// The film's size (hdrfilm's defaults 768 x 576) and crop window, which becomes render.crop.
void Converter::film(const pugi::xml_node& c, int& width, int& height) {
  if (x_.attr(c, "type") != "hdrfilm") x_.fail(c, "unsupported film (supported: hdrfilm)");
  long crop[4] = {0, 0, -1, -1};  // crop_offset_x, crop_offset_y, crop_width, crop_height (-1: the film's size)
  for (pugi::xml_node f : c.children()) {
    if (!element(f)) continue;
    if (tag(f) == "rfilter") {
      rfilter(f);
      continue;
    }
    const std::string key = x_.attr(f, "name");
    const char* crops[4] = {"crop_offset_x", "crop_offset_y", "crop_width", "crop_height"};
    const auto crop_key = std::find(crops, crops + 4, key);
    if (key == "width" || key == "height") {
      const long v = x_.integer(f);
      if (v < 1 || v > kMaxFilmSize) x_.fail(f, "must be in [1, " + std::to_string(kMaxFilmSize) + "], got " + std::to_string(v));
      (key == "width" ? width : height) = int(v);
    } else if (crop_key != crops + 4) {
      crop[crop_key - crops] = x_.integer(f);
    } else if (key == "pixel_format") {
      std::string v = x_.attr(f, "value");
      std::transform(v.begin(), v.end(), v.begin(), ::tolower);
      render_["pixel_format"] = v;
    } else if (key == "sample_border") {
      render_["sample_border"] = x_.boolean(f);
    } else if (key != "component_format" && key != "banner") {
      x_.fail(f, "unsupported film property (supported: width, height, crop_offset_x, crop_offset_y, crop_width, "
                 "crop_height, pixel_format, sample_border, rfilter; ignored: component_format, banner)");
    }
  }
  if (crop[2] < 0) crop[2] = width;
  if (crop[3] < 0) crop[3] = height;
  if (crop[0] < 0 || crop[1] < 0 || crop[2] < 1 || crop[3] < 1 || crop[0] + crop[2] > width || crop[1] + crop[3] > height)
    x_.fail(c, "the crop window must lie inside the " + std::to_string(width) + "x" + std::to_string(height) + " film");
  if (crop[2] != width || crop[3] != height) render_["crop"] = {crop[0], crop[1], crop[0] + crop[2], crop[1] + crop[3]};
}

// The vertical field of view, in degrees, of Mitsuba's fov (along fov_axis) or focal_length
// (a 35 mm equivalent, default 50mm, setting the diagonal field of view).
double Converter::fov_y(const pugi::xml_node& n, double fov, std::string axis, const std::string& focal_length,
                        int width, int height) {
  if (fov >= 0 && !focal_length.empty()) x_.fail(n, "give either a fov or a focal_length, not both");
  if (fov < 0) {
    const std::string f = focal_length.empty() ? "50mm" : focal_length;
    const std::string digits = f.size() > 2 && f.compare(f.size() - 2, 2, "mm") == 0 ? f.substr(0, f.size() - 2) : f;
    char* end = nullptr;
    const double mm = std::strtod(digits.c_str(), &end);
    if (digits.empty() || *end != '\0' || !(mm > 0) || !std::isfinite(mm))
      x_.fail(n, "focal_length must be a length in millimetres such as \"50mm\", got \"" + f + "\"");
    fov = deg(2 * std::atan(std::sqrt(36.0 * 36.0 + 24.0 * 24.0) / (2 * mm)));
    axis = "diagonal";
  }
  if (fov <= 0 || fov >= 180) x_.fail(n, "needs a fov in (0, 180) degrees");
  const double aspect = double(width) / double(height), t = std::tan(rad(fov) / 2);
  if (axis == "smaller") axis = width < height ? "x" : "y";
  if (axis == "larger") axis = width > height ? "x" : "y";
  double ty = 0;
  if (axis == "x") ty = t / aspect;
  else if (axis == "y") ty = t;
  else if (axis == "diagonal") ty = t / std::sqrt(aspect * aspect + 1.0);
  else x_.fail(n, "fov_axis must be x, y, diagonal, smaller or larger, got \"" + axis + "\"");
  return deg(2 * std::atan(ty));
}

// Several sensors make /camera an array (the first is the default). dray renders every sensor with
// one sampler, crop and filter: a later sensor's must equal the first's.
void Converter::sensor(const pugi::xml_node& n) {
  const json render_before = render_;
  const bool filter_before = filter_seen_;
  json cam = sensor_camera(n);
  if (camera_.is_null()) {
    if (n.attribute("id")) mitsuba_id("camera", x_.attr(n, "id"));
    camera_ = cam;
    locate("/camera", n);
    locate("/render", n);
    return;
  }
  if (render_ != render_before || filter_seen_ != filter_before)
    x_.fail(n, "a later sensor's sampler, film crop and rfilter must equal the first sensor's (dray renders every "
               "sensor with the first's)");
  if (!camera_.is_array()) camera_ = json::array({camera_});
  camera_.push_back(cam);
  locate("/camera/" + std::to_string(camera_.size() - 1), n);
}

json Converter::sensor_camera(const pugi::xml_node& n) {
  const std::string type = x_.attr(n, "type");
  bool has_fov = false;  // Mitsuba's fov, fov_axis, focal_length and principal point
  bool lens = false;     // whether it uses focus_distance (Mitsuba's every projective camera reads it)
  if (!with_plugin<SensorModel>(type, [&](const auto& s) { has_fov = s.kFieldOfView, lens = s.kAperture; }))
    x_.fail(n, "unsupported sensor type (supported: " + plugin_names<SensorModel>() + ")");
  const bool ortho = type == "orthographic";  // its film's extent is to_world's scale
  glm::dmat4 to_world(1.0);
  double fov = -1;
  std::string axis = "x", focal_length;
  int width = 768, height = 576;  // hdrfilm's defaults
  std::string medium_name;        // the medium the sensor sits in (Mitsuba: one, of any name)
  json cam = {{"type", type}};
  double near_clip = 1e-2, far_clip = 1e4, offset[2] = {0, 0};  // Mitsuba's defaults
  std::optional<XmlFiles::LookAt> lookat;  // its lookat, as written
  std::optional<glm::dvec3> origin_key, direction_key;  // Mitsuba's alternative to a to_world (radiance meter)
  bool has_to_world = false;
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    const std::string t = tag(c);
    if (t == "transform") {
      to_world = x_.transform(c);
      lookat = x_.lookat(c);
      has_to_world = true;
    } else if (t == "medium" || t == "ref") {
      if (!medium_name.empty()) x_.fail(c, "a sensor sits in one medium");
      medium_name = medium(c);
    } else if (t == "film") {
      film(c, width, height);
    } else if (t == "sampler") {
      sampler(c);
    } else {
      const std::string key = x_.attr(c, "name");
      if (key == "near_clip") near_clip = x_.number(c);
      else if (key == "far_clip") far_clip = x_.number(c);
      else if (has_fov && key == "fov") fov = x_.number(c);
      else if (has_fov && key == "fov_axis") axis = x_.attr(c, "value");
      else if (has_fov && key == "focal_length") focal_length = x_.attr(c, "value");
      else if (has_fov && key == "principal_point_offset_x") offset[0] = x_.number(c);
      else if (has_fov && key == "principal_point_offset_y") offset[1] = x_.number(c);
      else if (key == "focus_distance" && !lens) x_.number(c);  // read by Mitsuba's projective cameras, unused
      else if (key == "origin" && (t == "point" || t == "vector")) origin_key = x_.triple(c);
      else if (key == "direction" && (t == "point" || t == "vector")) direction_key = x_.triple(c);
      else if (t == "float" || t == "integer") cam[key] = x_.number(c);  // the plugin's own (read by its reader)
      else
        x_.fail(c, "unsupported " + type + " property (supported: to_world, near_clip, far_clip" +
                       (has_fov ? ", fov, fov_axis, focal_length, principal_point_offset_x, principal_point_offset_y" : "") +
                       ", and the plugin's numbers)");
    }
  }
  if (!(near_clip > 0)) x_.fail(n, "near_clip must be greater than zero");
  if (!(near_clip < far_clip)) x_.fail(n, "near_clip must be smaller than far_clip");
  if (!has_to_world && (origin_key || direction_key)) to_world = origin_direction(n, origin_key, direction_key);
  // Mitsuba's camera looks along local +z with +y up and +x to the left of the image.
  const glm::dvec3 origin(to_world[3]), dir(to_world * glm::dvec4(0, 0, 1, 0)), up(to_world * glm::dvec4(0, 1, 0, 0)),
      left(to_world * glm::dvec4(1, 0, 0, 0));
  if (!(glm::length(dir) > 0.0) || !(glm::length(glm::cross(up, dir)) > 0.0)) x_.fail(n, "the sensor's to_world is degenerate");
  if (glm::dot(glm::cross(up, dir), left) <= 0.0)
    x_.fail(n, "a mirrored sensor (a to_world that flips the image) is not supported");
  cam.update({{"origin", vec(origin)}, {"target", vec(origin + glm::normalize(dir))}, {"up", vec(glm::normalize(up))},
              {"width", width}, {"height", height}, {"far_clip", far_clip * glm::length(dir)}});
  cam["near_clip"] = near_clip * glm::length(dir);  // clip distances in camera space, as Mitsuba's
  if (lookat) cam.update({{"origin", vec(lookat->origin)}, {"target", vec(lookat->target)}, {"up", vec(lookat->up)}});
  if (ortho) {
    // The film spans [-1, 1] x [-1/aspect, 1/aspect] in camera space, under to_world's scale.
    cam["half_width"] = glm::length(left);
    cam["half_height"] = glm::length(up) * double(height) / double(width);
  } else if (has_fov) {
    cam["fov_y"] = fov_y(n, fov, axis, focal_length, width, height);
    if (offset[0] != 0 || offset[1] != 0) cam["principal_point_offset"] = {offset[0], offset[1]};
  }
  if (!medium_name.empty()) cam["medium"] = medium_name;
  if (n.attribute("id")) cam["name"] = std::string(n.attribute("id").value());
  return cam;
}

// Mitsuba's `origin` and `direction` (both or neither), a to_world looking from the origin along
// the direction, up any vector perpendicular to it.
glm::dmat4 Converter::origin_direction(const pugi::xml_node& n, const std::optional<glm::dvec3>& origin,
                                       const std::optional<glm::dvec3>& direction) {
  if (!origin || !direction) x_.fail(n, "give both origin and direction (or a to_world)");
  if (!(glm::length(*direction) > 0.0)) x_.fail(n, "direction must not be zero");
  const glm::dvec3 d = glm::normalize(*direction);
  const glm::dvec3 up = glm::normalize(std::fabs(d.x) > std::fabs(d.z) ? glm::dvec3(-d.y, d.x, 0) : glm::dvec3(0, -d.z, d.y));
  const glm::dvec3 left = glm::cross(up, d);
  glm::dmat4 m(1.0);
  m[0] = glm::dvec4(left, 0);
  m[1] = glm::dvec4(up, 0);
  m[2] = glm::dvec4(d, 0);
  m[3] = glm::dvec4(*origin, 1);
  return m;
}

void Converter::sampler(const pugi::xml_node& c) {
  for (pugi::xml_node s : c.children()) {
    if (!element(s)) continue;
    const std::string key = x_.attr(s, "name");
    if (key == "sample_count") render_["spp"] = x_.integer(s);
    else if (key == "seed") render_["seed"] = x_.integer(s);
    else x_.fail(s, "unsupported sampler property (supported: sample_count, seed)");
  }
}

void Converter::rfilter(const pugi::xml_node& n) {
  filter_seen_ = true;
  const std::string type = x_.attr(n, "type");
  const char* key = type == "tent" ? "radius" : type == "gaussian" ? "stddev" : nullptr;
  if (type != "box" && !key) x_.fail(n, "unsupported rfilter (supported: box, tent, gaussian)");
  json filter = type;
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    if (!key || x_.attr(c, "name") != key)
      x_.fail(c, std::string("unsupported ") + type + " filter property" + (key ? std::string(" (supported: ") + key + ")" : ""));
    filter = {{"type", type}, {key, x_.number(c)}};
  }
  render_["filter"] = filter;
}

// The projective integrators' sample counts per pixel: a count other than 0 yields to render()'s spp
// (Mitsuba), as dray's boundary and indirect samples follow pixels x spp by default; 0 turns that
// estimate off. The continuous derivatives (sppc) dray always estimates.
void Converter::projective_samples(const pugi::xml_node& c, const std::string& key) {
  if (x_.integer(c) != 0) return;
  if (key == "sppp") render_["boundary_samples"] = 0;
  else if (key == "sppi") render_["indirect_samples"] = 0;
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
  const bool volpath = type == "volpath" || type == "volpathmis" || type == "prbvolpath";
  const bool path = volpath || type == "path" || type == "prb" || type == "prb_basic" || type == "prb_projective" ||
                    type == "direct_projective" || type == "ptracer";
  if (!path && type != "direct")
    x_.fail(n, "unsupported integrator (supported: path, volpath, volpathmis, the prb variants, direct, ptracer, moment, aov)");
  if (volpath) render_["integrator"] = "volpath";
  if (type == "ptracer") render_["integrator"] = "ptracer";
  const bool projective = type == "prb_projective" || type == "direct_projective";
  // Mitsuba's defaults: its C++ integrators' max_depth -1, its Python AD integrators' 6
  // (ad/integrators/common.py), direct_projective's always 2 (the property read and ignored).
  const bool ad = type == "prb" || type == "prb_basic" || type == "prb_projective" || type == "prbvolpath";
  long max_depth = !path || type == "direct_projective" ? 2 : ad ? 6 : -1, rr_depth = 5;
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    const std::string key = x_.attr(c, "name");
    if (key == "max_depth" && type == "direct_projective") x_.integer(c);
    else if (key == "max_depth" && path) max_depth = x_.integer(c);
    else if (key == "rr_depth" && path) rr_depth = x_.integer(c);
    else if (key == "hide_emitters") render_["hide_emitters"] = x_.boolean(c);
    else if (key == "samples_per_pass" && type == "ptracer") x_.integer(c);  // a workload split: the same image
    else if (projective && (key == "sppc" || key == "sppp" || key == "sppi")) projective_samples(c, key);
    else if (projective && (key == "guiding" || key == "guiding_proj" || key == "guiding_rounds")) x_.attr(c, "value");
    else x_.fail(c, "unsupported integrator property");
  }
  // Mitsuba counts path vertices (1: emitters seen directly, 2: direct light); dray bounces.
  if (max_depth == 0 || max_depth < -1) x_.fail(n, "max_depth must be -1 (unlimited) or at least 1");
  render_["max_depth"] = max_depth < 0 ? 1024 : max_depth - 1;
  // Mitsuba's roulette starts once a path has rr_depth vertices: dray's bounce rr_depth - 1.
  if (rr_depth < 1) x_.fail(n, "rr_depth must be at least 1");
  // Mitsuba's projective integrators estimate the visibility terms at sppp and sppi samples per
  // pixel, which render()'s spp overrides: as many edge samples as pixel samples.
  if (projective && !render_.contains("boundary_samples")) render_["boundary_ratio"] = 1.0;
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
