#pragma once
// Mitsuba 3's `perspective`: a pinhole at the frame's origin, `fov_y` (degrees, vertical) its
// field of view, a parameter. The pinhole's projection, its link to a point and its film motion
// serve the lens camera and the parallel one too.
#include <optional>
#include <string_view>

#include <glm/geometric.hpp>
#include <glm/vec4.hpp>

#include "renderer/core/load_error.h"
#include "renderer/sensors/sensor_frame.h"
#include "renderer/sensors/sensor_props.h"

namespace dray {

// The point at unit depth film sample s looks at.
template <class T>
Vec3<T> pinhole_target(const SensorFrame<T>& f, const FilmSample& s) {
  const glm::vec2 ndc = film_ndc(f, s);
  return f.forward + f.right * (f.half_w * T(ndc.x)) + f.up * (f.half_h * T(ndc.y));
}

// Where p lands on the film of a camera whose rays leave one eye (scale: p's depth) or run
// parallel (scale 1).
template <class T>
FilmPoint<T> film_point(const SensorFrame<T>& f, const Vec3<T>& d, const T& z, const T& scale) {
  const T sx = dot(d, f.right) / (scale * f.half_w), sy = dot(d, f.up) / (scale * f.half_h);
  return {(sx + T(1.f)) * T(0.5f * f.width) - T(f.offset_x * f.width),
          (T(1.f) - sy) * T(0.5f * f.height) - T(f.offset_y * f.height), z};
}

// A point's film motion as it moves by dp, through x = W/2 (1 + X / (Z hw)), y = H/2 (1 - Y / (Z hh))
// (Z its depth and dZ its change through an eye; 1 and 0 for a parallel camera).
inline glm::vec2 film_motion(const SensorFrame<float>& f, const glm::vec3& p, const glm::vec3& dp, float Z, float dZ) {
  const glm::vec3 d = p - to_glm(f.origin);
  const float X = glm::dot(d, to_glm(f.right)), Y = glm::dot(d, to_glm(f.up));
  const float dX = glm::dot(dp, to_glm(f.right)), dY = glm::dot(dp, to_glm(f.up));
  return {0.5f * f.width / f.half_w * (dX * Z - X * dZ) / (Z * Z), -0.5f * f.height / f.half_h * (dY * Z - Y * dZ) / (Z * Z)};
}

// Point p seen from `eye` through film point `aim` (p itself for a pinhole): the link's film
// point, direction and length to the near plane, and the pinhole's Jacobian 1 / (d² cos³θ a).
inline bool pinhole_link(const SensorFrame<float>& f, const glm::vec3& eye, const glm::vec3& aim, const glm::vec3& p,
                         CameraLink& out) {
  const float depth = glm::dot(p - to_glm(f.origin), to_glm(f.forward));
  const Vec3<float> d_aim = Vec3<float>(aim) - f.origin;
  const float z_aim = dot(d_aim, f.forward);
  const FilmPoint<float> q = film_point(f, d_aim, z_aim, z_aim);
  if (!(depth > f.near_clip && depth < f.far_clip)) return false;
  out.film = {q.x, q.y};
  const glm::vec3 d = eye - p;
  const float dist = glm::length(d);
  const float cos_c = depth / dist;
  out.to_camera = d / dist;
  out.distance = dist * (1.f - f.near_clip / depth);  // to the near plane
  out.importance = 1.f / (dist * dist * cos_c * cos_c * cos_c * pixel_area(f));
  return true;
}

struct PerspectiveSensor {
  static constexpr std::string_view kPlugins[] = {"perspective"};
  static constexpr bool kAperture = false, kPosition = false, kPinholeDifferentials = true, kFieldOfView = true;
  static constexpr bool kLightPaths = true;
  static constexpr SensorEdges kEdges = SensorEdges::projected;
  static PerspectiveSensor read(SensorProps& p) {
    p.keys({"fov_y"});
    return {read_fov(p)};
  }
  // The vertical field of view, Mitsuba's default 40 degrees (perspective and thin lens).
  static Slot read_fov(SensorProps& p) {
    const float fov = p.has("fov_y") ? float(p.number("fov_y")) : 40.f;
    if (!(fov > 0.f)) p.fail("fov_y", "must be > 0, got " + fmt_number(fov));
    if (!(fov < 180.f)) p.fail("fov_y", "must be < 180 degrees, got " + fmt_number(fov));
    return p.param("fov_y", fov, Domain::open(0, 180));
  }

  Slot fov_y = kNoSlot;

  SensorScalars scalars() const { return {{{"fov_y", fov_y}}}; }
  template <class T>
  void extent(const ParamView<T>& P, SensorFrame<T>& f) const {
    using ad::tan;
    f.half_h = tan(P.scalar(fov_y) * T(kPi / 360.f));
    f.half_w = f.half_h * T(f.width / f.height);
  }
  template <class T>
  RayT<T> ray(const SensorFrame<T>& f, const FilmSample& s) const {
    RayT<T> r{f.origin, normalize(pinhole_target(f, s))};
    if (f.near_clip > 0.f || std::isfinite(f.far_clip)) return clip_ray(f, r, dot(r.d, f.forward));
    return r;
  }
  template <class T>
  FilmPoint<T> project(const SensorFrame<T>& f, const Vec3<T>& p) const {
    const Vec3<T> d = p - f.origin;
    const T z = dot(d, f.forward);
    return film_point(f, d, z, z);
  }
  glm::vec4 seen_from(const SensorFrame<float>& f) const { return glm::vec4(to_glm(f.origin), 1.f); }
  std::optional<glm::vec3> eye(const SensorFrame<float>& f, glm::vec2) const { return to_glm(f.origin); }
  bool link(const SensorFrame<float>& f, const glm::vec3& p, glm::vec2, CameraLink& out) const {
    return pinhole_link(f, to_glm(f.origin), p, p, out);
  }
  glm::vec2 motion(const SensorFrame<float>& f, const glm::vec3& p, const glm::vec3& dp, float depth) const {
    return film_motion(f, p, dp, depth, glm::dot(dp, to_glm(f.forward)));
  }
};

}  // namespace dray
