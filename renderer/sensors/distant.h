#pragma once
// Mitsuba 3's `distant`: the radiance leaving the scene along one direction (the camera's viewing
// direction; Mitsuba's to_world +z or `direction`), averaged over the cross-section of the
// scene's bounding ball (its rays start outside the ball, their origins uniform on the disk the
// ball shows that direction, from the aperture sample) or aimed at one point, `target_point`
// (Mitsuba's `target` point). Its film is 1 x 1 pixels, as Mitsuba's. Its measurement integrates
// over the disk, so moving edges change it: derivatives by parameters that move edges are refused
// (kEdges), and no light path connects to it (ptracer refuses it: Mitsuba's samples no direction).
// Mitsuba's target shape (a shape nested in the sensor, not part of the scene) is not supported.
#include <optional>
#include <string_view>

#include <glm/vec4.hpp>

#include "renderer/sensors/meter.h"
#include "renderer/sensors/sensor_surface.h"

namespace dray {

struct DistantSensor : MeterSensor {
  static constexpr std::string_view kPlugins[] = {"distant"};
  static constexpr bool kAperture = true, kPosition = false, kPinholeDifferentials = false, kFieldOfView = false;
  static constexpr bool kLightPaths = false;
  static constexpr SensorEdges kEdges = SensorEdges::refused;
  static DistantSensor read(SensorProps& p) {
    p.keys({"target_point"});
    require_one_pixel(p, "a distant sensor");
    DistantSensor s;
    if (p.has("target_point")) s.target = p.vec3_value("target_point");
    return s;
  }

  std::optional<glm::vec3> target;  // the point rays aim at; none: the ball's cross-section
  SensorSurfaceRef surface;         // the scene's ball (Scene::build_geometry)

  template <class T>
  RayT<T> ray(const SensorFrame<T>& f, const FilmSample& s) const {
    const glm::vec4 ball = surface ? surface->scene_ball : glm::vec4(0.f, 0.f, 0.f, 1.f);
    const T r(ball.w);
    if (target) return {Vec3<T>(*target) - f.forward * (T(2.f) * r), f.forward};
    // Mitsuba's to_world x axis is the image's left: -right.
    const Vec3<T> offset = f.up * T(s.lens.y) - f.right * T(s.lens.x);
    return {Vec3<T>(glm::vec3(ball)) + (offset - f.forward) * r, f.forward};
  }
  // Edges are seen from the direction it looks from.
  glm::vec4 seen_from(const SensorFrame<float>& f) const { return glm::vec4(-to_glm(f.forward), 0.f); }
};

}  // namespace dray
