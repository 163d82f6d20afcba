#pragma once
// Mitsuba 3's BSDF::eval_diffuse_reflectance (the `aov` integrator's `albedo`): a diffuse's
// reflectance, a plastic's or rough plastic's diffuse_reflectance, a principled's base_color, a
// blend's mixture of its two; any other BSDF π f(view, n), its value lit along the normal
// (Mitsuba's default: eval at wo = (0, 0, 1), times π), 0 for a Dirac one.
#include <type_traits>
#include <variant>

#include "renderer/bsdfs/bsdf.h"

namespace dray {

inline glm::vec3 diffuse_reflectance(const Bsdf& b, const Inputs<float>& in, const glm::vec3& view) {
  return std::visit(
      [&](const auto& x) -> glm::vec3 {
        using B = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<B, DiffuseBsdf>) return to_glm(in.vec3(x.reflectance));
        else if constexpr (std::is_same_v<B, PlasticBsdf>) return to_glm(in.vec3(x.diffuse_reflectance));
        else if constexpr (std::is_same_v<B, RoughPlasticBsdf>) return to_glm(in.vec3(x.base.diffuse_reflectance));
        else if constexpr (std::is_same_v<B, PrincipledBsdf> || std::is_same_v<B, PrincipledThinBsdf>)
          return to_glm(in.vec3(x.base_color));
        else if constexpr (std::is_same_v<B, BlendBsdf>) {
          const float w = x.w(in);
          return diffuse_reflectance(*x.a.p, in, view) * (1.f - w) + diffuse_reflectance(*x.b.p, in, view) * w;
        } else {
          return to_glm(bsdf_f(b, in, Vec3<float>(view), Vec3<float>(0.f, 0.f, 1.f))) * kPi;
        }
      },
      b);
}

}  // namespace dray
