#pragma once
// Mitsuba 3's `roughplastic` (src/bsdfs/roughplastic.cpp): a diffuse base under a rough dielectric
// coating (Beckmann or GGX, `alpha`, `int_ior` / `ext_ior`). The coating reflects
// F(wo·m) D G / (4 cos θo cos θi) `specular_reflectance`; the base, seen through it,
//   f = ρ' t(cos θi) t(cos θo) / (π η²),  ρ' = ρ / (1 − R_i)  (`nonlinear`: ρ / (1 − ρ R_i)),
// with t the rough coating's transmittance and R_i its internal reflectance, tabulated for the
// coating's α and η as Mitsuba tabulates them (renderer/bsdfs/rough_coating.h). The specular lobe
// is picked with probability (1 − t_i) w / ((1 − t_i) w + t_i (1 − w)), w = s̄ / (s̄ + d̄) of the
// two reflectances' means, as Mitsuba's.
#include <memory>

#include "renderer/bsdfs/bsdf_props.h"
#include "renderer/bsdfs/microfacet.h"
#include "renderer/bsdfs/plastic.h"
#include "renderer/bsdfs/rough_coating.h"

namespace dray {

struct RoughPlasticBsdf;
// The coating table for the current α and η (below).
inline void refresh_coating(RoughPlasticBsdf& b, const ParamTable& params);

struct RoughPlasticBsdf {
  static constexpr std::string_view kPlugins[] = {"roughplastic"};
  static RoughPlasticBsdf read(BsdfProps& p) {
    p.keys({"int_ior", "ext_ior", "diffuse_reflectance", "specular_reflectance", "nonlinear", "distribution", "alpha",
            "sample_visible"});
    RoughPlasticBsdf r;
    r.base = PlasticBsdf::read_coated(p);
    ScalarInput alpha_u, alpha_v;  // a number: the coating's table is built for it (Mitsuba's roughplastic too)
    read_roughness(p, r.distribution, alpha_u, alpha_v, false);
    r.alpha = alpha_u.slot;
    if (p.params().get(r.base.int_ior) == p.params().get(r.base.ext_ior))
      p.fail("int_ior", "must differ from ext_ior (a coating that does not refract has no transmittance table)");
    refresh_coating(r, p.params());
    return r;
  }

  PlasticBsdf base;  // IORs, reflectances, nonlinear: the smooth plastic's
  MicrofacetType distribution = MicrofacetType::beckmann;
  Slot alpha = kNoSlot;
  std::shared_ptr<const CoatingTable> coating;  // for the current α and η (Scene::refresh_tables)

  uint32_t flags() const { return kLobeGlossy | kLobeDiffuse | kLobeReflection; }

  template <class T>
  Microfacet<T> microfacet(const Inputs<T>& P) const {
    return {distribution, clamped_alpha(P.scalar(alpha)), clamped_alpha(P.scalar(alpha))};
  }
  template <class T>
  T eta(const Inputs<T>& P) const {
    return P.scalar(base.int_ior) / P.scalar(base.ext_ior);
  }

  template <class T>
  Vec3<T> f(const Inputs<T>& P, const Vec3<T>& wo, const Vec3<T>& wi) const {
    if (!(value(wo.z) > 0.f && value(wi.z) > 0.f)) return Vec3<T>(T(0.f));
    const T a = P.scalar(alpha), e = eta(P);
    // The base through the coating.
    const T ri = coating->internal_reflectance(a, e);
    const Vec3<T> rho = P.vec3(base.diffuse_reflectance);
    Vec3<T> result;
    for (int c = 0; c < 3; ++c) result[c] = rho[c] / (T(1.f) - (base.nonlinear ? rho[c] * ri : ri));
    result = result * (coating->transmittance(wo.z, a, e) * coating->transmittance(wi.z, a, e) / (e * e * T(kPi)));
    // The coating's reflection.
    const Vec3<T> m = normalize(wo + wi);
    const Microfacet<T> d = microfacet(P);
    const T D = d.D(m);
    if (!(value(D) > 0.f)) return result;
    const T F = fresnel_dielectric(dot(wo, m), e);
    return result + P.vec3(base.specular_reflectance) * (F * D * d.G(wo, wi, m) / (T(4.f) * wo.z * wi.z));
  }

  float specular_probability(const Inputs<float>& P, const glm::vec3& wo) const {
    const float t = coating->transmittance(wo.z, P.scalar(alpha), eta(P));
    const float s_mean = mean(to_glm(P.vec3(base.specular_reflectance))), d_mean = mean(to_glm(P.vec3(base.diffuse_reflectance)));
    const float w = s_mean + d_mean > 0.f ? s_mean / (s_mean + d_mean) : 0.5f;
    const float ps = (1.f - t) * w, pd = t * (1.f - w);
    return ps + pd > 0.f ? ps / (ps + pd) : 0.5f;
  }

  float pdf(const Inputs<float>& P, const glm::vec3& wo, const glm::vec3& wi) const {
    if (!(wo.z > 0.f && wi.z > 0.f)) return 0.f;
    const float ps = specular_probability(P, wo);
    const glm::vec3 m = glm::normalize(wo + wi);
    return ps * visible_normal_pdf(microfacet(P), wo, m) / (4.f * glm::dot(wo, m)) + (1.f - ps) * wi.z / kPi;
  }

  BsdfSample sample(const Inputs<float>& P, const glm::vec3& wo, float uc, glm::vec2 u) const {
    BsdfSample s;
    if (!(wo.z > 0.f)) return s;
    s.wi = uc < specular_probability(P, wo) ? reflect_about(wo, sample_visible_normal(microfacet(P), wo, u))
                                             : cosine_hemisphere(u);
    if (!(s.wi.z > 0.f)) return BsdfSample{};
    s.pdf = pdf(P, wo, s.wi);
    if (!(s.pdf > 0.f)) return BsdfSample{};
    s.weight = to_glm(f(P, Vec3<float>(wo), Vec3<float>(s.wi))) * (s.wi.z / s.pdf);
    s.lobe = flags();
    return s;
  }
};

// The coating table for the parameters' current α and η (a cached one when they did not change).
inline void refresh_coating(RoughPlasticBsdf& b, const ParamTable& params) {
  const float a = params.get(b.alpha), e = params.get(b.base.int_ior) / params.get(b.base.ext_ior);
  if (!b.coating || b.coating->alpha != a || b.coating->eta != e || b.coating->type != b.distribution)
    b.coating = coating_table(b.distribution, a, e);
}

}  // namespace dray
