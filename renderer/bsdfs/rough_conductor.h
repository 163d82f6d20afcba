#pragma once
// Mitsuba 3's `roughconductor`: a microfacet metal (Beckmann or GGX, `alpha` or `alpha_u`/`alpha_v`),
// f = F(wo·m) D(m) G(wo, wi) / (4 cos θo cos θi), sampled by its visible normals.
#include "renderer/bsdfs/bsdf_props.h"
#include "renderer/bsdfs/conductor.h"
#include "renderer/bsdfs/microfacet.h"

namespace dray {

struct RoughConductorBsdf {
  static constexpr std::string_view kPlugins[] = {"roughconductor"};
  static RoughConductorBsdf read(BsdfProps& p) {
    p.keys({"material", "eta", "k", "specular_reflectance", "distribution", "alpha", "alpha_u", "alpha_v", "sample_visible"});
    RoughConductorBsdf b;
    read_roughness(p, b.distribution, b.alpha_u, b.alpha_v);
    read_conductor_index(p, b.eta, b.k);
    b.specular_reflectance = p.colour("specular_reflectance", glm::vec3(1.f));
    return b;
  }

  MicrofacetType distribution = MicrofacetType::beckmann;
  ScalarInput alpha_u, alpha_v;  // scalars; the same slot when isotropic
  ColourInput eta, k;
  ColourInput specular_reflectance;

  uint32_t flags() const { return kLobeGlossy | kLobeReflection; }

  template <class T>
  Microfacet<T> microfacet(const Inputs<T>& P) const {
    return {distribution, clamped_alpha(P.scalar(alpha_u)), clamped_alpha(P.scalar(alpha_v))};
  }

  template <class T>
  Vec3<T> f(const Inputs<T>& P, const Vec3<T>& wo, const Vec3<T>& wi) const {
    if (!(value(wo.z) > 0.f && value(wi.z) > 0.f)) return Vec3<T>(T(0.f));
    const Vec3<T> m = normalize(wo + wi);
    const Microfacet<T> d = microfacet(P);
    const T D = d.D(m);
    if (!(value(D) > 0.f)) return Vec3<T>(T(0.f));
    const T scalar = D * d.G(wo, wi, m) / (T(4.f) * wo.z * wi.z);
    return conductor_fresnel(P, eta, k, dot(wo, m)) * P.vec3(specular_reflectance) * scalar;
  }

  float pdf(const Inputs<float>& P, const glm::vec3& wo, const glm::vec3& wi) const {
    if (!(wo.z > 0.f && wi.z > 0.f)) return 0.f;
    const glm::vec3 m = glm::normalize(wo + wi);
    return visible_normal_pdf(microfacet(P), wo, m) / (4.f * glm::dot(wo, m));
  }

  BsdfSample sample(const Inputs<float>& P, const glm::vec3& wo, float, glm::vec2 u) const {
    BsdfSample s;
    if (!(wo.z > 0.f)) return s;
    const glm::vec3 m = sample_visible_normal(microfacet(P), wo, u);
    s.wi = reflect_about(wo, m);
    if (!(s.wi.z > 0.f)) return s;
    s.pdf = pdf(P, wo, s.wi);
    if (!(s.pdf > 0.f)) return s;
    s.weight = to_glm(f(P, Vec3<float>(wo), Vec3<float>(s.wi))) * (s.wi.z / s.pdf);
    s.lobe = flags();
    return s;
  }
};

}  // namespace dray
