#pragma once
// Reads a scene's /camera (or a job view's camera: the scene's keys overridden by the view's),
// and adds sensors to a scene. A camera's own keys are its plugin's (sensors/camera.h's registry).
#include <string>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>

#include "renderer/io/json_reader.h"
#include "renderer/scene.h"

namespace dray {

// The largest film side a scene may ask for, JSON and Mitsuba XML alike (whether the image fits
// in memory is checked by the command line, against the machine).
inline constexpr long kMaxFilmSize = 1 << 20;

// A camera as values: its plugin's name and scalar parameters by key (fov_y, half_width, …), and
// what every sensor has.
struct CameraSettings {
  std::string type = "perspective";
  std::vector<std::pair<std::string, float>> values;
  glm::vec3 origin{0.f}, target{0.f, 0.f, -1.f}, up{0.f, 1.f, 0.f};
  float offset_x = 0.f, offset_y = 0.f, near_clip = 0.f, far_clip = INFINITY;
  int width = 320, height = 240;
  // The plugin's keys that are not parameters (a distant sensor's target_point, an irradiance
  // meter's shape), as the camera object gives them.
  nlohmann::json constants = nlohmann::json::object();
  bool operator==(const CameraSettings&) const = default;
  // The value of the plugin's parameter `key` (a LoadError when it has none).
  float& value(const std::string& key);
};

// The camera object `j` at JSON pointer `p`, checked (errors name the file and key).
CameraSettings read_camera(const JsonReader& rd, const nlohmann::json& j, const std::string& p);

// The camera as a scene file's /camera (read_camera's inverse; Mitsuba's defaults left out).
nlohmann::json camera_json(const CameraSettings& c);
// Adds a sensor named `name` with the camera `c` (the first fills the scene's default sensor):
// registers its parameters (camera.origin, … for the first sensor, sensors.NAME.origin, … for
// the others) and sets its film and constants. Returns its index in scene.sensors.
int add_sensor(Scene& scene, const std::string& name, const CameraSettings& c);
// Sensor `index`'s parameter prefix: "camera" or "sensors.NAME".
std::string sensor_prefix(const Scene& scene, size_t index);
// The index of the sensor named `which`, or numbered `which` ("0", "1", …); a LoadError listing
// the sensors when there is none.
int sensor_index(const Scene& scene, const std::string& which);
// Sensor `index`'s camera as it stands (-1: the one renders use).
CameraSettings camera_settings(const Scene& scene, int index = -1);

}  // namespace dray
