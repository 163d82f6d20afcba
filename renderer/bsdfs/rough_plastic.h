#pragma once
// Mitsuba 3's `roughplastic`: `plastic` with a rough coating (Beckmann or GGX, `alpha`): the
// coating's microfacet reflection F(wo·m) D G / (4 cos θo cos θi) on top of plastic's diffuse base.
// One simplification, measured in the tests: light enters and leaves the base through the smooth
// Fresnel transmittance 1 - F(θ) (Mitsuba tabulates the rough coating's, which differs by the
// coating's shadowing), so that alpha and the IORs stay differentiable everywhere.
#include "renderer/bsdfs/microfacet.h"
#include "renderer/bsdfs/plastic.h"

namespace dray {

struct RoughPlasticBsdf {
  PlasticBsdf base;  // IORs, reflectances, nonlinear: the smooth plastic's
  MicrofacetType distribution = MicrofacetType::beckmann;
  Slot alpha = kNoSlot;

  uint32_t flags() const { return kLobeGlossy | kLobeDiffuse | kLobeReflection; }

  template <class T>
  Microfacet<T> microfacet(const Inputs<T>& P) const {
    return {distribution, P.scalar(alpha), P.scalar(alpha)};
  }

  template <class T>
  Vec3<T> f(const Inputs<T>& P, const Vec3<T>& wo, const Vec3<T>& wi) const {
    if (!(value(wo.z) > 0.f && value(wi.z) > 0.f)) return Vec3<T>(T(0.f));
    Vec3<T> result = base.f(P, wo, wi);
    const Vec3<T> m = normalize(wo + wi);
    const Microfacet<T> d = microfacet(P);
    const T D = d.D(m);
    if (!(value(D) > 0.f)) return result;
    const T F = fresnel_dielectric(dot(wo, m), P.scalar(base.int_ior) / P.scalar(base.ext_ior));
    return result + P.vec3(base.specular_reflectance) * (F * D * d.G(wo, wi, m) / (T(4.f) * wo.z * wi.z));
  }

  float pdf(const Inputs<float>& P, const glm::vec3& wo, const glm::vec3& wi) const {
    if (!(wo.z > 0.f && wi.z > 0.f)) return 0.f;
    const float ps = base.specular_probability(P, wo);
    const glm::vec3 m = glm::normalize(wo + wi);
    return ps * visible_normal_pdf(microfacet(P), wo, m) / (4.f * glm::dot(wo, m)) + (1.f - ps) * wi.z / kPi;
  }

  BsdfSample sample(const Inputs<float>& P, const glm::vec3& wo, float uc, glm::vec2 u) const {
    BsdfSample s;
    if (!(wo.z > 0.f)) return s;
    s.wi = uc < base.specular_probability(P, wo) ? reflect_about(wo, sample_visible_normal(microfacet(P), wo, u))
                                                  : cosine_hemisphere(u);
    if (!(s.wi.z > 0.f)) return BsdfSample{};
    s.pdf = pdf(P, wo, s.wi);
    if (!(s.pdf > 0.f)) return BsdfSample{};
    s.weight = to_glm(f(P, Vec3<float>(wo), Vec3<float>(s.wi))) * (s.wi.z / s.pdf);
    s.lobe = flags();
    return s;
  }
};

}  // namespace dray
