#pragma once
// Mitsuba 3's `conductor`: a smooth metal, a Dirac reflection weighted by the conductor Fresnel
// term of its complex index (eta, k; a named `material`; or none: a perfect mirror) and by
// `specular_reflectance`. dray's `mirror` is this with no index.
#include "renderer/bsdfs/bsdf_props.h"
#include "renderer/bsdfs/fresnel.h"
#include "renderer/core/frame.h"
#include "renderer/textures/texture.h"

namespace dray {

// A conductor's Fresnel reflectance per channel at cos_i; no index (kNoSlot): 1.
template <class T>
Vec3<T> conductor_fresnel(const Inputs<T>& P, const ColourInput& eta, const ColourInput& k, const T& cos_i) {
  if (!eta.given()) return Vec3<T>(T(1.f));
  const Vec3<T> e = P.vec3(eta), kk = P.vec3(k);
  return {fresnel_conductor(cos_i, e.x, kk.x), fresnel_conductor(cos_i, e.y, kk.y), fresnel_conductor(cos_i, e.z, kk.z)};
}

struct ConductorBsdf : DiracOnly {
  static constexpr std::string_view kPlugins[] = {"conductor", "mirror"};  // mirror: dray's, no index
  static ConductorBsdf read(BsdfProps& p) {
    ConductorBsdf b;
    if (p.type() == "mirror") {
      p.keys({"specular_reflectance", "tint"});
      b.specular_reflectance = p.colour("specular_reflectance", glm::vec3(1.f), "tint");
      return b;
    }
    p.keys({"material", "eta", "k", "specular_reflectance"});
    read_conductor_index(p, b.eta, b.k);
    b.specular_reflectance = p.colour("specular_reflectance", glm::vec3(1.f));
    return b;
  }

  ColourInput eta, k;  // none: a perfect mirror
  ColourInput specular_reflectance;  // vec3

  uint32_t flags() const { return kLobeDelta | kLobeReflection; }

  BsdfSample sample(const Inputs<float>& P, const glm::vec3& wo, float, glm::vec2) const {
    BsdfSample s;
    if (!(wo.z > 0.f)) return s;
    s.wi = reflect_local(wo);
    s.pdf = 1.f;
    s.weight = to_glm(delta(P, Vec3<float>(wo), s).weight);
    s.lobe = flags();
    return s;
  }

  template <class T>
  DeltaLobe<T> delta(const Inputs<T>& P, const Vec3<T>& wo, const BsdfSample&) const {
    return {reflect_local(wo), conductor_fresnel(P, eta, k, wo.z) * P.vec3(specular_reflectance)};
  }
};

}  // namespace dray
