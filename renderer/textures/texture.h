#pragma once
// Textures (Mitsuba 3's `bitmap`, `checkerboard`, `rawconstant` and `mesh_attribute`): a colour that varies
// over the surface with its UV coordinates (a mesh attribute: with the point's triangle and barycentrics). A bitmap's texels are a parameter block (`textures.NAME.data`, H×W×3,
// rows from the top), so every texel is differentiable. Lookups are made at the UV of the point
// a path sees: texels chosen in float, their values in T, and the bilinear weights in T where the
// UV moves with the parameters (a surface sliding under a pixel carries its texture along).
#include <cmath>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

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
// the point's barycentrics (b1, b2). No attributes: not a mesh point.
struct AttributeSite {
  const MeshAttribute* attributes = nullptr;
  size_t count = 0;
  uint32_t face = 0, v[3] = {0, 0, 0};
  glm::vec2 b{0.f};
};

struct Texture {
  enum class Kind { bitmap, checkerboard, constant, attribute };
  enum class Wrap { repeat, mirror, clamp };
  std::string name;
  Kind kind = Kind::bitmap;
  Slot data = kNoSlot;  // bitmap: width × height × 3 scalars, row-major from the top row
  int width = 0, height = 0;
  bool nearest = false;  // filter_type: nearest (else bilinear)
  Wrap wrap = Wrap::repeat;
  Slot color0 = kNoSlot, color1 = kNoSlot;  // checkerboard; constant: color0
  glm::vec2 scale{1.f}, offset{0.f};        // to_uv: uv' = uv * scale + offset
  int attribute = -1;         // mesh_attribute: index into Scene::attribute_names
  float value_scale = 1.f;    // mesh_attribute: `scale`, a factor on the value
};

// Texel index i of n under a wrap mode.
inline int wrap_texel(int i, int n, Texture::Wrap mode) {
  switch (mode) {
    case Texture::Wrap::repeat: return ((i % n) + n) % n;
    case Texture::Wrap::clamp: return i < 0 ? 0 : (i >= n ? n - 1 : i);
    case Texture::Wrap::mirror: {
      const int p = ((i % (2 * n)) + 2 * n) % (2 * n);
      return p < n ? p : 2 * n - 1 - p;
    }
  }
  return 0;
}

// Texel (x, y) of a bitmap, its wrap mode applied.
template <class T>
Vec3<T> bitmap_texel(const Texture& tex, const ParamView<T>& P, int x, int y) {
  const size_t i = size_t(wrap_texel(y, tex.height, tex.wrap)) * size_t(tex.width) + size_t(wrap_texel(x, tex.width, tex.wrap));
  return P.vec3(tex.data + Slot(3 * i));
}

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

// A bitmap's texels at texture coordinates uv (to_uv applied), nearest or bilinear; `c`, when
// given, the moving coordinates that uv is the value of (before to_uv).
template <class T>
Vec3<T> bitmap_texels(const Texture& tex, const ParamView<T>& P, glm::vec2 uv, const TexCoord<T>* c = nullptr) {
  if constexpr (ad::is_differentiable_v<T>)  // texels not differentiated, uv fixed: looked up in float
    if (!c && P.constant(tex.data, size_t(3) * size_t(tex.width) * size_t(tex.height)))
      return Vec3<T>(bitmap_texels(tex, P.values_only(), uv));
  auto texel = [&](int x, int y) { return bitmap_texel(tex, P, x, y); };
  const float x = uv.x * float(tex.width) - 0.5f, y = uv.y * float(tex.height) - 0.5f;
  if (tex.nearest) return texel(int(std::floor(x + 0.5f)), int(std::floor(y + 0.5f)));
  const float fx = std::floor(x), fy = std::floor(y);
  const int ix = int(fx), iy = int(fy);
  auto blend = [&](const T& w00, const T& w10, const T& w01, const T& w11) {
    return texel(ix, iy) * w00 + texel(ix + 1, iy) * w10 + texel(ix, iy + 1) * w01 + texel(ix + 1, iy + 1) * w11;
  };
  if (!c) {  // the weights in float: each channel one weighted sum
    const float wx = x - fx, wy = y - fy;
    const float w[4] = {(1.f - wx) * (1.f - wy), wx * (1.f - wy), (1.f - wx) * wy, wx * wy};
    const Vec3<T> t[4] = {texel(ix, iy), texel(ix + 1, iy), texel(ix, iy + 1), texel(ix + 1, iy + 1)};
    Vec3<T> out;
    for (int k = 0; k < 3; ++k) {
      const T ch[4] = {t[0][k], t[1][k], t[2][k], t[3][k]};
      out[k] = weighted_sum(ch, w);
    }
    return out;
  }
  // The weights in T: the same values, moving with the coordinates.
  const T wx = (c->u * T(tex.scale.x) + T(tex.offset.x)) * T(float(tex.width)) - T(0.5f + fx);
  const T wy = (c->v * T(tex.scale.y) + T(tex.offset.y)) * T(float(tex.height)) - T(0.5f + fy);
  const T one(1.f);
  return blend((one - wx) * (one - wy), wx * (one - wy), (one - wx) * wy, wx * wy);
}

