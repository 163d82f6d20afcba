#pragma once
// Mitsuba 3's `thinlens`: a perspective camera (perspective.h) whose rays leave a disk of
// `aperture_radius` about its origin and meet on the plane at `focus_distance` (Mitsuba's default:
// the far clip distance, 10^4 without one); both parameters. Each film sample draws an aperture
// point (concentric_disk of two uniforms, as Mitsuba's).
#include "renderer/sensors/perspective.h"

namespace dray {

struct ThinLensSensor {
  static constexpr std::string_view kPlugins[] = {"thinlens"};
  static constexpr bool kAperture = true, kPosition = false, kPinholeDifferentials = false, kFieldOfView = true;
  static constexpr bool kLightPaths = true;
  // Every aperture point sees its own silhouettes (Mitsuba's projective integrators refuse it too).
  static constexpr SensorEdges kEdges = SensorEdges::refused;
  static ThinLensSensor read(SensorProps& p) {
    p.keys({"fov_y", "aperture_radius", "focus_distance"}, {"aperture_radius"});
    ThinLensSensor s;
    s.fov_y = PerspectiveSensor::read_fov(p);
    const float radius = float(p.number("aperture_radius"));
    if (!(radius > 0.f)) p.fail("aperture_radius", "must be > 0, got " + fmt_number(radius));
    s.aperture_radius = p.param("aperture_radius", radius, Domain::positive());
    const float far = p.film().far_clip;
    const float focus = p.has("focus_distance") ? float(p.number("focus_distance")) : (std::isfinite(far) ? far : 1e4f);
    if (!(focus > 0.f)) p.fail("focus_distance", "must be > 0, got " + fmt_number(focus));
    s.focus_distance = p.param("focus_distance", focus, Domain::positive());
    return s;
  }

  Slot fov_y = kNoSlot, aperture_radius = kNoSlot, focus_distance = kNoSlot;

  SensorScalars scalars() const {
    return {{{"fov_y", fov_y}, {"aperture_radius", aperture_radius}, {"focus_distance", focus_distance}}};
  }
  template <class T>
  void extent(const ParamView<T>& P, SensorFrame<T>& f) const {
    PerspectiveSensor{fov_y}.extent(P, f);
    f.aperture = P.scalar(aperture_radius);
    f.focus = P.scalar(focus_distance);
  }
  // From the aperture point through the film sample's point on the focus plane.
  template <class T>
  RayT<T> ray(const SensorFrame<T>& f, const FilmSample& s) const {
    const Vec3<T> lens = f.right * (f.aperture * T(s.lens.x)) + f.up * (f.aperture * T(s.lens.y));
    RayT<T> r{f.origin + lens, normalize(pinhole_target(f, s) * f.focus - lens)};
    if (f.near_clip > 0.f || std::isfinite(f.far_clip)) return clip_ray(f, r, dot(r.d, f.forward));
    return r;
  }
  template <class T>
  FilmPoint<T> project(const SensorFrame<T>& f, const Vec3<T>& p) const {
    return PerspectiveSensor{}.project(f, p);
  }
  glm::vec4 seen_from(const SensorFrame<float>& f) const { return glm::vec4(to_glm(f.origin), 1.f); }
  // The aperture point of `lens` (a point of the unit disk).
  std::optional<glm::vec3> eye(const SensorFrame<float>& f, glm::vec2 lens) const {
    return to_glm(f.origin + f.right * (f.aperture * lens.x) + f.up * (f.aperture * lens.y));
  }
  // p seen from aperture point e lands where the line from e through p meets the focus plane, seen
  // through the lens's centre (the inverse of ray). The Jacobian is the pinhole's from e: the film
  // at unit depth maps to the focus plane by focus², whose point F is at focus / cos θ from e, so
  // d(film) = dω / cos³θ again; the aperture's pdf 1 / A cancels its 1 / A.
  bool link(const SensorFrame<float>& f, const glm::vec3& p, glm::vec2 lens, CameraLink& out) const {
    const glm::vec3 e = *eye(f, lens);
    const float depth = glm::dot(p - to_glm(f.origin), to_glm(f.forward));
    return pinhole_link(f, e, e + (p - e) * (f.focus / depth), p, out);
  }
  glm::vec2 motion(const SensorFrame<float>& f, const glm::vec3& p, const glm::vec3& dp, float depth) const {
    return PerspectiveSensor{}.motion(f, p, dp, depth);
  }
};

}  // namespace dray
