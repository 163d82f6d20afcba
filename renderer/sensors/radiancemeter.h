#pragma once
// Mitsuba 3's `radiancemeter`: the radiance arriving at the frame's origin along its viewing
// direction, one ray whatever the film sample (the limit of a perspective camera as its field of
// view tends to zero), on a film of 1 × 1 pixels. It has no parameters of its own (its origin and
// target are the camera's) and no film area: a moving edge crosses its ray at one instant, so
// derivatives have no boundary term; no light path connects to it (ptracer renders it black, as
// Mitsuba's, whose radiancemeter samples no direction). Its ray is not clipped (Mitsuba's has no
// clip planes).
#include <string_view>

#include "renderer/sensors/meter.h"

namespace dray {

struct RadianceMeterSensor : MeterSensor {
  static constexpr std::string_view kPlugins[] = {"radiancemeter"};
  static constexpr bool kAperture = false, kPosition = false, kPinholeDifferentials = true, kFieldOfView = false;
  static constexpr bool kLightPaths = true;
  static constexpr SensorEdges kEdges = SensorEdges::none;
  static RadianceMeterSensor read(SensorProps& p) {
    p.keys({});
    require_one_pixel(p, "a radiancemeter");
    return {};
  }

  template <class T>
  RayT<T> ray(const SensorFrame<T>& f, const FilmSample&) const {
    return {f.origin, f.forward};
  }
};

}  // namespace dray
