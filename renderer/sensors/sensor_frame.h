#pragma once
// What every sensor plugin works on: the camera's frame in T (built once per pass from the
// parameters, camera.h), a film sample, a world point's film position, and a point's link to the
// camera for light tracing.
#include <array>
#include <cmath>
#include <string_view>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "renderer/core/param_table.h"
#include "renderer/core/ray.h"
#include "renderer/core/vec.h"

namespace dray {

// The frame looking from `origin` (forward, right and up unit), the film's half extent (on the
// plane at unit depth for a camera with an eye, in world units for a parallel one), a lens's
// aperture radius and focus depth; and the constants: film size, principal point offset (in
// fractions of the film) and clip distances along the viewing direction.
template <class T>
struct SensorFrame {
  Vec3<T> origin, forward, right, up;
  T half_w = T(0.f), half_h = T(0.f);
  T aperture = T(0.f), focus = T(1.f);
  float width = 0.f, height = 0.f;
  float offset_x = 0.f, offset_y = 0.f, near_clip = 0.f, far_clip = INFINITY;
};

// The frame's sixteen entries that carry derivatives: origin, forward, right, up, half_w, half_h,
// aperture, focus.
inline constexpr int kCameraEntries = 16;
template <class T>
T& camera_entry(SensorFrame<T>& f, int k) {
  Vec3<T>* v[4] = {&f.origin, &f.forward, &f.right, &f.up};
  T* s[4] = {&f.half_w, &f.half_h, &f.aperture, &f.focus};
  return k < 12 ? (*v[k / 3])[k % 3] : *s[k - 12];
}

// A sensor plugin's scalar parameters by key (unused entries kNoSlot).
struct SensorScalar {
  std::string_view key;
  Slot slot = kNoSlot;
};
using SensorScalars = std::array<SensorScalar, 3>;

// A camera sample: a film position (pixels from the top-left corner) and, for a thin lens, a
// point of the unit disk on its aperture.
struct FilmSample {
  float x = 0.f, y = 0.f;
  glm::vec2 lens{0.f};
  glm::vec2 position{0.5f};  // a sensor that samples a surface (kPosition): two uniform numbers for its point
};

// Where a world point lands on the film (pixels from the top-left corner) and its depth along the
// viewing direction (> 0: in front of the camera).
template <class T>
struct FilmPoint {
  T x, y, depth;
};

// A point's link to the camera (light tracing): where it lands on the film, the unit direction
// toward the camera's eye, the shadow ray's length, and the film's Jacobian (the importance per
// unit of the point's own cosine).
struct CameraLink {
  glm::vec2 film{0.f};
  glm::vec3 to_camera{0.f};
  float distance = 0.f, importance = 0.f;
};

// Film sample s in normalized coordinates: [-1, 1] across, +1 at the top, shifted by the
// principal point's offset.
template <class T>
glm::vec2 film_ndc(const SensorFrame<T>& f, const FilmSample& s) {
  return {2.f * (s.x / f.width + f.offset_x) - 1.f, 1.f - 2.f * (s.y / f.height + f.offset_y)};
}

// Ray r starting at the near clip plane and ending at the far one, `along` its direction's
// component on the viewing direction.
template <class T>
RayT<T> clip_ray(const SensorFrame<T>& f, RayT<T> r, const T& along) {
  if (f.near_clip > 0.f) r.o = r.o + r.d * (T(f.near_clip) / along);
  if (std::isfinite(f.far_clip)) r.t_max = value(T(f.far_clip - f.near_clip) / along);
  return r;
}

// The film area of one pixel on the plane at unit depth (or in world units, parallel).
inline float pixel_area(const SensorFrame<float>& f) { return (2.f * f.half_w / f.width) * (2.f * f.half_h / f.height); }

// How a sensor's film meets the boundary term (edges moving across pixels): projected onto the
// film; refused (a thin lens: every aperture point sees its own silhouettes); or absent (no film
// area: an edge crosses the measured ray at one instant, a zero-measure event).
enum class SensorEdges { projected, refused, none };

}  // namespace dray
