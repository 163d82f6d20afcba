#pragma once
// Mitsuba 3's `plastic`: a diffuse base under a smooth dielectric coating (`int_ior`, `ext_ior`).
// A Dirac reflection F(θ) `specular_reflectance` on top; the light the coating lets in scatters
// diffusely inside, f = ρ' (1 - F(θi)) (1 - F(θo)) / (π η²), where ρ' = ρ / (1 - F_dr) accounts for
// internal reflections (with `nonlinear`, ρ / (1 - ρ F_dr): the colour shift of a varnished base).
#include <algorithm>

#include "renderer/bsdfs/bsdf_props.h"
#include "renderer/bsdfs/fresnel.h"
#include "renderer/core/frame.h"
#include "renderer/textures/texture.h"

namespace dray {

struct PlasticBsdf {
  static constexpr std::string_view kPlugins[] = {"plastic"};
  static PlasticBsdf read(BsdfProps& p) {
    p.keys({"int_ior", "ext_ior", "diffuse_reflectance", "specular_reflectance", "nonlinear"});
    return read_coated(p);
  }
  // What plastic and roughplastic share: the coating's IORs, the two reflectances, nonlinear.
  static PlasticBsdf read_coated(BsdfProps& p) {
    PlasticBsdf b;
    b.int_ior = p.param("int_ior", ior_value(p, "int_ior", "polypropylene"), Domain::positive());
    b.ext_ior = p.param("ext_ior", ior_value(p, "ext_ior", "air"), Domain::positive());
    b.diffuse_reflectance = p.colour("diffuse_reflectance", glm::vec3(0.5f), nullptr, true);
    b.specular_reflectance = p.colour("specular_reflectance", glm::vec3(1.f));
    b.nonlinear = p.has("nonlinear") && p.boolean("nonlinear");
    return b;
  }

  Slot int_ior = kNoSlot, ext_ior = kNoSlot;                        // scalars
  ColourInput diffuse_reflectance, specular_reflectance;  // vec3
  bool nonlinear = false;

  uint32_t flags() const { return kLobeDelta | kLobeDiffuse | kLobeReflection; }

  template <class T>
  Vec3<T> f(const Inputs<T>& P, const Vec3<T>& wo, const Vec3<T>& wi) const {
    if (!(value(wo.z) > 0.f && value(wi.z) > 0.f)) return Vec3<T>(T(0.f));
    const T eta = P.scalar(int_ior) / P.scalar(ext_ior);
    const T fdr = fresnel_diffuse_reflectance(T(1.f) / eta);
    const Vec3<T> rho = P.vec3(diffuse_reflectance);
    Vec3<T> base;
    for (int c = 0; c < 3; ++c) base[c] = rho[c] / (T(1.f) - (nonlinear ? rho[c] * fdr : fdr));
    const T t = (T(1.f) - fresnel_dielectric(wo.z, eta)) * (T(1.f) - fresnel_dielectric(wi.z, eta));
    return base * (t / (eta * eta * T(kPi)));
  }

  // The probability of the Dirac lobe at wo (Mitsuba's: the Fresnel term against the means of the
  // two reflectances).
  float specular_probability(const Inputs<float>& P, const glm::vec3& wo) const {
    const float F = fresnel_dielectric(wo.z, P.scalar(int_ior) / P.scalar(ext_ior));
    const float s_mean = mean(to_glm(P.vec3(specular_reflectance))), d_mean = mean(to_glm(P.vec3(diffuse_reflectance)));
    const float w = s_mean + d_mean > 0.f ? s_mean / (s_mean + d_mean) : 0.5f;
    const float ps = F * w, pd = (1.f - F) * (1.f - w);
    return ps + pd > 0.f ? ps / (ps + pd) : 0.5f;
  }

  float pdf(const Inputs<float>& P, const glm::vec3& wo, const glm::vec3& wi) const {
    if (!(wo.z > 0.f && wi.z > 0.f)) return 0.f;
    return (1.f - specular_probability(P, wo)) * wi.z / kPi;
  }

  BsdfSample sample(const Inputs<float>& P, const glm::vec3& wo, float uc, glm::vec2 u) const {
    BsdfSample s;
    if (!(wo.z > 0.f)) return s;
    const float ps = specular_probability(P, wo);
    if (uc < ps) {
      s.wi = reflect_local(wo);
      s.pdf = ps;
      s.lobe = kLobeDelta | kLobeReflection;
      s.weight = to_glm(delta(P, Vec3<float>(wo), s).weight);
      return s;
    }
    s.wi = cosine_hemisphere(u);
    s.pdf = (1.f - ps) * s.wi.z / kPi;
    if (!(s.pdf > 0.f)) return BsdfSample{};
    s.lobe = kLobeDiffuse | kLobeReflection;
    s.weight = to_glm(f(P, Vec3<float>(wo), Vec3<float>(s.wi))) * (s.wi.z / s.pdf);
    return s;
  }

  template <class T>
  DeltaLobe<T> delta(const Inputs<T>& P, const Vec3<T>& wo, const BsdfSample& s) const {
    const T F = fresnel_dielectric(wo.z, P.scalar(int_ior) / P.scalar(ext_ior));
    return {reflect_local(wo), P.vec3(specular_reflectance) * (F / T(s.pdf))};
  }
};

}  // namespace dray
