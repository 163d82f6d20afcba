#include "renderer/io/camera_reader.h"

#include <cmath>

#include <glm/geometric.hpp>

namespace dray {

CameraSettings read_camera(const JsonReader& rd, const nlohmann::json& j, const std::string& p) {
  rd.object(j, p, {"origin", "target", "up", "fov_y", "width", "height"}, {"origin", "target"});
  CameraSettings c;
  c.origin = rd.vec3(j["origin"], p + "/origin");
  c.target = rd.vec3(j["target"], p + "/target");
  if (j.contains("up")) c.up = rd.vec3(j["up"], p + "/up");
  if (c.origin == c.target) rd.fail(p + "/target", "must differ from " + p + "/origin");
  const glm::vec3 fwd = c.target - c.origin;
  if (!std::isfinite(glm::length(fwd)))
    rd.fail(p + "/origin", "is too far from " + p + "/target: their distance overflows float (keep coordinates "
                           "within about 1e18)");
  const glm::dvec3 fd(fwd), ud(c.up);
  if (glm::length(glm::cross(fd, ud)) <= 1e-6 * glm::length(fd) * glm::length(ud))
    rd.fail(p + (j.contains("up") ? "/up" : "/origin"),
            j.contains("up") ? "must not be parallel to the viewing direction"
                             : "the viewing direction is vertical: give " + p + "/up (the default [0, 1, 0] is parallel to it)");
  if (j.contains("fov_y")) c.fov_y = rd.positive(j["fov_y"], p + "/fov_y");
  if (c.fov_y >= 180.f) rd.fail(p + "/fov_y", "must be < 180 degrees, got " + fmt_number(c.fov_y));
  // Whether the image fits in memory is checked by the command line, against the machine.
  if (j.contains("width")) c.width = int(rd.integer(j["width"], p + "/width", 1, 1 << 20));
  if (j.contains("height")) c.height = int(rd.integer(j["height"], p + "/height", 1, 1 << 20));
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
