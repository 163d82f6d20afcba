#pragma once
// Mitsuba 3's `checkerboard`: `color0` (default 0.4) and `color1` (0.2) in the squares of a 2 × 2
// checker over UV [0, 1]², `to_uv`; piecewise constant (its motion with the surface is not followed).
// Read for a scalar (Mitsuba's eval_1) it picks its colours the other way round: its eval takes
// color0 where the two halves of (u, v) agree, its eval_1 where they differ
// (src/textures/checkerboard.cpp).
#include <cmath>
#include <string_view>

#include "renderer/textures/texture_props.h"

namespace dray {

struct CheckerboardTexture {
  static constexpr std::string_view kPlugins[] = {"checkerboard"};
  static CheckerboardTexture read(TextureProps& p) {
    p.keys({"color0", "color1", "to_uv"});
    CheckerboardTexture c;
    c.color0 = p.param("color0", p.has("color0") ? p.colour_value("color0") : glm::vec3(0.4f), Domain::at_least(0));
    c.color1 = p.param("color1", p.has("color1") ? p.colour_value("color1") : glm::vec3(0.2f), Domain::at_least(0));
    c.to_uv = p.to_uv();
    return c;
  }

  Slot color0 = kNoSlot, color1 = kNoSlot;
  ToUv to_uv;

  template <class T>
  Vec3<T> eval(const ParamView<T>& P, const TexCoord<T>& c, bool scalar) const {
    const glm::vec2 uv = to_uv(c.at);
    const bool a = uv.x - std::floor(uv.x) > 0.5f, b = uv.y - std::floor(uv.y) > 0.5f;
    return P.vec3((a == b) != scalar ? color0 : color1);
  }
  bool seeded(const auto& P) const { return P.active(color0, 3) || P.active(color1, 3); }
  bool holds(Slot slot) const { return in_block(slot, color0, 3) || in_block(slot, color1, 3); }
};

}  // namespace dray
