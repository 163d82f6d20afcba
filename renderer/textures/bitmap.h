#pragma once
// Mitsuba 3's `bitmap`: an image over the surface's UV, its texels a parameter block
// (`textures.NAME.data`, H×W×3, rows from the top), so every texel is differentiable; bilinear or
// `nearest` (`filter_type`), `wrap_mode` repeat, mirror or clamp, `to_uv`. Texels are chosen in
// float, their values read in T, and the bilinear weights in T where the UV moves with the
// parameters (a surface sliding under a pixel carries its texture along).
#include <cmath>
#include <string_view>

#include "renderer/textures/texture_props.h"

namespace dray {

struct BitmapTexture {
  enum class Wrap { repeat, mirror, clamp };
  static constexpr std::string_view kPlugins[] = {"bitmap"};
  // Mitsuba's keys, and dray's `width`, `height`, `value` for a constant start (an optimization's).
  static BitmapTexture read(TextureProps& p) {
    p.keys({"filename", "raw", "filter_type", "wrap_mode", "to_uv", "format", "width", "height", "value"});
    // `format`: Mitsuba's storage precision; dray keeps texels in float whatever it says.
    if (p.has("format")) {
      const std::string f = p.string("format");
      if (f != "variant" && f != "fp16" && f != "fp32") p.fail("format", "must be \"variant\", \"fp16\" or \"fp32\", got \"" + f + "\"");
    }
    BitmapTexture b;
    const Image img = p.image(p.has("raw") && p.boolean("raw"), glm::vec3(0.5f));
    b.width = img.width;
    b.height = img.height;
    b.data = p.block("data", img.data, {uint32_t(img.height), uint32_t(img.width), 3u});
    const std::string filter = p.has("filter_type") ? p.string("filter_type") : "bilinear";
    if (filter != "bilinear" && filter != "nearest") p.fail("filter_type", "must be \"bilinear\" or \"nearest\", got \"" + filter + "\"");
    b.nearest = filter == "nearest";
    const std::string wrap = p.has("wrap_mode") ? p.string("wrap_mode") : "repeat";
    if (wrap == "repeat") b.wrap = Wrap::repeat;
    else if (wrap == "mirror") b.wrap = Wrap::mirror;
    else if (wrap == "clamp") b.wrap = Wrap::clamp;
    else p.fail("wrap_mode", "must be \"repeat\", \"mirror\" or \"clamp\", got \"" + wrap + "\"");
    b.to_uv = p.to_uv();
    return b;
  }

  Slot data = kNoSlot;  // width × height × 3 scalars, row-major from the top row
  int width = 0, height = 0;
  bool nearest = false;  // filter_type: nearest (else bilinear)
  Wrap wrap = Wrap::repeat;
  ToUv to_uv;

  // Texel index i of n under a wrap mode.
  static int wrap_texel(int i, int n, Wrap mode) {
    if (unsigned(i) < unsigned(n)) return i;  // inside: every mode keeps it
    switch (mode) {
      case Wrap::repeat: return ((i % n) + n) % n;
      case Wrap::clamp: return i < 0 ? 0 : (i >= n ? n - 1 : i);
      case Wrap::mirror: {
        const int p = ((i % (2 * n)) + 2 * n) % (2 * n);
        return p < n ? p : 2 * n - 1 - p;
      }
    }
    return 0;
  }

  // The first slot of texel (x, y), the wrap mode applied.
  Slot texel_slot(int x, int y) const {
    const size_t i = size_t(wrap_texel(y, height, wrap)) * size_t(width) + size_t(wrap_texel(x, width, wrap));
    return data + Slot(3 * i);
  }
  // Texel (x, y), the wrap mode applied.
  template <class T>
  Vec3<T> texel(const ParamView<T>& P, int x, int y) const {
    return P.vec3(texel_slot(x, y));
  }

