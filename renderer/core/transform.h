#pragma once
// The mesh transform, world_from_object = translate * rotate_z * rotate_y * rotate_x * scale
// (* base, an instance's constant matrix: Mitsuba's to_world, which a shared mesh cannot bake),
// written once for any scalar as a 3x3 linear part and a translation: the BVH build evaluates it
// in float, the kernel in T when one of its parameters is being differentiated. A reverse pass
// lifts it once (its twelve entries become inputs of every sample's tape, chained to the
// parameters per pixel: renderer/integrators/pass_lift.h) instead of re-deriving it at every hit.
#include <glm/mat3x3.hpp>
#include <glm/vec3.hpp>

#include "renderer/core/param_table.h"

namespace dray {

// A mesh's transform parameters (a Shape holds one).
struct Transform {
  Slot scale = kNoSlot;      // uniform scale (scalar)
  Slot rotate = kNoSlot;     // rotate_x, rotate_y, rotate_z in degrees (vec3)
  Slot translate = kNoSlot;  // vec3
  // An instance's constant affine map applied first (a mesh bakes its matrix into its vertices).
  bool has_base = false;
  glm::mat3 base_linear{1.f};
  glm::vec3 base_offset{0.f};
  // (Bᵀ B)⁻¹ for B = base_linear: a normal n turns as B⁻ᵀ n ∝ (R s B)(Bᵀ B)⁻¹ n, so normals go
  // through the same linear part as points once premultiplied by it.
  glm::mat3 normal_pre{1.f};

  // Whether the parameter at `slot` is one of its own.
  bool holds(Slot slot) const { return in_block(slot, scale, 1) || in_block(slot, rotate, 3) || in_block(slot, translate, 3); }
};

template <class T>
struct TransformT {
  T m[3][3];  // rotation times scale (times the base's linear part), row-major
  Vec3<T> translate;
  const glm::mat3* normal_pre = nullptr;  // Transform::normal_pre when there is a base
};

// t applied after the constant base B, b: (t.m B, t.m b + t.translate).
template <class T>
void with_base(TransformT<T>& t, const Transform& xf) {
  TransformT<T> out;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)  // glm is column-major: base_linear[col][row]
      out.m[i][j] = t.m[i][0] * T(xf.base_linear[j][0]) + t.m[i][1] * T(xf.base_linear[j][1]) + t.m[i][2] * T(xf.base_linear[j][2]);
    out.translate[i] = t.m[i][0] * T(xf.base_offset.x) + t.m[i][1] * T(xf.base_offset.y) + t.m[i][2] * T(xf.base_offset.z) + t.translate[i];
  }
  out.normal_pre = &xf.normal_pre;
  t = out;
}

// The linear part as a glm matrix (glm is column-major: [column][row]).
inline glm::mat3 linear_matrix(const TransformT<float>& t) {
  glm::mat3 out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[j][i] = t.m[i][j];
  return out;
}

// The transform's entries in T from its parameters (sines and cosines computed once).
template <class T>
TransformT<T> transform_from_params(const ParamView<T>& P, const Transform& xf) {
  using ad::cos;
  using ad::sin;
  const T deg = T(kPi / 180.f);
  const Vec3<T> rot = P.vec3(xf.rotate);
  T c[3], s[3];
  for (int a = 0; a < 3; ++a) {
    c[a] = cos(rot[a] * deg);
    s[a] = sin(rot[a] * deg);
  }
  // R = Rz Ry Rx, written out; times the uniform scale.
  const T sc = P.scalar(xf.scale);
  const T r[3][3] = {{c[2] * c[1], c[2] * s[1] * s[0] - s[2] * c[0], c[2] * s[1] * c[0] + s[2] * s[0]},
                     {s[2] * c[1], s[2] * s[1] * s[0] + c[2] * c[0], s[2] * s[1] * c[0] - c[2] * s[0]},
                     {-s[1], c[1] * s[0], c[1] * c[0]}};
  TransformT<T> t;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) t.m[i][j] = r[i][j] * sc;
  t.translate = P.vec3(xf.translate);
  if (xf.has_base) with_base(t, xf);
  return t;
}

// The twelve entries: the linear part row by row, then the translation.
inline constexpr int kTransformEntries = 12;
template <class T>
T& transform_entry(TransformT<T>& t, int k) {
  return k < 9 ? t.m[k / 3][k % 3] : t.translate[k - 9];
}

// The transform in T: its entries lifted once per pass when the view has them (a reverse pass),
// else derived from the parameters.
template <class T>
TransformT<T> lift_transform(const ParamView<T>& P, const Transform& xf) {
  if constexpr (ad::is_differentiable_v<T>)
    if (const LiftedBlock* lifted = P.lifted(xf.rotate)) {
      TransformT<T> t;
      for (int k = 0; k < kTransformEntries; ++k) transform_entry(t, k) = P.lifted_input(*lifted, k);
      if (xf.has_base) t.normal_pre = &xf.normal_pre;
      return t;
    }
  return transform_from_params(P, xf);
}

template <class T>
Vec3<T> linear_part(const TransformT<T>& t, const Vec3<T>& v) {
  auto row = [&](int i) { return dot(Vec3<T>(t.m[i][0], t.m[i][1], t.m[i][2]), v); };
  return {row(0), row(1), row(2)};
}

template <class T>
Vec3<T> transform_point(const TransformT<T>& t, const Vec3<T>& p_object) {
  return linear_part(t, p_object) + t.translate;
}

// A normal in world space: the linear part alone (a uniform scale keeps directions; normalise
// after, as a negative scale flips them), after a base's (Bᵀ B)⁻¹.
template <class T>
Vec3<T> transform_normal(const TransformT<T>& t, const Vec3<T>& n_object) {
  if (t.normal_pre) {
    const glm::mat3& g = *t.normal_pre;
    const Vec3<T> pre(dot(Vec3<T>(T(g[0][0]), T(g[1][0]), T(g[2][0])), n_object),
                      dot(Vec3<T>(T(g[0][1]), T(g[1][1]), T(g[2][1])), n_object),
                      dot(Vec3<T>(T(g[0][2]), T(g[1][2]), T(g[2][2])), n_object));
    return normalize(linear_part(t, pre));
  }
  return normalize(linear_part(t, n_object));
}

}  // namespace dray
