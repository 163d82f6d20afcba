#pragma once
// The mesh transform, world_from_object = translate * rotate_z * rotate_y * rotate_x * scale,
// written once for any scalar: the BVH build evaluates it in float, the kernel in T when one
// of its parameters is being differentiated.
#include "renderer/camera.h"
#include "renderer/param_table.h"
#include "renderer/scene.h"

namespace dray {

template <class T>
Vec3<T> transform_point(const ParamView<T>& P, const Transform& xf, const Vec3<T>& p_object) {
  using ad::cos;
  using ad::sin;
  const T deg = T(kPi / 180.f);
  Vec3<T> p = p_object * P.scalar(xf.scale);
  Vec3<T> rot = P.vec3(xf.rotate);
  T c = cos(rot.x * deg), s = sin(rot.x * deg);  // about x
  p = {p.x, c * p.y - s * p.z, s * p.y + c * p.z};
  c = cos(rot.y * deg), s = sin(rot.y * deg);    // about y
  p = {c * p.x + s * p.z, p.y, c * p.z - s * p.x};
  c = cos(rot.z * deg), s = sin(rot.z * deg);    // about z
  p = {c * p.x - s * p.y, s * p.x + c * p.y, p.z};
  return p + P.vec3(xf.translate);
}

}  // namespace dray