// The texture's colour at surface coordinates uv. `scalar`: read for a scalar (Mitsuba's eval_1),
// where Mitsuba's checkerboard picks its colours the other way round: its eval takes color0 where
// the two halves of (u, v) agree, its eval_1 where they differ (src/textures/checkerboard.cpp).
// A mesh attribute at the point, as Mitsuba's mesh_attribute: a colour read gives a 3-value
// attribute, or a 1-value one in all channels; a scalar read (`scalar`) a 1-value one; anything
// else, or a point without the attribute, 0. Vertex values blend by the barycentrics.
template <class T>
Vec3<T> eval_attribute(const Texture& tex, const ParamView<T>& P, const TexCoord<T>& c, bool scalar) {
  const AttributeSite& s = c.site;
  for (size_t k = 0; k < s.count; ++k) {
    const MeshAttribute& a = s.attributes[k];
    if (a.id != tex.attribute) continue;
    if (a.dim != 1 && (a.dim != 3 || scalar)) break;
    auto at = [&](uint32_t row) {
      const Slot first = a.data + Slot(size_t(row) * size_t(a.dim));
      return a.dim == 1 ? Vec3<T>(P.scalar(first)) : P.vec3(first);
    };
    Vec3<T> out;
    if (a.face) out = at(s.face);
    else if (c.moving) out = at(s.v[0]) * (T(1.f) - c.b1 - c.b2) + at(s.v[1]) * c.b1 + at(s.v[2]) * c.b2;
    else out = at(s.v[0]) * T(1.f - s.b.x - s.b.y) + at(s.v[1]) * T(s.b.x) + at(s.v[2]) * T(s.b.y);
    return out * T(tex.value_scale);
  }
  return Vec3<T>(T(0.f));
}

template <class T>
Vec3<T> eval_texture(const Texture& tex, const ParamView<T>& P, const TexCoord<T>& c, bool scalar = false) {
  if (tex.kind == Texture::Kind::constant) return P.vec3(tex.color0);
  if (tex.kind == Texture::Kind::attribute) return eval_attribute(tex, P, c, scalar);
  const glm::vec2 uv = c.at * tex.scale + tex.offset;
  if (tex.kind == Texture::Kind::checkerboard) {  // piecewise constant: its motion is not followed
    const bool a = uv.x - std::floor(uv.x) > 0.5f, b = uv.y - std::floor(uv.y) > 0.5f;
    return P.vec3((a == b) != scalar ? tex.color0 : tex.color1);
  }
  return bitmap_texels(tex, P, uv, c.moving ? &c : nullptr);
}
template <class T>
Vec3<T> eval_texture(const Texture& tex, const ParamView<T>& P, glm::vec2 uv, bool scalar = false) {
  return eval_texture(tex, P, TexCoord<T>(uv), scalar);
}

