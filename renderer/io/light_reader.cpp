#include "renderer/io/light_reader.h"

#include <cmath>

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

namespace dray {

using nlohmann::json;

Light LightReader::read(const json& l, const std::string& p, const std::string& name, const std::string& type,
                        const std::string& prefix) {
  Light light;
  light.name = name;
  if (type == "point") {
    rd_.object(l, p, {"name", "type", "position", "intensity"});
    light.kind = Light::Kind::point;
    light.position = scene_.params.add(prefix + "position", rd_.vec3_or(l, "position", p, glm::vec3(0.f)));
    light.intensity = scene_.params.add(prefix + "intensity", rd_.colour_or(l, "intensity", p, glm::vec3(1.f)), Domain::at_least(0));
  } else if (type == "environment") {
    rd_.object(l, p, {"name", "type", "radiance"});
    if (scene_.environment >= 0) rd_.fail(p, "only one environment light is allowed");
    light.kind = Light::Kind::environment;
    light.intensity = scene_.params.add(prefix + "radiance", rd_.colour_or(l, "radiance", p, glm::vec3(1.f)), Domain::at_least(0));
    scene_.environment = int(scene_.lights.size());
  } else if (type == "envmap") {
    // Mitsuba 3's `envmap`: an equirectangular image (`filename`, any format textures read,
    // linear: HDR or EXR; 8-bit images decoded from sRGB), times `scale`, turned by `rotate_y`
    // degrees about +y; dray's `width`, `height` and `value` give a constant start instead.
    rd_.object(l, p, {"name", "type", "filename", "scale", "rotate_y", "matrix", "width", "height", "value"});
    if (scene_.environment >= 0) rd_.fail(p, "only one environment light is allowed");
    light.kind = Light::Kind::environment;
    const Image img = read_image_input(rd_, l, p, base_dir_, false, glm::vec3(1.f));
    for (float x : img.data)
      if (x < 0.f) rd_.fail(p + "/filename", "has a negative radiance, " + fmt_number(x));
    light.env.width = img.width;
    light.env.height = img.height;
    light.env.data = scene_.params.add_block(prefix + "data", img.data, {uint32_t(img.height), uint32_t(img.width), 3u}, Domain::at_least(0));
    light.env.scale = scene_.params.add(prefix + "scale", l.contains("scale") ? rd_.positive(l["scale"], p + "/scale") : 1.f, Domain::positive());
    light.env.rotate_y = l.contains("rotate_y") ? float(rd_.number(l["rotate_y"], p + "/rotate_y")) * kPi / 180.f : 0.f;
    if (l.contains("matrix")) {  // Mitsuba's to_world: 4x4 row-major, its 3x3 a rotation (the translation unused)
      light.env.to_world = rotation(l["matrix"], p + "/matrix", "an envmap");
      light.env.rotated = true;
    }
    scene_.environment = int(scene_.lights.size());
  } else if (type == "sunsky") {
    read_sunsky(l, p, light);
  } else if (type == "spot") {
    // Mitsuba 3's `spot` (its to_world a lookat: position and target): `intensity` W/sr on
    // the axis, 1 within `beam_width` of it, falling linearly in angle to 0 at `cutoff_angle`.
    rd_.object(l, p, {"name", "type", "position", "target", "up", "intensity", "cutoff_angle", "beam_width", "texture"});
    light.kind = Light::Kind::spot;
    // Mitsuba's defaults: at the origin, looking along +z.
    const glm::vec3 pos = rd_.vec3_or(l, "position", p, glm::vec3(0.f)), target = rd_.vec3_or(l, "target", p, pos + glm::vec3(0, 0, 1));
    if (!(glm::length(target - pos) > 0.f)) rd_.fail(p + "/target", "must differ from position");
    const float cutoff = l.contains("cutoff_angle") ? rd_.number(l["cutoff_angle"], p + "/cutoff_angle") : 20.f;
    if (!(cutoff > 0.f && cutoff < 90.f)) rd_.fail(p + "/cutoff_angle", "must be in (0, 90) degrees, got " + fmt_number(cutoff));
    const float beam = l.contains("beam_width") ? rd_.number(l["beam_width"], p + "/beam_width") : cutoff * 0.75f;
    if (!(beam >= 0.f && beam < cutoff))
      rd_.fail(p + "/beam_width", "must be in [0, cutoff_angle) = [0, " + fmt_number(cutoff) + "), got " + fmt_number(beam));
    light.position = scene_.params.add(prefix + "position", pos);
    light.target = scene_.params.add(prefix + "target", target);
    light.intensity = scene_.params.add(prefix + "intensity", rd_.colour_or(l, "intensity", p, glm::vec3(1.f)), Domain::at_least(0));
    light.cutoff = scene_.params.add(prefix + "cutoff_angle", cutoff, Domain::open(0, 90));
    light.beam = scene_.params.add(prefix + "beam_width", beam, Domain::right_open(0, 90));
    // `texture`: an image projected along the beam (Mitsuba's spot `texture`), oriented by `up`.
    if (l.contains("up")) light.up = rd_.vec3(l["up"], p + "/up");
    if (l.contains("texture")) {
      if (!(glm::length(glm::cross(light.up, target - pos)) > 0.f))
        rd_.fail(p + "/up", "must not be parallel to the axis (target - position): it orients the texture (default [0, 1, 0])");
      light.texture = textures_.input(l["texture"], p + "/texture", name + ".texture");
    }
  } else if (type == "projector") {
    read_projector(l, p, name, prefix, light);
  } else if (type == "directional") {
    // Mitsuba 3's `directional`: light from infinitely far along `direction`, `irradiance`
    // W/m² on a surface facing it.
    rd_.object(l, p, {"name", "type", "direction", "irradiance"});
    light.kind = Light::Kind::directional;
    const glm::vec3 d = rd_.vec3_or(l, "direction", p, glm::vec3(0, 0, 1));  // Mitsuba's default: +z
    if (!(glm::dot(d, d) > 0.f)) rd_.fail(p + "/direction", "must not be zero");
    light.direction = scene_.params.add(prefix + "direction", d);
    light.intensity = scene_.params.add(prefix + "irradiance", rd_.colour_or(l, "irradiance", p, glm::vec3(1.f)), Domain::at_least(0));
  } else {
    rd_.fail(p + "/type",
             "unknown light type \"" + type + "\" (expected point, spot, projector, directional, environment, envmap or sunsky)");
  }
  return light;
}

void LightReader::read_projector(const json& l, const std::string& p, const std::string& name, const std::string& prefix,
                                 Light& light) {
  // Mitsuba 3's `projector` (its to_world a lookat: position, target, up): `irradiance` (a colour,
  // or a texture whose aspect sets the frustum's), `scale`, `fov` horizontal (default: a 50 mm
  // lens on 35 mm film at the image's aspect, Mitsuba's focal_length default).
  rd_.object(l, p, {"name", "type", "position", "target", "up", "irradiance", "scale", "fov"});
  light.kind = Light::Kind::projector;
  const glm::vec3 pos = rd_.vec3_or(l, "position", p, glm::vec3(0.f)), target = rd_.vec3_or(l, "target", p, pos + glm::vec3(0, 0, 1));
  if (!(glm::length(target - pos) > 0.f)) rd_.fail(p + "/target", "must differ from position");
  if (l.contains("up")) light.up = rd_.vec3(l["up"], p + "/up");
  if (!(glm::length(glm::cross(light.up, target - pos)) > 0.f))
    rd_.fail(p + "/up", "must not be parallel to the axis (target - position): it orients the image (default [0, 1, 0])");
  light.position = scene_.params.add(prefix + "position", pos);
  light.target = scene_.params.add(prefix + "target", target);
  const bool textured = l.contains("irradiance") && (l["irradiance"].is_string() || l["irradiance"].is_object());
  if (textured) {
    light.texture = textures_.input(l["irradiance"], p + "/irradiance", name + ".irradiance");
    const glm::ivec2 size = texture_size(scene_.textures[size_t(light.texture)]);
    if (size.x > 0 && size.y > 0) light.aspect = float(size.x) / float(size.y);
  } else {
    light.intensity = scene_.params.add(prefix + "irradiance", l.contains("irradiance") ? rd_.colour(l["irradiance"], p + "/irradiance")
                                                                                         : glm::vec3(1.f),
                                       Domain::at_least(0));
  }
  light.scale = scene_.params.add(prefix + "scale", l.contains("scale") ? rd_.positive(l["scale"], p + "/scale") : 1.f, Domain::positive());
  // 35 mm film's diagonal (43.27 mm) shared out at the aspect, over twice the focal length.
  const double a = light.aspect, width_mm = std::hypot(36.0, 24.0) * a / std::sqrt(1.0 + a * a);
  light.fov = l.contains("fov") ? float(rd_.number(l["fov"], p + "/fov")) : float(2.0 * std::atan(width_mm / 100.0) * 180.0 / M_PI);
  if (!(light.fov > 0.f && light.fov < 180.f)) rd_.fail(p + "/fov", "must be in (0, 180) degrees, got " + fmt_number(light.fov));
}

}  // namespace dray
