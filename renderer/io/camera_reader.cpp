#include "renderer/io/camera_reader.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <glm/geometric.hpp>

#include "renderer/core/registry.h"
#include "renderer/io/json_props.h"
#include "renderer/scene_params.h"
#include "renderer/scene_sensors.h"

namespace dray {

namespace {

// The keys every camera takes besides its plugin's (medium, name: the loader's).
const std::vector<std::string> kCommonKeys{"origin", "target", "up", "principal_point_offset", "near_clip", "far_clip",
                                           "width", "height", "medium", "name"};

// A sensor plugin's keys from its camera object, its parameters named prefix + key.
class JsonSensorProps final : public JsonProps<SensorProps> {
 public:
  JsonSensorProps(const JsonReader& rd, ParamTable& table, const nlohmann::json& j, const std::string& p,
                  const std::string& prefix, const std::string& type, const SensorFilm& film)
      : JsonProps(rd, table, j, p, prefix, kCommonKeys, type), film_(film) {}
  const SensorFilm& film() const override { return film_; }

 private:
  SensorFilm film_;
};

// The plugin the camera object names (perspective without a type).
SensorModel read_model(const JsonReader& rd, ParamTable& table, const nlohmann::json& j, const std::string& p,
                       const std::string& prefix, const SensorFilm& film) {
  const std::string type = j.contains("type") ? rd.string(j["type"], p + "/type") : "perspective";
  const auto read = plugin_reader<SensorModel, SensorProps>(type);
  if (!read) rd.fail(p + "/type", "unknown camera type \"" + type + "\" (expected one of: " + plugin_names<SensorModel>() + ")");
  JsonSensorProps props(rd, table, j, p, prefix, type, film);
  return read(props);
}

SensorScalars scalars_of(const SensorModel& m) {
  return std::visit([](const auto& s) { return s.scalars(); }, m);
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

// The frame from origin, target and up; Mitsuba's default sensor sits at the origin looking along +z.
void read_frame(const JsonReader& rd, const nlohmann::json& j, const std::string& p, CameraSettings& c) {
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
}

}  // namespace

float& CameraSettings::value(const std::string& key) {
  for (auto& [k, v] : values)
    if (k == key) return v;
  throw LoadError("a " + type + " camera has no parameter \"" + key + "\"");
}

CameraSettings read_camera(const JsonReader& rd, const nlohmann::json& j, const std::string& p) {
  if (!j.is_object()) rd.fail(p, std::string("must be an object, got ") + j.type_name());
  CameraSettings c;
  read_lens_extras(rd, j, p, c);
  read_frame(rd, j, p, c);
  // Whether the image fits in memory is checked by the command line, against the machine.
  if (j.contains("width")) c.width = int(rd.integer(j["width"], p + "/width", 1, kMaxFilmSize));
  if (j.contains("height")) c.height = int(rd.integer(j["height"], p + "/height", 1, kMaxFilmSize));
  // The plugin checks its keys and fills its defaults, on a table of its own.
  ParamTable scratch;
  const SensorModel model = read_model(rd, scratch, j, p, "", {c.width, c.height, c.near_clip, c.far_clip});
  c.type = std::string(sensor_type(model));
  for (const SensorScalar& s : scalars_of(model))
    if (s.slot != kNoSlot) c.values.emplace_back(std::string(s.key), scratch.get(s.slot));
  for (auto it = j.begin(); it != j.end(); ++it) {
    const bool common = it.key() == "type" || std::find(kCommonKeys.begin(), kCommonKeys.end(), it.key()) != kCommonKeys.end();
    const bool scalar = std::any_of(c.values.begin(), c.values.end(), [&](const auto& v) { return v.first == it.key(); });
    if (!common && !scalar) c.constants[it.key()] = it.value();
  }
  return c;
}

nlohmann::json camera_json(const CameraSettings& c) {
  auto v3 = [](const glm::vec3& v) { return nlohmann::json{v.x, v.y, v.z}; };
  nlohmann::json j = {{"origin", v3(c.origin)}, {"target", v3(c.target)}, {"up", v3(c.up)}, {"width", c.width},
                      {"height", c.height}};
  if (c.type != "perspective") j["type"] = c.type;
  for (const auto& [key, value] : c.values) j[key] = value;
  j.update(c.constants);
  if (c.offset_x != 0.f || c.offset_y != 0.f) j["principal_point_offset"] = {c.offset_x, c.offset_y};
  if (c.near_clip != 0.f) j["near_clip"] = c.near_clip;
  if (std::isfinite(c.far_clip)) j["far_clip"] = c.far_clip;
  return j;
}

std::string sensor_prefix(const Scene& scene, size_t index) {
  return index == 0 ? "camera" : "sensors." + scene.sensors[index].name;
}

namespace {

// What a camera and its settings both hold as constants: film, principal point, clips.
template <class From, class To>
void copy_constants(const From& from, To& to) {
  std::tie(to.offset_x, to.offset_y, to.near_clip, to.far_clip, to.width, to.height) =
      std::tie(from.offset_x, from.offset_y, from.near_clip, from.far_clip, from.width, from.height);
}

}  // namespace

int add_sensor(Scene& scene, const std::string& name, const CameraSettings& c) {
  const bool first = scene.sensors.size() == 1 && scene.sensors[0].camera.origin == kNoSlot;
  if (!first)
    for (const Sensor& other : scene.sensors)
      if (other.name == name) throw LoadError("a sensor named \"" + name + "\" exists already: sensor names are unique");
  if (!first) scene.sensors.emplace_back();
  const size_t index = scene.sensors.size() - 1;
  scene.sensors[index].name = name;
  scene.sensors[index].constants = c.constants.dump();
  const std::string p = sensor_prefix(scene, index);
  Camera& cam = scene.sensors[index].camera;
  cam = Camera{};
  copy_constants(c, cam);
  cam.origin = scene.params.add(p + ".origin", c.origin);
  cam.target = scene.params.add(p + ".target", c.target);
  cam.up = scene.params.add(p + ".up", c.up);
  cam.model = read_model(JsonReader(scene.path), scene.params, camera_json(c), "/camera", p + ".",
                         {c.width, c.height, c.near_clip, c.far_clip});
  // Added to a built scene (a job's view, Python): what it measures over is placed now.
  if (measures_scene(cam.model) && !scene.bvh.world().prim_refs().empty()) place_sensors(scene);
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
  c.type = std::string(sensor_type(cam.model));
  const std::string& constants = scene.sensors[size_t(index < 0 ? scene.sensor : index)].constants;
  if (!constants.empty()) c.constants = nlohmann::json::parse(constants);
  c.origin = scene.params.get_vec3(cam.origin);
  c.target = scene.params.get_vec3(cam.target);
  c.up = scene.params.get_vec3(cam.up);
  for (const SensorScalar& s : scalars_of(cam.model))
    if (s.slot != kNoSlot) c.values.emplace_back(std::string(s.key), scene.params.get(s.slot));
  return c;
}

}  // namespace dray
