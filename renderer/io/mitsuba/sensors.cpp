// Mitsuba sensors (each type's keys read by its plugin through the registry, sensors/camera.h),
// with their film, sampler and reconstruction filter.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include "renderer/core/registry.h"
#include "renderer/io/mitsuba/converter.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/mitsuba/xml.h"
#include "renderer/samplers/sampler_plugin.h"

namespace dray::mitsuba {

namespace {

double rad(double degrees) { return degrees * M_PI / 180.0; }
double deg(double radians) { return radians * 180.0 / M_PI; }

}  // namespace

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
    } else if (key == "file_format") {  // dray writes the format the output's extension names
      std::string v = x_.attr(f, "value");
      std::transform(v.begin(), v.end(), v.begin(), ::tolower);
      if (v != "openexr" && v != "exr" && v != "rgbe" && v != "pfm")
        x_.fail(f, "file_format must be openexr, exr, rgbe or pfm (Mitsuba's), got \"" + v + "\"");
    } else if (key != "component_format" && key != "banner" && key != "compensate") {
      x_.fail(f, "unsupported film property (supported: width, height, crop_offset_x, crop_offset_y, crop_width, "
                 "crop_height, pixel_format, sample_border, rfilter; ignored: file_format, component_format, banner, "
                 "compensate)");
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
void Converter::sensor(const pugi::xml_node& n, const std::string& attached) {
  const json render_before = render_;
  const bool filter_before = filter_seen_;
  json cam = sensor_camera(n, attached);
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

json Converter::sensor_camera(const pugi::xml_node& n, const std::string& attached) {
  const std::string type = x_.attr(n, "type");
  // An irradiance meter measures over the shape it is nested in, and only there (as Mitsuba's).
  const bool meter = type == "irradiancemeter", distant = type == "distant";
  if (meter && attached.empty()) x_.fail(n, "an irradiancemeter must be nested in the shape it measures over (as in Mitsuba)");
  if (!meter && !attached.empty()) x_.fail(n, "a shape may carry an irradiancemeter only, got a " + type + " sensor");
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
    if (meter && t == "transform")
      x_.fail(c, "an irradiancemeter takes no to_world: it inherits its shape's placement (as in Mitsuba)");
    if (distant && t == "shape")
      x_.fail(c, "a distant sensor's target shape is not supported (a target point is; or no target: the scene's "
                 "bounding sphere)");
    if (t == "transform") {
      to_world = x_.transform(c);
      lookat = x_.lookat(c);
      has_to_world = true;
    } else if (t == "sampler" || (t == "ref" && referred_kind(c) == "sampler")) {
      sampler(resolve(c, "sampler"));
    } else if (t == "medium" || t == "ref") {
      if (!medium_name.empty()) x_.fail(c, "a sensor sits in one medium");
      medium_name = medium(c);
    } else if (t == "film") {
      film(c, width, height);
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
      else if (distant && key == "target" && t == "point") cam["target_point"] = vec(x_.triple(c));
      else if (t == "float" || t == "integer") cam[key] = x_.number(c);  // the plugin's own (read by its reader)
      else
        x_.fail(c, "unsupported " + type + " property (supported: to_world, near_clip, far_clip" +
                       (has_fov ? ", fov, fov_axis, focal_length, principal_point_offset_x, principal_point_offset_y" : "") +
                       ", and the plugin's numbers)");
    }
  }
  if (!(near_clip > 0)) x_.fail(n, "near_clip must be greater than zero");
  if (!(near_clip < far_clip)) x_.fail(n, "near_clip must be smaller than far_clip");
  if (distant && has_to_world && direction_key) x_.fail(n, "give either a to_world or a direction, not both (as Mitsuba)");
  if (distant && direction_key && !origin_key) origin_key = glm::dvec3(0.0);  // its direction alone places it
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
  if (meter) cam["shape"] = attached;
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

// A sensor's sampler: its plugin (render.sampler), sample_count (render.spp, rounded up as Mitsuba's
// sampler rounds it, with Mitsuba's warning) and seed.
void Converter::sampler(const pugi::xml_node& c) {
  const std::string type = x_.attr(c, "type");
  bool jitters = false;  // whether it takes `jitter` (every plugin with that option)
  if (!with_plugin<SamplerPlugin>(type, [&](const auto& s) { jitters = requires { s.jitter; }; }))
    x_.fail(c, "unsupported sampler (supported: " + plugin_names<SamplerPlugin>() + ")");
  const bool orthogonal = type == "orthogonal";
  json plugin = {{"type", type}};
  long count = 4;  // Mitsuba's default sample_count
  for (pugi::xml_node s : c.children()) {
    if (!element(s)) continue;
    const std::string key = x_.attr(s, "name");
    if (key == "sample_count") count = x_.integer(s);
    else if (key == "seed") render_["seed"] = x_.integer(s);
    else if (key == "jitter" && jitters) plugin["jitter"] = x_.boolean(s);
    else if (key == "strength" && orthogonal && x_.integer(s) != 2)
      x_.fail(s, "dray's orthogonal sampler has strength 2 (Bose's arrays; Mitsuba's Bush arrays of other strengths are not dray's)");
    else if (key != "strength" || !orthogonal)
      x_.fail(s, "unsupported " + type + " property (supported: sample_count, seed" + (jitters ? ", jitter" : "") +
                     (orthogonal ? ", strength" : "") + ")");
  }
  if (count < 1 || count > (1 << 20)) x_.fail(c, "sample_count must be in [1, 2^20]");
  uint32_t rounded = 0;
  with_plugin<SamplerPlugin>(type, [&](const auto& s) { rounded = s.layout(uint32_t(count)).count; });
  if (rounded != uint32_t(count))
    warnings_.push_back(x_.where(c) + ": the " + type + " sampler's sample_count " + std::to_string(count) + " is rounded up to " +
                        std::to_string(rounded) + ", as Mitsuba's");
  render_["spp"] = rounded;
  if (type != "independent") render_["sampler"] = plugin.size() > 1 ? plugin : json(type);
}

void Converter::rfilter(const pugi::xml_node& n) {
  filter_seen_ = true;
  const std::string type = x_.attr(n, "type");
  // Each type's keys (Mitsuba's src/rfilters): tent's radius, gaussian's stddev, mitchell's B and C,
  // lanczos's lobes; box and catmullrom take none.
  const std::vector<std::string> keys = type == "tent"       ? std::vector<std::string>{"radius"}
                                        : type == "gaussian" ? std::vector<std::string>{"stddev"}
                                        : type == "mitchell" ? std::vector<std::string>{"B", "C"}
                                        : type == "lanczos"  ? std::vector<std::string>{"lobes"}
                                                             : std::vector<std::string>{};
  if (type != "box" && type != "catmullrom" && keys.empty())
    x_.fail(n, "unsupported rfilter (supported: box, tent, gaussian, mitchell, catmullrom, lanczos)");
  json filter = {{"type", type}};
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    const std::string name = x_.attr(c, "name");
    if (std::find(keys.begin(), keys.end(), name) == keys.end()) {
      std::string supported;
      for (const std::string& k : keys) supported += (supported.empty() ? "" : ", ") + k;
      x_.fail(c, "unsupported " + type + " filter property" + (keys.empty() ? std::string() : " (supported: " + supported + ")"));
    }
    filter[name] = name == "lobes" ? json(std::lround(x_.number(c))) : json(x_.number(c));
  }
  render_["filter"] = filter.size() == 1 ? json(type) : filter;
}

}  // namespace dray::mitsuba
