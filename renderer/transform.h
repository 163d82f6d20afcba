#pragma once
// The mesh transform, world_from_object = translate * rotate_z * rotate_y * rotate_x * scale,
// written once for any scalar: the BVH build evaluates it in float, the kernel in T when one
// of its parameters is being differentiated.
#include "renderer/camera.h"
#include "renderer/param_table.h"
#include "renderer/scene.h"

namespace dray {

// The transform's parameters in T, with the rotation's sines and cosines computed once.
template <class T>
struct TransformT {
  T scale;
  T c[3], s[3];  // cos and sin of the rotation about x, y, z
  Vec3<T> translate;
};

template <class T>
TransformT<T> lift_transform(const ParamView<T>& P, const Transform& xf) {
  using ad::cos;
  using ad::sin;
  const T deg = T(kPi / 180.f);
  Vec3<T> rot = P.vec3(xf.rotate);
  TransformT<T> t{P.scalar(xf.scale), {}, {}, P.vec3(xf.translate)};
  for (int a = 0; a < 3; ++a) {
    t.c[a] = cos(rot[a] * deg);
    t.s[a] = sin(rot[a] * deg);
  }
  return t;
}

template <class T>
Vec3<T> transform_point(const TransformT<T>& t, const Vec3<T>& p_object) {
  Vec3<T> p = p_object * t.scale;
  p = {p.x, t.c[0] * p.y - t.s[0] * p.z, t.s[0] * p.y + t.c[0] * p.z};  // about x
  p = {t.c[1] * p.x + t.s[1] * p.z, p.y, t.c[1] * p.z - t.s[1] * p.x};  // about y
  p = {t.c[2] * p.x - t.s[2] * p.y, t.s[2] * p.x + t.c[2] * p.y, p.z};  // about z
  return p + t.translate;
}

// A direction or normal in world space: the rotation alone (a uniform scale keeps directions;
// normalise after, as a negative scale flips them).
template <class T>
Vec3<T> transform_normal(const TransformT<T>& t, const Vec3<T>& n_object) {
  Vec3<T> n = n_object * t.scale;
  n = {n.x, t.c[0] * n.y - t.s[0] * n.z, t.s[0] * n.y + t.c[0] * n.z};
  n = {t.c[1] * n.x + t.s[1] * n.z, n.y, t.c[1] * n.z - t.s[1] * n.x};
  n = {t.c[2] * n.x - t.s[2] * n.y, t.s[2] * n.x + t.c[2] * n.y, n.z};
  return normalize(n);
}

}  // namespace dray