  // The texels at texture coordinates uv (to_uv applied), nearest or bilinear; `c`, when given, the
  // moving coordinates that uv is the value of (before to_uv).
  template <class T>
  Vec3<T> texels(const ParamView<T>& P, glm::vec2 uv, const TexCoord<T>* c = nullptr) const {
    if constexpr (ad::is_differentiable_v<T>)  // texels not differentiated, uv fixed: looked up in float
      if (!c && P.constant(data, size_t(3) * size_t(width) * size_t(height))) return Vec3<T>(texels(P.values_only(), uv));
    auto at = [&](int x, int y) { return texel(P, x, y); };
    const float x = uv.x * float(width) - 0.5f, y = uv.y * float(height) - 0.5f;
    if (nearest) return at(int(std::floor(x + 0.5f)), int(std::floor(y + 0.5f)));
    const float fx = std::floor(x), fy = std::floor(y);
    const int ix = int(fx), iy = int(fy);
    if (!c) {  // the weights in float: each channel one weighted sum
      const float wx = x - fx, wy = y - fy;
      const float w[4] = {(1.f - wx) * (1.f - wy), wx * (1.f - wy), (1.f - wx) * wy, wx * wy};
      const Slot t[4] = {texel_slot(ix, iy), texel_slot(ix + 1, iy), texel_slot(ix, iy + 1), texel_slot(ix + 1, iy + 1)};
      Vec3<T> out;
      for (Slot k = 0; k < 3; ++k) out[int(k)] = P.weighted({t[0] + k, t[1] + k, t[2] + k, t[3] + k}, w);
      return out;
    }
    // The weights in T: the same values, moving with the coordinates.
    const T wx = (c->u * T(to_uv.scale.x) + T(to_uv.offset.x)) * T(float(width)) - T(0.5f + fx);
    const T wy = (c->v * T(to_uv.scale.y) + T(to_uv.offset.y)) * T(float(height)) - T(0.5f + fy);
    const T one(1.f);
    return at(ix, iy) * ((one - wx) * (one - wy)) + at(ix + 1, iy) * (wx * (one - wy)) + at(ix, iy + 1) * ((one - wx) * wy) +
           at(ix + 1, iy + 1) * (wx * wy);
  }

  template <class T>
  Vec3<T> eval(const ParamView<T>& P, const TexCoord<T>& c, bool) const {
    return texels(P, to_uv(c.at), c.moving ? &c : nullptr);
  }

  // The gradient (d/du, d/dv) of the luminance at surface coordinates uv, as Mitsuba's
  // eval_1_grad: bilinear's, through to_uv's scale (nearest: 0).
  template <class T>
  void gradient(const ParamView<T>& P, glm::vec2 uv, T& du, T& dv) const {
    du = dv = T(0.f);
    if (nearest) return;
    uv = to_uv(uv);
    const float x = uv.x * float(width) - 0.5f, y = uv.y * float(height) - 0.5f;
    const float fx = std::floor(x), fy = std::floor(y), wx = x - fx, wy = y - fy;
    const int ix = int(fx), iy = int(fy);
    const T f00 = luminance(texel(P, ix, iy)), f10 = luminance(texel(P, ix + 1, iy));
    const T f01 = luminance(texel(P, ix, iy + 1)), f11 = luminance(texel(P, ix + 1, iy + 1));
    du = ((f10 - f00) * T(1.f - wy) + (f11 - f01) * T(wy)) * T(float(width) * to_uv.scale.x);
    dv = ((f01 - f00) * T(1.f - wx) + (f11 - f10) * T(wx)) * T(float(height) * to_uv.scale.y);
  }

  bool seeded(const auto& P) const { return P.active(data, uint32_t(3 * size_t(width) * size_t(height))); }
  bool holds(Slot slot) const { return in_block(slot, data, uint32_t(3 * size_t(width) * size_t(height))); }
  glm::ivec2 size() const { return {width, height}; }
};

}  // namespace dray
