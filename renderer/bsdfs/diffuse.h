#pragma once
// Mitsuba 3's `diffuse`: Lambertian reflection, f = reflectance / π.
#include "renderer/bsdfs/bsdf_props.h"
#include "renderer/core/frame.h"
#include "renderer/textures/texture.h"

namespace dray {

struct DiffuseBsdf {
  static constexpr std::string_view kPlugins[] = {"diffuse"};
  static DiffuseBsdf read(BsdfProps& p) {
    p.keys({"reflectance", "albedo"});
    return {p.colour("reflectance", glm::vec3(0.5f), "albedo", true)};
  }

  ColourInput reflectance;

  uint32_t flags() const { return kLobeDiffuse | kLobeReflection; }

  template <class T>
  Vec3<T> f(const Inputs<T>& P, const Vec3<T>& wo, const Vec3<T>& wi) const {
    if (!(value(wo.z) > 0.f && value(wi.z) > 0.f)) return Vec3<T>(T(0.f));
    return P.vec3(reflectance) * T(1.f / kPi);
  }

  float pdf(const Inputs<float>&, const glm::vec3& wo, const glm::vec3& wi) const {
    return wo.z > 0.f && wi.z > 0.f ? wi.z / kPi : 0.f;
  }

  BsdfSample sample(const Inputs<float>& P, const glm::vec3& wo, float, glm::vec2 u) const {
    BsdfSample s;
    if (!(wo.z > 0.f)) return s;
    s.wi = cosine_hemisphere(u);
    s.pdf = s.wi.z / kPi;
    if (!(s.pdf > 0.f)) return s;
    s.weight = to_glm(P.vec3(reflectance));
    s.lobe = flags();
    return s;
  }
};

}  // namespace dray
