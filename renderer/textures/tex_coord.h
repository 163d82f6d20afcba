#pragma once
// Where a texture is looked up: surface coordinates (UV, moving with the parameters or not) and,
// at a mesh's point, its triangle's attributes. Every texture plugin reads these.
#include <cstddef>
#include <cstdint>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "renderer/core/param_table.h"

namespace dray {

// A mesh's vertex or face attribute (a PLY file's `vertex_color`, `face_*`, ...): `dim` values per
// vertex (interpolated over a triangle) or per triangle, a parameter block `shapes.NAME.ATTRIBUTE`.
struct MeshAttribute {
  int id = -1;        // index into Scene::attribute_names
  bool face = false;  // per triangle (a `face_` name), else per vertex
  int dim = 1;        // 1 to 4
  Slot data = kNoSlot;
};

// Where a texture reads a mesh's attributes: the triangle's attributes, its index and vertices, and
// the point's barycentrics (b1, b2). No attributes: not a mesh point. And the surface point in
// world space (a 3D texture's lookup; its value, not moving).
struct AttributeSite {
  const MeshAttribute* attributes = nullptr;
  size_t count = 0;
  uint32_t face = 0, v[3] = {0, 0, 0};
  glm::vec2 b{0.f};
  glm::vec3 p{0.f};
};

// The luminance Mitsuba reads a colour's scalar as (eval_1).
template <class T>
T luminance(const Vec3<T>& c) {
  return T(0.212671f) * c.x + T(0.715160f) * c.y + T(0.072169f) * c.z;
}

// Surface coordinates as a lookup sees them: their float value `at` (which texels) and, when
// they move with the parameters (`moving`), the coordinates in T, whose motion the bilinear
// weights then carry.
template <class T>
struct TexCoord {
  glm::vec2 at{0.f};
  T u{0.f}, v{0.f};
  bool moving = false;
  AttributeSite site;      // a mesh point's triangle, for attributes
  T b1{0.f}, b2{0.f};      // its barycentrics, moving with the point where `moving`
  TexCoord(glm::vec2 a = glm::vec2(0.f)) : at(a), u(a.x), v(a.y) {}  // NOLINT: fixed coordinates
  TexCoord(glm::vec2 a, const T& u_, const T& v_) : at(a), u(u_), v(v_) {
    using ad::is_constant;  // float's; the AD types' by argument-dependent lookup
    moving = !is_constant(u) || !is_constant(v);
  }
};

// Fixed coordinates (a float point's) as T reads them: its UV and mesh attributes, not moving.
template <class T>
TexCoord<T> as_fixed(const TexCoord<float>& c) {
  TexCoord<T> out(c.at);
  out.site = c.site;
  return out;
}

// Mitsuba's `to_uv` (an image's or a pattern's placement): uv' = uv * scale + offset.
struct ToUv {
  glm::vec2 scale{1.f}, offset{0.f};
  glm::vec2 operator()(glm::vec2 uv) const { return uv * scale + offset; }
};

}  // namespace dray