// The texture's scalar at uv (Mitsuba's eval_1): the luminance of its colour.
template <class T>
T eval_texture_1(const Texture& tex, const ParamView<T>& P, const TexCoord<T>& c) {
  if (tex.kind == Texture::Kind::attribute) return eval_attribute(tex, P, c, true).x;  // the value itself
  return luminance(eval_texture(tex, P, c, true));
}
template <class T>
T eval_texture_1(const Texture& tex, const ParamView<T>& P, glm::vec2 uv) {
  return eval_texture_1(tex, P, TexCoord<T>(uv));
}

// The gradient (d/du, d/dv) of a texture's luminance at surface coordinates uv, as Mitsuba's
// eval_1_grad: a bilinear bitmap's (through to_uv's scale); 0 for others (piecewise constant).
template <class T>
void texture_gradient(const Texture& tex, const ParamView<T>& P, glm::vec2 uv, T& du, T& dv) {
  du = dv = T(0.f);
  if (tex.kind != Texture::Kind::bitmap || tex.nearest) return;
  uv = uv * tex.scale + tex.offset;
  const float x = uv.x * float(tex.width) - 0.5f, y = uv.y * float(tex.height) - 0.5f;
  const float fx = std::floor(x), fy = std::floor(y), wx = x - fx, wy = y - fy;
  const int ix = int(fx), iy = int(fy);
  const T f00 = luminance(bitmap_texel(tex, P, ix, iy)), f10 = luminance(bitmap_texel(tex, P, ix + 1, iy));
  const T f01 = luminance(bitmap_texel(tex, P, ix, iy + 1)), f11 = luminance(bitmap_texel(tex, P, ix + 1, iy + 1));
  du = ((f10 - f00) * T(1.f - wy) + (f11 - f01) * T(wy)) * T(float(tex.width) * tex.scale.x);
  dv = ((f01 - f00) * T(1.f - wx) + (f11 - f10) * T(wx)) * T(float(tex.height) * tex.scale.y);
}

// A colour a material reads: a parameter (three scalars) or a texture.
struct ColourInput {
  Slot slot = kNoSlot;
  int texture = -1;  // index into Scene::textures, or -1
  ColourInput() = default;
  ColourInput(Slot s) : slot(s) {}  // NOLINT: a constant colour is a slot
  bool given() const { return slot != kNoSlot || texture >= 0; }
};

// A scalar a material reads: a parameter or a texture (eval_texture_1: its luminance; for a
// checkerboard of numbers, the number).
struct ScalarInput {
  Slot slot = kNoSlot;
  int texture = -1;  // index into Scene::textures, or -1
  ScalarInput() = default;
  ScalarInput(Slot s) : slot(s) {}  // NOLINT: a constant is a slot
  bool operator==(const ScalarInput& o) const { return slot == o.slot && texture == o.texture; }
};

// What a BSDF reads at a surface point: the parameters, the scene's textures and the point's UV.
template <class T>
struct Inputs {
  ParamView<T> P;
  const Texture* textures = nullptr;
  TexCoord<T> coord;  // the point's UV (moving with the parameters, or not)
  glm::vec2 uv{0.f};  // its value

  Inputs(const ParamView<T>& P_, const Texture* textures_ = nullptr, const TexCoord<T>& c = TexCoord<T>())
      : P(P_), textures(textures_), coord(c), uv(c.at) {}
  T scalar(const ScalarInput& s) const {
    if (s.texture < 0) return P.scalar(s.slot);
    return eval_texture_1(textures[s.texture], P, coord);
  }
  Vec3<T> vec3(const ColourInput& c) const { return c.texture >= 0 ? eval_texture(textures[c.texture], P, coord) : P.vec3(c.slot); }
  Inputs<float> values_only() const {
    TexCoord<float> c(uv);
    c.site = coord.site;
    return Inputs<float>(P.values_only(), textures, c);
  }
};

}  // namespace dray
