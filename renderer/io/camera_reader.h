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
  CameraKind kind = CameraKind::perspective;
  glm::vec3 origin{0.f}, target{0.f, 0.f, -1.f}, up{0.f, 1.f, 0.f};
  float fov_y = 40.f;  // degrees, vertical (perspective, thinlens)
  float half_width = 1.f, half_height = 0.75f;           // orthographic
  float aperture_radius = 0.f, focus_distance = 0.f;     // thinlens
  float offset_x = 0.f, offset_y = 0.f, near_clip = 0.f, far_clip = INFINITY;
  int width = 320, height = 240;
  bool operator==(const CameraSettings&) const = default;
};

// A camera type's name in scene files ("perspective", "thinlens", "orthographic").
const char* camera_kind_name(CameraKind k);

// The camera object `j` at JSON pointer `p`, checked (errors name the file and key).
CameraSettings read_camera(const JsonReader& rd, const nlohmann::json& j, const std::string& p);

// The camera as a scene file's /camera (read_camera's inverse; Mitsuba's defaults left out).
nlohmann::json camera_json(const CameraSettings& c);
// Registers the camera's parameters (camera.origin, …) and sets its film and constants.
void add_camera(Scene& scene, const CameraSettings& c);
// The scene's camera as it stands.
CameraSettings camera_settings(const Scene& scene);
// The scene's camera parameters and film size set to `c` (the camera's slots must exist: `c`
// is of the scene camera's type).
void set_camera(Scene& scene, const CameraSettings& c);

}  // namespace dray
