#pragma once
// Mitsuba 3's `radiancemeter`: the radiance arriving at the frame's origin along its viewing
// direction, one ray whatever the film sample (the limit of a perspective camera as its field of
// view tends to zero), on a film of 1 × 1 pixels. It has no parameters of its own (its origin and
// target are the camera's) and no film area: a moving edge crosses its ray at one instant, so
// derivatives have no boundary term; no light path connects to it (ptracer renders it black, as
// Mitsuba's, whose radiancemeter samples no direction). Its ray is not clipped (Mitsuba's has no
// clip planes).
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include <glm/vec4.hpp>

#include "renderer/sensors/sensor_frame.h"
#include "renderer/sensors/sensor_props.h"

namespace dray {

struct RadianceMeterSensor {
  static constexpr std::string_view kPlugins[] = {"radiancemeter"};
  static constexpr bool kAperture = false, kPinholeDifferentials = true, kFieldOfView = false;
  static constexpr SensorEdges kEdges = SensorEdges::none;
  static RadianceMeterSensor read(SensorProps& p) {
    p.keys({});
    const SensorFilm& film = p.film();
    if (film.width != 1 || film.height != 1)
      p.fail("width", "a radiancemeter's film is 1 x 1 pixels (as Mitsuba's), got " + std::to_string(film.width) + " x " +
                          std::to_string(film.height));
    return {};
  }

  SensorScalars scalars() const { return {}; }
  template <class T>
  void extent(const ParamView<T>&, SensorFrame<T>&) const {}
  template <class T>
  RayT<T> ray(const SensorFrame<T>& f, const FilmSample&) const {
    return {f.origin, f.forward};
  }
  // No point lands on a film of no area.
  template <class T>
  FilmPoint<T> project(const SensorFrame<T>& f, const Vec3<T>& p) const {
    return {T(NAN), T(NAN), dot(p - f.origin, f.forward)};
  }
  glm::vec4 seen_from(const SensorFrame<float>& f) const { return glm::vec4(to_glm(f.origin), 1.f); }
  std::optional<glm::vec3> eye(const SensorFrame<float>&, glm::vec2) const { return std::nullopt; }
  bool link(const SensorFrame<float>&, const glm::vec3&, glm::vec2, CameraLink&) const { return false; }
  glm::vec2 motion(const SensorFrame<float>&, const glm::vec3&, const glm::vec3&, float) const { return glm::vec2(0.f); }
};

}  // namespace dray
