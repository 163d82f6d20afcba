#include "renderer/io/camera_reader.h"

#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/scene_params.h"

namespace dray {

const char* camera_kind_name(CameraKind k) {
  switch (k) {
    case CameraKind::thinlens: return "thinlens";
    case CameraKind::orthographic: return "orthographic";
    case CameraKind::perspective: break;
  }
  return "perspective";
}

namespace {

CameraKind read_kind(const JsonReader& rd, const nlohmann::json& j, const std::string& p) {
  if (!j.contains("type")) return CameraKind::perspective;
  const std::string t = rd.string(j["type"], p + "/type");
  for (CameraKind k : {CameraKind::perspective, CameraKind::thinlens, CameraKind::orthographic})
    if (t == camera_kind_name(k)) return k;
  rd.fail(p + "/type", "unknown camera type \"" + t + "\" (expected perspective, thinlens or orthographic)");
}

// The keys of one type only, refused on the others.
void check_type_keys(const JsonReader& rd, const nlohmann::json& j, const std::string& p, CameraKind k) {
  const std::pair<const char*, bool> keys[] = {{"fov_y", k != CameraKind::orthographic},
                                               {"half_width", k == CameraKind::orthographic},
                                               {"half_height", k == CameraKind::orthographic},
                                               {"aperture_radius", k == CameraKind::thinlens},
                                               {"focus_distance", k == CameraKind::thinlens}};
  for (const auto& [key, allowed] : keys)
    if (!allowed && j.contains(key))
      rd.fail(p + "/" + key, std::string("not a key of ") + camera_kind_name(k) + " cameras");
}

// Mitsuba's principal point offset and clip planes.
void read_lens_extras(const JsonReader& rd, const nlohmann::json& j, const std::string& p, CameraSettings& c) {
  if (j.contains("principal_point_offset")) {
    const nlohmann::json& o = j["principal_point_offset"];
    if (!o.is_array() || o.size() != 2) rd.fail(p + "/principal_point_offset", "must be an array of 2 numbers [x, y]");
    c.offset_x = float(rd.number(o[0], p + "/principal_point_offset/0"));
    c.offset_y = float(rd.number(o[1], p + "/principal_point_offset/1"));
  }
  if (j.contains("near_clip")) {
    const double v = rd.number(j["near_clip"], p + "/near_clip");
    if (!(v >= 0)) rd.fail(p + "/near_clip", "must be >= 0, got " + fmt_number(v));
    c.near_clip = float(v);
  }
  if (j.contains("far_clip")) c.far_clip = rd.positive(j["far_clip"], p + "/far_clip");
  if (!(c.near_clip < c.far_clip))
    rd.fail(p + "/near_clip", "must be less than far_clip (" + fmt_number(c.far_clip) + "), got " + fmt_number(c.near_clip));
}

}  // namespace

CameraSettings read_camera(const JsonReader& rd, const nlohmann::json& j, const std::string& p) {
  rd.object(j, p, {"type", "origin", "target", "up", "fov_y", "half_width", "half_height", "aperture_radius",
                   "focus_distance", "principal_point_offset", "near_clip", "far_clip", "width", "height",
                   "medium", "name"});  // medium, name: the loader's
  CameraSettings c;
  c.kind = read_kind(rd, j, p);
  check_type_keys(rd, j, p, c.kind);
  read_lens_extras(rd, j, p, c);
  // Mitsuba's default sensor: at the origin, looking along +z.
  c.origin = rd.vec3_or(j, "origin", p, glm::vec3(0.f));
  c.target = rd.vec3_or(j, "target", p, c.origin + glm::vec3(0, 0, 1));
  if (j.contains("up")) c.up = rd.vec3(j["up"], p + "/up");
  const FrameProblem frame = frame_problem(c.origin, c.target, c.up);
  if (frame == FrameProblem::same_point) rd.fail(p + "/target", "must differ from " + p + "/origin");
  if (frame == FrameProblem::too_far)
    rd.fail(p + "/origin", "is too far from " + p + "/target: their distance overflows float (keep coordinates "
                           "within about 1e18)");
  if (frame == FrameProblem::too_near)
    rd.fail(p + "/target", "is too close to " + p + "/origin: their distance underflows float");
  if (frame == FrameProblem::up_too_short) rd.fail(p + "/up", "is too short: the frame underflows float (give a unit vector)");
  if (frame == FrameProblem::up_parallel)
    rd.fail(p + (j.contains("up") ? "/up" : "/origin"),
            j.contains("up") ? "must not be parallel to the viewing direction"
                             : "the viewing direction is vertical: give " + p + "/up (the default [0, 1, 0] is parallel to it)");
  if (j.contains("fov_y")) c.fov_y = rd.positive(j["fov_y"], p + "/fov_y");
  if (c.fov_y >= 180.f) rd.fail(p + "/fov_y", "must be < 180 degrees, got " + fmt_number(c.fov_y));
  // Whether the image fits in memory is checked by the command line, against the machine.
  if (j.contains("width")) c.width = int(rd.integer(j["width"], p + "/width", 1, kMaxFilmSize));
  if (j.contains("height")) c.height = int(rd.integer(j["height"], p + "/height", 1, kMaxFilmSize));
  // Mitsuba's orthographic film: [-1, 1] across, its aspect ratio's share up.
  c.half_width = j.contains("half_width") ? rd.positive(j["half_width"], p + "/half_width") : 1.f;
  c.half_height = j.contains("half_height") ? rd.positive(j["half_height"], p + "/half_height")
                                             : c.half_width * float(c.height) / float(c.width);
  if (c.kind == CameraKind::thinlens) {
    if (!j.contains("aperture_radius")) rd.fail(p + "/aperture_radius", "required key of a thinlens camera is missing");
    c.aperture_radius = rd.positive(j["aperture_radius"], p + "/aperture_radius");
    // Mitsuba's default: the far clip plane (10^4 without one).
    c.focus_distance = j.contains("focus_distance") ? rd.positive(j["focus_distance"], p + "/focus_distance")
                                                    : (std::isfinite(c.far_clip) ? c.far_clip : 1e4f);
  }
  return c;
}

namespace {

// The camera's scalar parameters (kNoSlot where its type has none) and the settings holding them.
constexpr std::pair<Slot Camera::*, float CameraSettings::*> kScalars[] = {
    {&Camera::fov_y, &CameraSettings::fov_y},
    {&Camera::half_width, &CameraSettings::half_width},
    {&Camera::half_height, &CameraSettings::half_height},
    {&Camera::aperture_radius, &CameraSettings::aperture_radius},
    {&Camera::focus_distance, &CameraSettings::focus_distance}};

// What a camera and its settings both hold as constants: type, film, principal point, clips.
template <class From, class To>
void copy_constants(const From& from, To& to) {
  to.kind = from.kind;
  to.offset_x = from.offset_x;
  to.offset_y = from.offset_y;
  to.near_clip = from.near_clip;
  to.far_clip = from.far_clip;
  to.width = from.width;
  to.height = from.height;
}

}  // namespace

nlohmann::json camera_json(const CameraSettings& c) {
  auto v3 = [](const glm::vec3& v) { return nlohmann::json{v.x, v.y, v.z}; };
  nlohmann::json j = {{"origin", v3(c.origin)}, {"target", v3(c.target)}, {"up", v3(c.up)}, {"width", c.width},
                      {"height", c.height}};
  if (c.kind != CameraKind::perspective) j["type"] = camera_kind_name(c.kind);
  if (c.kind == CameraKind::orthographic) {
    j["half_width"] = c.half_width;
    j["half_height"] = c.half_height;
  } else {
    j["fov_y"] = c.fov_y;
  }
  if (c.kind == CameraKind::thinlens) {
    j["aperture_radius"] = c.aperture_radius;
    j["focus_distance"] = c.focus_distance;
  }
  if (c.offset_x != 0.f || c.offset_y != 0.f) j["principal_point_offset"] = {c.offset_x, c.offset_y};
  if (c.near_clip != 0.f) j["near_clip"] = c.near_clip;
  if (std::isfinite(c.far_clip)) j["far_clip"] = c.far_clip;
  return j;
}

std::string sensor_prefix(const Scene& scene, size_t index) {
  return index == 0 ? "camera" : "sensors." + scene.sensors[index].name;
}

int add_sensor(Scene& scene, const std::string& name, const CameraSettings& c) {
  const bool first = scene.sensors.size() == 1 && scene.sensors[0].camera.origin == kNoSlot;
  if (!first)
    for (const Sensor& other : scene.sensors)
      if (other.name == name) throw LoadError("a sensor named \"" + name + "\" exists already: sensor names are unique");
  if (!first) scene.sensors.emplace_back();
  const size_t index = scene.sensors.size() - 1;
  scene.sensors[index].name = name;
  const std::string p = sensor_prefix(scene, index);
  Camera& cam = scene.sensors[index].camera;
  cam = Camera{};
  copy_constants(c, cam);
  cam.origin = scene.params.add(p + ".origin", c.origin);
  cam.target = scene.params.add(p + ".target", c.target);
  cam.up = scene.params.add(p + ".up", c.up);
  if (c.kind == CameraKind::orthographic) {
    cam.half_width = scene.params.add(p + ".half_width", c.half_width, Domain::positive());
    cam.half_height = scene.params.add(p + ".half_height", c.half_height, Domain::positive());
  } else {
    cam.fov_y = scene.params.add(p + ".fov_y", c.fov_y, Domain::open(0, 180));
  }
  if (c.kind == CameraKind::thinlens) {
    cam.aperture_radius = scene.params.add(p + ".aperture_radius", c.aperture_radius, Domain::positive());
    cam.focus_distance = scene.params.add(p + ".focus_distance", c.focus_distance, Domain::positive());
  }
  return int(index);
}

int sensor_index(const Scene& scene, const std::string& which) {
  std::string names;
  for (size_t i = 0; i < scene.sensors.size(); ++i) {
    if (scene.sensors[i].name == which || std::to_string(i) == which) return int(i);
    names += (i ? ", " : "") + std::to_string(i) + " (" + scene.sensors[i].name + ")";
  }
  throw LoadError("no sensor \"" + which + "\": the scene has " + names);
}

CameraSettings camera_settings(const Scene& scene, int index) {
  const Camera& cam = scene.sensors[size_t(index < 0 ? scene.sensor : index)].camera;
  CameraSettings c;
  copy_constants(cam, c);
  c.origin = scene.params.get_vec3(cam.origin);
  c.target = scene.params.get_vec3(cam.target);
  c.up = scene.params.get_vec3(cam.up);
  for (const auto& [slot, value] : kScalars)
    if (cam.*slot != kNoSlot) c.*value = scene.params.get(cam.*slot);
  return c;
}

}  // namespace dray
