#pragma once
// Mitsuba 3's `orthographic`: parallel rays along the viewing direction from a film of
// `half_width` × `half_height` (world units, both parameters; Mitsuba's film spans [-1, 1] across,
// so half_width defaults to 1 and half_height to its aspect ratio's share).
#include "renderer/sensors/perspective.h"

namespace dray {

struct OrthographicSensor {
  static constexpr std::string_view kPlugins[] = {"orthographic"};
  static constexpr bool kAperture = false, kPosition = false, kPinholeDifferentials = false, kFieldOfView = false;
  static constexpr bool kLightPaths = true;
  static constexpr SensorEdges kEdges = SensorEdges::projected;
  static OrthographicSensor read(SensorProps& p) {
    p.keys({"half_width", "half_height"});
    const SensorFilm& film = p.film();
    const float half_w = p.has("half_width") ? float(p.number("half_width")) : 1.f;
    if (!(half_w > 0.f)) p.fail("half_width", "must be > 0, got " + fmt_number(half_w));
    const float half_h = p.has("half_height") ? float(p.number("half_height")) : half_w * float(film.height) / float(film.width);
    if (!(half_h > 0.f)) p.fail("half_height", "must be > 0, got " + fmt_number(half_h));
    return {p.param("half_width", half_w, Domain::positive()), p.param("half_height", half_h, Domain::positive())};
  }

  Slot half_width = kNoSlot, half_height = kNoSlot;

  SensorScalars scalars() const { return {{{"half_width", half_width}, {"half_height", half_height}}}; }
  template <class T>
  void extent(const ParamView<T>& P, SensorFrame<T>& f) const {
    f.half_w = P.scalar(half_width);
    f.half_h = P.scalar(half_height);
  }
  template <class T>
  RayT<T> ray(const SensorFrame<T>& f, const FilmSample& s) const {
    const glm::vec2 ndc = film_ndc(f, s);
    const RayT<T> r{f.origin + f.right * (f.half_w * T(ndc.x)) + f.up * (f.half_h * T(ndc.y)), f.forward};
    return clip_ray(f, r, T(1.f));
  }
  template <class T>
  FilmPoint<T> project(const SensorFrame<T>& f, const Vec3<T>& p) const {
    const Vec3<T> d = p - f.origin;
    return film_point(f, d, dot(d, f.forward), T(1.f));
  }
  // No eye: the camera sees from the direction it looks from.
  glm::vec4 seen_from(const SensorFrame<float>& f) const { return glm::vec4(-to_glm(f.forward), 0.f); }
  std::optional<glm::vec3> eye(const SensorFrame<float>&, glm::vec2) const { return std::nullopt; }
  bool link(const SensorFrame<float>& f, const glm::vec3& p, glm::vec2, CameraLink& out) const {
    const float depth = glm::dot(p - to_glm(f.origin), to_glm(f.forward));
    const FilmPoint<float> q = project(f, Vec3<float>(p));
    if (!(depth > f.near_clip && depth < f.far_clip)) return false;
    out.film = {q.x, q.y};
    out.to_camera = -to_glm(f.forward);
    out.distance = depth - f.near_clip;
    out.importance = 1.f / pixel_area(f);
    return true;
  }
  glm::vec2 motion(const SensorFrame<float>& f, const glm::vec3& p, const glm::vec3& dp, float) const {
    return film_motion(f, p, dp, 1.f, 0.f);
  }
};

}  // namespace dray
