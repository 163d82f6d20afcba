#pragma once
// Textures (Mitsuba 3's `bitmap` and `checkerboard`): a colour that varies over the surface with
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
  enum class Kind { bitmap, checkerboard };
  enum class Wrap { repeat, mirror, clamp };
  std::string name;
  Kind kind = Kind::bitmap;
  Slot data = kNoSlot;  // bitmap: width × height × 3 scalars, row-major from the top row
  int width = 0, height = 0;
  bool nearest = false;  // filter_type: nearest (else bilinear)
  Wrap wrap = Wrap::repeat;
  Slot color0 = kNoSlot, color1 = kNoSlot;  // checkerboard
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

// A bitmap's texels at texture coordinates uv (to_uv applied), nearest or bilinear.
template <class T>
Vec3<T> bitmap_texels(const Texture& tex, const ParamView<T>& P, glm::vec2 uv) {
  if constexpr (ad::is_differentiable_v<T>)  // texels not differentiated: looked up in float
    if (P.constant(tex.data, size_t(3) * size_t(tex.width) * size_t(tex.height)))
      return Vec3<T>(bitmap_texels(tex, P.values_only(), uv));
  auto texel = [&](int x, int y) {
    const size_t i = size_t(wrap_texel(y, tex.height, tex.wrap)) * size_t(tex.width) + size_t(wrap_texel(x, tex.width, tex.wrap));
    return P.vec3(tex.data + Slot(3 * i));
  };
  const float x = uv.x * float(tex.width) - 0.5f, y = uv.y * float(tex.height) - 0.5f;
  if (tex.nearest) return texel(int(std::floor(x + 0.5f)), int(std::floor(y + 0.5f)));
  const float fx = std::floor(x), fy = std::floor(y), wx = x - fx, wy = y - fy;
  const int ix = int(fx), iy = int(fy);
  return texel(ix, iy) * T((1.f - wx) * (1.f - wy)) + texel(ix + 1, iy) * T(wx * (1.f - wy)) +
         texel(ix, iy + 1) * T((1.f - wx) * wy) + texel(ix + 1, iy + 1) * T(wx * wy);
}

// The texture's colour at surface coordinates uv.
template <class T>
Vec3<T> eval_texture(const Texture& tex, const ParamView<T>& P, glm::vec2 uv) {
  uv = uv * tex.scale + tex.offset;
  if (tex.kind == Texture::Kind::checkerboard) {
    const bool a = uv.x - std::floor(uv.x) > 0.5f, b = uv.y - std::floor(uv.y) > 0.5f;
    return P.vec3(a == b ? tex.color0 : tex.color1);
  }
  return bitmap_texels(tex, P, uv);
}

// A colour a material reads: a parameter (three scalars) or a texture.
struct ColourInput {
  Slot slot = kNoSlot;
  int texture = -1;  // index into Scene::textures, or -1
  ColourInput() = default;
  ColourInput(Slot s) : slot(s) {}  // NOLINT: a constant colour is a slot
  bool given() const { return slot != kNoSlot || texture >= 0; }
};

// What a BSDF reads at a surface point: the parameters, the scene's textures and the point's UV.
template <class T>
struct Inputs {
  ParamView<T> P;
  const Texture* textures = nullptr;
  glm::vec2 uv{0.f};

  Inputs(const ParamView<T>& P_, const Texture* textures_ = nullptr, glm::vec2 uv_ = glm::vec2(0.f))
      : P(P_), textures(textures_), uv(uv_) {}
  T scalar(Slot s) const { return P.scalar(s); }
  Vec3<T> vec3(const ColourInput& c) const { return c.texture >= 0 ? eval_texture(textures[c.texture], P, uv) : P.vec3(c.slot); }
  Inputs<float> values_only() const { return Inputs<float>(P.values_only(), textures, uv); }
};

}  // namespace dray
