#pragma once
// Mitsuba 3's `roughdielectric`: a rough interface between `int_ior` and `ext_ior` (Walter et al.,
// "Microfacet Models for Refraction through Rough Surfaces", EGSR 2007), Beckmann or GGX, visible
// normals sampled from the side wo is on, then reflection or refraction chosen by F(wo·m).
// Radiance crossing into a denser medium is scaled by (n_i/n_t)², as for `dielectric`.
#include "renderer/bsdfs/bsdf_props.h"
#include "renderer/bsdfs/fresnel.h"
#include "renderer/bsdfs/microfacet.h"

namespace dray {

struct RoughDielectricBsdf {
  static constexpr std::string_view kPlugins[] = {"roughdielectric"};
  static RoughDielectricBsdf read(BsdfProps& p) {
    p.keys({"int_ior", "ext_ior", "specular_reflectance", "specular_transmittance", "distribution", "alpha", "alpha_u",
            "alpha_v", "sample_visible"});
    RoughDielectricBsdf b;
    read_roughness(p, b.distribution, b.alpha_u, b.alpha_v);
    read_dielectric(p, b.int_ior, b.ext_ior, b.specular_reflectance, b.specular_transmittance);
    return b;
  }

  MicrofacetType distribution = MicrofacetType::beckmann;
  ScalarInput alpha_u, alpha_v;
  Slot int_ior = kNoSlot, ext_ior = kNoSlot;
  ColourInput specular_reflectance, specular_transmittance;

  uint32_t flags() const { return kLobeGlossy | kLobeReflection | kLobeTransmission; }

  template <class T>
  Microfacet<T> microfacet(const Inputs<T>& P) const {
    return {distribution, clamped_alpha(P.scalar(alpha_u)), clamped_alpha(P.scalar(alpha_v))};
  }

  // The microfacet normal that takes wo to wi (upper hemisphere), and eta_t = n(wi side) /
  // n(wo side) for a refraction (1 for a reflection). False if there is none.
  template <class T>
  bool half_vector(const Inputs<T>& P, const Vec3<T>& wo, const Vec3<T>& wi, Vec3<T>& m, T& eta_t) const {
    const float co = value(wo.z), ci = value(wi.z);
    if (co == 0.f || ci == 0.f) return false;
    const bool reflect = co * ci > 0.f;
    const T eta = P.scalar(int_ior) / P.scalar(ext_ior);
    eta_t = reflect ? T(1.f) : (co > 0.f ? eta : T(1.f) / eta);
    m = wo + wi * eta_t;
    const T len = length(m);
    if (!(value(len) > 0.f)) return false;
    m = m / len;
    if (value(m.z) < 0.f) m = -m;
    // Both directions on the microfacet's own sides (no back-facing microfacets).
    return value(dot(wo, m)) * co > 0.f && value(dot(wi, m)) * ci > 0.f;
  }

  template <class T>
  Vec3<T> f(const Inputs<T>& P, const Vec3<T>& wo, const Vec3<T>& wi) const {
    Vec3<T> m;
    T eta_t;
    if (!half_vector(P, wo, wi, m, eta_t)) return Vec3<T>(T(0.f));
    const Microfacet<T> d = microfacet(P);
    const T D = d.D(m);
    if (!(value(D) > 0.f)) return Vec3<T>(T(0.f));
    const T G = d.G(wo, wi, m), om = dot(wo, m), im = dot(wi, m);
    const T F = fresnel_dielectric(om, P.scalar(int_ior) / P.scalar(ext_ior));
    const T cos_oi = abs(wo.z * wi.z);
    if (value(wo.z) * value(wi.z) > 0.f) return P.vec3(specular_reflectance) * (F * D * G / (T(4.f) * cos_oi));
    const T denom = om + eta_t * im;
    return P.vec3(specular_transmittance) * ((T(1.f) - F) * D * G * abs(om * im) / (cos_oi * denom * denom));
  }

  float pdf(const Inputs<float>& P, const glm::vec3& wo, const glm::vec3& wi) const {
    Vec3<float> m;
    float eta_t;
    if (!half_vector(P, Vec3<float>(wo), Vec3<float>(wi), m, eta_t)) return 0.f;
    const glm::vec3 mg = to_glm(m), wo_up = wo.z > 0.f ? wo : -wo;
    const float pm = visible_normal_pdf(microfacet(P), wo_up, mg);
    const float om = glm::dot(wo, mg), im = glm::dot(wi, mg);
    const float F = fresnel_dielectric(om, P.scalar(int_ior) / P.scalar(ext_ior));
    if (wo.z * wi.z > 0.f) return pm * F / (4.f * std::fabs(om));
    const float denom = om + eta_t * im;
    return pm * (1.f - F) * eta_t * eta_t * std::fabs(im) / (denom * denom);
  }

  BsdfSample sample(const Inputs<float>& P, const glm::vec3& wo, float uc, glm::vec2 u) const {
    BsdfSample s;
    if (wo.z == 0.f) return s;
    const glm::vec3 wo_up = wo.z > 0.f ? wo : -wo;
    const glm::vec3 m = sample_visible_normal(microfacet(P), wo_up, u);
    float cos_t, eta_ti;
    const float om = glm::dot(wo, m);
    const float F = fresnel_dielectric(om, P.scalar(int_ior) / P.scalar(ext_ior), cos_t, eta_ti);
    if (uc < F) {
      s.wi = reflect_about(wo, m);
      if (!(s.wi.z * wo.z > 0.f)) return BsdfSample{};
      s.lobe = kLobeGlossy | kLobeReflection;
    } else {
      s.wi = m * (om * eta_ti + cos_t) - wo * eta_ti;
      if (!(s.wi.z * wo.z < 0.f)) return BsdfSample{};
      s.lobe = kLobeGlossy | kLobeTransmission;
      s.eta = 1.f / eta_ti;
    }
    s.pdf = pdf(P, wo, s.wi);
    if (!(s.pdf > 0.f)) return BsdfSample{};
    s.weight = to_glm(f(P, Vec3<float>(wo), Vec3<float>(s.wi))) * (std::fabs(s.wi.z) / s.pdf);
    return s;
  }
};

}  // namespace dray
