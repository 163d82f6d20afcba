#pragma once
// Mitsuba 3's `irradiancemeter`: the irradiance (incident power per unit area) averaged over the
// surface of the shape it is attached to (`shape`, a shape's name; in Mitsuba's XML, the sensor
// nested in its shape). A ray starts at a point uniform in area over the shape (the position
// sample) and leaves it cosine-distributed about the geometric normal (the aperture sample lifted
// to the hemisphere, Mitsuba's square_to_cosine_hemisphere), weighed by π. Its film is 1 x 1
// pixels. Derivatives by parameters that move edges are refused (kEdges), and so is ptracer.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "renderer/core/frame.h"
#include "renderer/core/ray_offset.h"
#include "renderer/sensors/meter.h"
#include "renderer/sensors/sensor_surface.h"

namespace dray {

struct IrradianceMeterSensor : MeterSensor {
  static constexpr std::string_view kPlugins[] = {"irradiancemeter"};
  static constexpr bool kAperture = true, kPosition = true, kPinholeDifferentials = false, kFieldOfView = false;
  static constexpr bool kLightPaths = false;
  static constexpr SensorEdges kEdges = SensorEdges::refused;
  static IrradianceMeterSensor read(SensorProps& p) {
    p.keys({"shape"}, {"shape"});
    require_one_pixel(p, "an irradiance meter");
    IrradianceMeterSensor s;
    s.shape = p.string("shape");
    return s;
  }

  std::string shape;         // the name of the shape it measures over
  SensorSurfaceRef surface;  // that shape's primitives (Scene::build_geometry)

  // A path's weight: π (the cosine-weighted hemisphere's pdf, cos / π, against irradiance's cos).
  static constexpr float kWeight = float(M_PI);

  template <class T>
  RayT<T> ray(const SensorFrame<T>&, const FilmSample& s) const {
    const SurfacePoint<float> ps = surface->sample(s.position);
    const float z = std::sqrt(std::max(0.f, 1.f - s.lens.x * s.lens.x - s.lens.y * s.lens.y));
    const Frame<float> frame(ps.n);
    const glm::vec3 p = to_glm(ps.p), d = to_glm(frame.to_world(Vec3<float>(s.lens.x, s.lens.y, z)));
    return {Vec3<T>(p + d * detail::ray_epsilon(p)), Vec3<T>(d)};
  }
};

}  // namespace dray
