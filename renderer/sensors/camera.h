#pragma once
// The sensors (Mitsuba's `perspective`, `thinlens`, `orthographic`): a frame looking from `origin`
// at `target`. Rays are generated in the kernel's scalar type: camera parameters carry
// derivatives like any other.
#include <array>
#include <cmath>
#include <utility>

#include <glm/vec2.hpp>

#include "renderer/core/param_table.h"
#include "renderer/core/ray.h"

namespace dray {

enum class CameraKind : uint8_t { perspective, thinlens, orthographic };

// The camera's parameters (scene.h holds one).
struct Camera {
  CameraKind kind = CameraKind::perspective;
  Slot origin = kNoSlot, target = kNoSlot, up = kNoSlot;
  Slot fov_y = kNoSlot;                                   // perspective, thinlens: degrees, vertical
  Slot half_width = kNoSlot, half_height = kNoSlot;       // orthographic: the film's half extent (world units)
  Slot aperture_radius = kNoSlot, focus_distance = kNoSlot;  // thinlens
  // Mitsuba's principal_point_offset_x/y: the principal point's shift from the film's centre in
  // fractions of the film (not differentiable, as Mitsuba's), and the clip distances along the
  // viewing direction: rays start at near_clip and end at far_clip.
  float offset_x = 0.f, offset_y = 0.f;
  float near_clip = 0.f, far_clip = INFINITY;
  int width = 320, height = 240;
};

// The camera's parameter blocks (first slot, entries); absent ones are kNoSlot.
inline std::array<std::pair<Slot, uint32_t>, 8> camera_blocks(const Camera& c) {
  return {{{c.origin, 3}, {c.target, 3}, {c.up, 3}, {c.fov_y, 1}, {c.half_width, 1}, {c.half_height, 1},
           {c.aperture_radius, 1}, {c.focus_distance, 1}}};
}
// Whether `slot` is one of the camera's parameters.
inline bool is_camera_slot(const Camera& c, Slot slot) {
  for (const auto& [first, n] : camera_blocks(c))
    if (first != kNoSlot && slot >= first && slot < first + n) return true;
  return false;
}
// Whether the view P seeds any of the camera's parameters.
template <class P>
bool camera_active(const Camera& c, const P& view) {
  for (const auto& [first, n] : camera_blocks(c))
    if (view.active(first, n)) return true;
  return false;
}

// The camera's frame in T: it depends on parameters only, so it is built once and shared by
// many samples. half_w, half_h: the film's half extent on the plane at unit depth (perspective,
// thin lens) or in world units (orthographic).
template <class T>
struct CameraFrame {
  Vec3<T> origin, forward, right, up;
  T half_w, half_h;
  T aperture = T(0.f), focus = T(1.f);  // thin lens: the aperture's radius, the focus plane's depth
  CameraKind kind = CameraKind::perspective;
  float width = 0.f, height = 0.f;
  float offset_x = 0.f, offset_y = 0.f, near_clip = 0.f, far_clip = INFINITY;
};

// The frame's entries that carry no derivative.
template <class T>
void set_frame_constants(const Camera& cam, CameraFrame<T>& f) {
  f.kind = cam.kind;
  f.width = float(cam.width);
  f.height = float(cam.height);
  f.offset_x = cam.offset_x;
  f.offset_y = cam.offset_y;
  f.near_clip = cam.near_clip;
  f.far_clip = cam.far_clip;
}

template <class T>
CameraFrame<T> camera_frame_from_params(const Camera& cam, const ParamView<T>& P) {
  using ad::tan;
  CameraFrame<T> f;
  set_frame_constants(cam, f);
  f.origin = P.vec3(cam.origin);
  f.forward = normalize(P.vec3(cam.target) - f.origin);
  f.right = normalize(cross(f.forward, P.vec3(cam.up)));
  f.up = cross(f.right, f.forward);
  if (cam.kind == CameraKind::orthographic) {
    f.half_w = P.scalar(cam.half_width);
    f.half_h = P.scalar(cam.half_height);
  } else {
    f.half_h = tan(P.scalar(cam.fov_y) * T(kPi / 360.f));
    f.half_w = f.half_h * T(float(cam.width) / float(cam.height));
  }
  if (cam.kind == CameraKind::thinlens) {
    f.aperture = P.scalar(cam.aperture_radius);
    f.focus = P.scalar(cam.focus_distance);
  }
  return f;
}

// The frame's sixteen entries that carry derivatives: origin, forward, right, up, half_w, half_h,
// aperture, focus.
inline constexpr int kCameraEntries = 16;
template <class T>
T& camera_entry(CameraFrame<T>& f, int k) {
  Vec3<T>* v[4] = {&f.origin, &f.forward, &f.right, &f.up};
  T* s[4] = {&f.half_w, &f.half_h, &f.aperture, &f.focus};
  return k < 12 ? (*v[k / 3])[k % 3] : *s[k - 12];
}

// The frame in T: lifted once per pass when the view has it (a reverse pass), else derived from
// the parameters.
template <class T>
CameraFrame<T> camera_frame(const Camera& cam, const ParamView<T>& P) {
  if constexpr (ad::is_differentiable_v<T>)
    if (const LiftedBlock* lifted = P.lifted(cam.origin)) {
      CameraFrame<T> f;
      set_frame_constants(cam, f);
      for (int k = 0; k < kCameraEntries; ++k) camera_entry(f, k) = P.lifted_input(*lifted, k);
      return f;
    }
  return camera_frame_from_params(cam, P);
}

// A camera sample: a film position (pixels from the top-left corner) and, for a thin lens, a
// point of the unit disk on its aperture.
struct FilmSample {
  float x = 0.f, y = 0.f;
  glm::vec2 lens{0.f};
};

// The ray through film sample s, starting at the near clip plane and ending at the far one.
template <class T>
RayT<T> camera_ray(const CameraFrame<T>& f, const FilmSample& s) {
  const float sx = 2.f * (s.x / f.width + f.offset_x) - 1.f;
  const float sy = 1.f - 2.f * (s.y / f.height + f.offset_y);
  RayT<T> r;
  T along(1.f);  // the direction's component along forward
  if (f.kind == CameraKind::orthographic) {
    r.o = f.origin + f.right * (f.half_w * T(sx)) + f.up * (f.half_h * T(sy));
    r.d = f.forward;
  } else {
    // The point at unit depth the film sample looks at.
    const Vec3<T> d = f.forward + f.right * (f.half_w * T(sx)) + f.up * (f.half_h * T(sy));
    if (f.kind == CameraKind::thinlens) {
      // From the aperture point through d's point on the focus plane.
      const Vec3<T> lens = f.right * (f.aperture * T(s.lens.x)) + f.up * (f.aperture * T(s.lens.y));
      r.o = f.origin + lens;
      r.d = normalize(d * f.focus - lens);
    } else {
      r.o = f.origin;
      r.d = normalize(d);
    }
    if (f.near_clip > 0.f || std::isfinite(f.far_clip)) along = dot(r.d, f.forward);
  }
  if (f.near_clip > 0.f) r.o = r.o + r.d * (T(f.near_clip) / along);
  if (std::isfinite(f.far_clip)) r.t_max = value(T(f.far_clip - f.near_clip) / along);
  return r;
}

// The ray through film position (px, py) and the lens's centre.
template <class T>
RayT<T> camera_ray(const CameraFrame<T>& f, float px, float py) {
  return camera_ray(f, FilmSample{px, py});
}

// Where world point p lands on the film (pixels from the top-left corner, the inverse of
// camera_ray through the lens's centre), and its depth along the viewing direction (> 0: in
// front of the camera).
template <class T>
struct FilmPoint {
  T x, y, depth;
};

template <class T>
FilmPoint<T> project(const CameraFrame<T>& f, const Vec3<T>& p) {
  const Vec3<T> d = p - f.origin;
  const T z = dot(d, f.forward);
  const T scale = f.kind == CameraKind::orthographic ? T(1.f) : z;
  const T sx = dot(d, f.right) / (scale * f.half_w), sy = dot(d, f.up) / (scale * f.half_h);
  return {(sx + T(1.f)) * T(0.5f * f.width) - T(f.offset_x * f.width),
          (T(1.f) - sy) * T(0.5f * f.height) - T(f.offset_y * f.height), z};
}

template <class T>
RayT<T> camera_ray(const Camera& cam, const ParamView<T>& P, float px, float py) {
  return camera_ray(camera_frame(cam, P), px, py);
}

// A point of the unit disk from two uniform numbers (Shirley and Chiu's concentric map, as
// Mitsuba's square_to_uniform_disk_concentric): the thin lens's aperture sample.
inline glm::vec2 concentric_disk(float u, float v) {
  const float a = 2.f * u - 1.f, b = 2.f * v - 1.f;
  if (a == 0.f && b == 0.f) return glm::vec2(0.f);
  float r, phi;
  if (a * a > b * b) {
    r = a;
    phi = (kPi / 4.f) * (b / a);
  } else {
    r = b;
    phi = kPi / 2.f - (kPi / 4.f) * (a / b);
  }
  return {r * std::cos(phi), r * std::sin(phi)};
}

}  // namespace dray
