#pragma once
// A pinhole camera looking from `origin` at `target`, with vertical field of view fov_y
// (degrees). Rays are generated in the kernel's scalar type: camera parameters carry
// derivatives like any other.
#include "renderer/param_table.h"
#include "renderer/ray.h"
#include "renderer/scene.h"

namespace dray {

inline constexpr float kPi = 3.14159265358979323846f;

// The ray through film position (px, py), in pixels from the top-left corner.
template <class T>
RayT<T> camera_ray(const Camera& cam, const ParamView<T>& P, float px, float py) {
  using ad::tan;
  Vec3<T> o = P.vec3(cam.origin);
  Vec3<T> forward = normalize(P.vec3(cam.target) - o);
  Vec3<T> right = normalize(cross(forward, P.vec3(cam.up)));
  Vec3<T> up = cross(right, forward);
  T half_h = tan(P.scalar(cam.fov_y) * T(kPi / 360.f));
  T half_w = half_h * T(float(cam.width) / float(cam.height));
  float sx = 2.f * px / float(cam.width) - 1.f;
  float sy = 1.f - 2.f * py / float(cam.height);
  Vec3<T> d = forward + right * (half_w * T(sx)) + up * (half_h * T(sy));
  return {o, normalize(d)};
}

}  // namespace dray
