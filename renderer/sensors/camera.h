#pragma once
// A pinhole camera looking from `origin` at `target`, with vertical field of view fov_y
// (degrees). Rays are generated in the kernel's scalar type: camera parameters carry
// derivatives like any other.
#include "renderer/core/param_table.h"
#include "renderer/core/ray.h"

namespace dray {

// The camera's parameters (scene.h holds one).
struct Camera {
  Slot origin = kNoSlot, target = kNoSlot, up = kNoSlot, fov_y = kNoSlot;
  int width = 320, height = 240;
};


// The camera's frame in T: it depends on parameters only, so it is built once and shared by
// many samples.
template <class T>
struct CameraFrame {
  Vec3<T> origin, forward, right, up;
  T half_w, half_h;
  float width, height;
};

template <class T>
CameraFrame<T> camera_frame_from_params(const Camera& cam, const ParamView<T>& P) {
  using ad::tan;
  CameraFrame<T> f;
  f.origin = P.vec3(cam.origin);
  f.forward = normalize(P.vec3(cam.target) - f.origin);
  f.right = normalize(cross(f.forward, P.vec3(cam.up)));
  f.up = cross(f.right, f.forward);
  f.half_h = tan(P.scalar(cam.fov_y) * T(kPi / 360.f));
  f.half_w = f.half_h * T(float(cam.width) / float(cam.height));
  f.width = float(cam.width);
  f.height = float(cam.height);
  return f;
}

// The frame's fourteen entries that carry derivatives: origin, forward, right, up, half_w, half_h.
inline constexpr int kCameraEntries = 14;
template <class T>
T& camera_entry(CameraFrame<T>& f, int k) {
  Vec3<T>* v[4] = {&f.origin, &f.forward, &f.right, &f.up};
  return k < 12 ? (*v[k / 3])[k % 3] : (k == 12 ? f.half_w : f.half_h);
}

// The frame in T: lifted once per pass when the view has it (a reverse pass), else derived from
// the parameters.
template <class T>
CameraFrame<T> camera_frame(const Camera& cam, const ParamView<T>& P) {
  if constexpr (ad::is_differentiable_v<T>)
    if (const LiftedBlock* lifted = P.lifted(cam.origin)) {
      CameraFrame<T> f;
      for (int k = 0; k < kCameraEntries; ++k) camera_entry(f, k) = P.lifted_input(*lifted, k);
      f.width = float(cam.width);
      f.height = float(cam.height);
      return f;
    }
  return camera_frame_from_params(cam, P);
}

// The ray through film position (px, py), in pixels from the top-left corner.
template <class T>
RayT<T> camera_ray(const CameraFrame<T>& f, float px, float py) {
  float sx = 2.f * px / f.width - 1.f;
  float sy = 1.f - 2.f * py / f.height;
  Vec3<T> d = f.forward + f.right * (f.half_w * T(sx)) + f.up * (f.half_h * T(sy));
  return {f.origin, normalize(d)};
}

// Where world point p lands on the film (pixels from the top-left corner, the inverse of
// camera_ray), and its depth along the viewing direction (> 0: in front of the camera).
template <class T>
struct FilmPoint {
  T x, y, depth;
};

template <class T>
FilmPoint<T> project(const CameraFrame<T>& f, const Vec3<T>& p) {
  const Vec3<T> d = p - f.origin;
  const T z = dot(d, f.forward);
  const T sx = dot(d, f.right) / (z * f.half_w), sy = dot(d, f.up) / (z * f.half_h);
  return {(sx + T(1.f)) * T(0.5f * f.width), (T(1.f) - sy) * T(0.5f * f.height), z};
}

template <class T>
RayT<T> camera_ray(const Camera& cam, const ParamView<T>& P, float px, float py) {
  return camera_ray(camera_frame(cam, P), px, py);
}

}  // namespace dray
