#pragma once
// Mitsuba 3's `rawconstant`: a value as given (one number or three), no colour conversion, a
// parameter textures.NAME.value.
#include <string_view>

#include "renderer/textures/texture_props.h"

namespace dray {

struct RawConstantTexture {
  static constexpr std::string_view kPlugins[] = {"rawconstant"};
  static RawConstantTexture read(TextureProps& p) {
    p.keys({"value"}, {"value"});
    return {p.param("value", p.is_number("value") ? glm::vec3(float(p.number("value"))) : p.colour_value("value"))};
  }

  Slot value = kNoSlot;

  template <class T>
  Vec3<T> eval(const ParamView<T>& P, const TexCoord<T>&, bool) const {
    return P.vec3(value);
  }
  bool seeded(const auto& P) const { return P.active(value, 3); }
  bool holds(Slot slot) const { return in_block(slot, value, 3); }
};

}  // namespace dray
