#pragma once
// Textures (Mitsuba 3's `bitmap`, `checkerboard` and `rawconstant`): a colour that varies over the surface with
// its UV coordinates. A bitmap's texels are a parameter block (`textures.NAME.data`, H×W×3,
// rows from the top), so every texel is differentiable; lookups are made at the material point's
// UV (a float: it stays with the surface), with bilinear weights in float and texel values in T.
#include <cmath>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

#include "renderer/core/param_table.h"

namespace dray {

struct Texture {
  enum class Kind { bitmap, checkerboard, constant };
  enum class Wrap { repeat, mirror, clamp };
  std::string name;
  Kind kind = Kind::bitmap;
  Slot data = kNoSlot;  // bitmap: width × height × 3 scalars, row-major from the top row
  int width = 0, height = 0;
  bool nearest = false;  // filter_type: nearest (else bilinear)
  Wrap wrap = Wrap::repeat;
  Slot color0 = kNoSlot, color1 = kNoSlot;  // checkerboard; constant: color0
  glm::vec2 scale{1.f}, offset{0.f};        // to_uv: uv' = uv * scale + offset
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

// A bitmap's texels at texture coordinates uv (to_uv applied), nearest or bilinear.
template <class T>
Vec3<T> bitmap_texels(const Texture& tex, const ParamView<T>& P, glm::vec2 uv) {
  if constexpr (ad::is_differentiable_v<T>)  // texels not differentiated: looked up in float
    if (P.constant(tex.data, size_t(3) * size_t(tex.width) * size_t(tex.height)))
      return Vec3<T>(bitmap_texels(tex, P.values_only(), uv));
  auto texel = [&](int x, int y) { return bitmap_texel(tex, P, x, y); };
  const float x = uv.x * float(tex.width) - 0.5f, y = uv.y * float(tex.height) - 0.5f;
  if (tex.nearest) return texel(int(std::floor(x + 0.5f)), int(std::floor(y + 0.5f)));
  const float fx = std::floor(x), fy = std::floor(y), wx = x - fx, wy = y - fy;
  const int ix = int(fx), iy = int(fy);
  return texel(ix, iy) * T((1.f - wx) * (1.f - wy)) + texel(ix + 1, iy) * T(wx * (1.f - wy)) +
         texel(ix, iy + 1) * T((1.f - wx) * wy) + texel(ix + 1, iy + 1) * T(wx * wy);
}

// The texture's colour at surface coordinates uv. `scalar`: read for a scalar (Mitsuba's eval_1),
// where Mitsuba's checkerboard picks its colours the other way round: its eval takes color0 where
// the two halves of (u, v) agree, its eval_1 where they differ (src/textures/checkerboard.cpp).
template <class T>
Vec3<T> eval_texture(const Texture& tex, const ParamView<T>& P, glm::vec2 uv, bool scalar = false) {
  if (tex.kind == Texture::Kind::constant) return P.vec3(tex.color0);
  uv = uv * tex.scale + tex.offset;
  if (tex.kind == Texture::Kind::checkerboard) {
    const bool a = uv.x - std::floor(uv.x) > 0.5f, b = uv.y - std::floor(uv.y) > 0.5f;
    return P.vec3((a == b) != scalar ? tex.color0 : tex.color1);
  }
  return bitmap_texels(tex, P, uv);
}

// The texture's scalar at uv (Mitsuba's eval_1): the luminance of its colour.
template <class T>
T eval_texture_1(const Texture& tex, const ParamView<T>& P, glm::vec2 uv) {
  return luminance(eval_texture(tex, P, uv, true));
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
  glm::vec2 uv{0.f};

  Inputs(const ParamView<T>& P_, const Texture* textures_ = nullptr, glm::vec2 uv_ = glm::vec2(0.f))
      : P(P_), textures(textures_), uv(uv_) {}
  T scalar(const ScalarInput& s) const {
    if (s.texture < 0) return P.scalar(s.slot);
    return eval_texture_1(textures[s.texture], P, uv);
  }
  Vec3<T> vec3(const ColourInput& c) const { return c.texture >= 0 ? eval_texture(textures[c.texture], P, uv) : P.vec3(c.slot); }
  Inputs<float> values_only() const { return Inputs<float>(P.values_only(), textures, uv); }
};

}  // namespace dray
