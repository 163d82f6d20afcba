#pragma once
// What Mitsuba's meters share (radiancemeter, distant, irradiancemeter): a film of 1 × 1 pixels
// with no area, so no parameters of their own, nothing projects onto them, no eye, no link to a
// light vertex and no film motion. Each adds its rays (and may say where edges are seen from).
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include <glm/vec4.hpp>

#include "renderer/sensors/sensor_frame.h"
#include "renderer/sensors/sensor_props.h"

namespace dray {

// A meter's film: 1 x 1 pixels, as Mitsuba requires (`what`: "a radiancemeter", …).
inline void require_one_pixel(SensorProps& p, std::string_view what) {
  const SensorFilm& film = p.film();
  if (film.width != 1 || film.height != 1)
    p.fail("width", std::string(what) + "'s film is 1 x 1 pixels (as Mitsuba's), got " + std::to_string(film.width) + " x " +
                        std::to_string(film.height));
}

struct MeterSensor {
  SensorScalars scalars() const { return {}; }
  template <class T>
  void extent(const ParamView<T>&, SensorFrame<T>&) const {}
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
