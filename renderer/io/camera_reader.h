#pragma once
// Reads a scene's /camera (or a job view's camera: the scene's keys overridden by the view's),
// and sets a scene's camera to given settings (its parameters' values and its film size).
#include <string>

#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>

#include "renderer/io/json_reader.h"
#include "renderer/scene.h"

namespace dray {

// The largest film side a scene may ask for, JSON and Mitsuba XML alike (whether the image fits
// in memory is checked by the command line, against the machine).
inline constexpr long kMaxFilmSize = 1 << 20;

struct CameraSettings {
  glm::vec3 origin{0.f}, target{0.f, 0.f, -1.f}, up{0.f, 1.f, 0.f};
  float fov_y = 40.f;  // degrees, vertical
  int width = 320, height = 240;
  bool operator==(const CameraSettings&) const = default;
};

// The camera object `j` at JSON pointer `p`, checked (errors name the file and key).
CameraSettings read_camera(const JsonReader& rd, const nlohmann::json& j, const std::string& p);

// The scene's camera as it stands.
CameraSettings camera_settings(const Scene& scene);
// The scene's camera parameters and film size set to `c` (the camera's slots must exist).
void set_camera(Scene& scene, const CameraSettings& c);

}  // namespace dray
