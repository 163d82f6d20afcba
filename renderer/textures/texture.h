#pragma once
// The texture interface: Mitsuba 3's src/textures as a closed set (one header each) in a
// std::variant, dispatched without virtual calls. A texture is a colour that varies over the
// surface with its UV coordinates (a mesh attribute: with the point's triangle and barycentrics; a
// 3D texture: with its position). Every texture provides
//   eval(P, c, scalar)   in T   its colour at coordinates c (`scalar`: read for a scalar, Mitsuba's
//                               eval_1, where a texture may differ: checkerboard.h);
//   seeded(P)                   whether the pass seeds any of its values;
//   holds(slot)                 whether the parameter at slot is one of its values (none: not);
// and may provide eval_1(P, c) (its scalar; else the luminance of its colour), gradient(P, uv, du,
// dv) (the luminance's, for bump maps; else 0) and size() (an image's; else 0 × 0); and, for
// loading, kPlugins (Mitsuba's names) and static read(TextureProps&) (textures/texture_props.h).
// The variant's list below is the registry (core/registry.h): adding a texture touches its header,
// this list and its test.
#include <string>
#include <variant>

#include "renderer/textures/bitmap.h"
#include "renderer/textures/checkerboard.h"
#include "renderer/textures/mesh_attribute.h"
#include "renderer/textures/rawconstant.h"
#include "renderer/textures/volume.h"

namespace dray {

using TextureModel = std::variant<BitmapTexture, CheckerboardTexture, RawConstantTexture, MeshAttributeTexture, VolumeTexture>;

struct Texture {
  std::string name;
  TextureModel model;
};

template <class T>
Vec3<T> eval_texture(const Texture& tex, const ParamView<T>& P, const TexCoord<T>& c, bool scalar = false) {
  return std::visit([&](const auto& x) { return x.eval(P, c, scalar); }, tex.model);
}
template <class T>
Vec3<T> eval_texture(const Texture& tex, const ParamView<T>& P, glm::vec2 uv, bool scalar = false) {
  return eval_texture(tex, P, TexCoord<T>(uv), scalar);
}

// The texture's scalar at uv (Mitsuba's eval_1): the luminance of its colour, or its own.
template <class T>
T eval_texture_1(const Texture& tex, const ParamView<T>& P, const TexCoord<T>& c) {
  return std::visit(
      [&](const auto& x) -> T {
        if constexpr (requires { x.eval_1(P, c); }) return x.eval_1(P, c);
        else return luminance(x.eval(P, c, true));
      },
      tex.model);
}
template <class T>
T eval_texture_1(const Texture& tex, const ParamView<T>& P, glm::vec2 uv) {
  return eval_texture_1(tex, P, TexCoord<T>(uv));
}

// The gradient (d/du, d/dv) of a texture's luminance at surface coordinates uv, as Mitsuba's
// eval_1_grad: 0 where a texture has none (piecewise constant).
template <class T>
void texture_gradient(const Texture& tex, const ParamView<T>& P, glm::vec2 uv, T& du, T& dv) {
  du = dv = T(0.f);
  std::visit(
      [&](const auto& x) {
        if constexpr (requires { x.gradient(P, uv, du, dv); }) x.gradient(P, uv, du, dv);
      },
      tex.model);
}

// Whether the pass seeds any of the texture's values.
inline bool texture_seeded(const Texture& tex, const auto& P) {
  return std::visit([&](const auto& x) { return x.seeded(P); }, tex.model);
}

// Whether the parameter at `slot` is one of the texture's values.
inline bool texture_holds(const Texture& tex, Slot slot) {
  return std::visit(
      [&](const auto& x) {
        if constexpr (requires { x.holds(slot); }) return x.holds(slot);
        else return false;
      },
      tex.model);
}

// An image texture's width and height (0 × 0 for others).
inline glm::ivec2 texture_size(const Texture& tex) {
  return std::visit(
      [](const auto& x) -> glm::ivec2 {
        if constexpr (requires { x.size(); }) return x.size();
        else return glm::ivec2(0);
      },
      tex.model);
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
