#include "renderer/io/camera_reader.h"

#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/scene_params.h"

namespace dray {

CameraSettings read_camera(const JsonReader& rd, const nlohmann::json& j, const std::string& p) {
  rd.object(j, p, {"origin", "target", "up", "fov_y", "width", "height", "medium"});  // medium: the loader's
  CameraSettings c;
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
  return c;
}

CameraSettings camera_settings(const Scene& scene) {
  const Camera& cam = scene.camera;
  return {scene.params.get_vec3(cam.origin), scene.params.get_vec3(cam.target), scene.params.get_vec3(cam.up),
          scene.params.get(cam.fov_y), cam.width, cam.height};
}

void set_camera(Scene& scene, const CameraSettings& c) {
  const Camera& cam = scene.camera;
  for (int k = 0; k < 3; ++k) {
    scene.params.set(cam.origin + Slot(k), c.origin[k]);
    scene.params.set(cam.target + Slot(k), c.target[k]);
    scene.params.set(cam.up + Slot(k), c.up[k]);
  }
  scene.params.set(cam.fov_y, c.fov_y);
  scene.camera.width = c.width;
  scene.camera.height = c.height;
}

}  // namespace dray
