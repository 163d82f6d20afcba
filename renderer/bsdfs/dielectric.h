#pragma once
// Mitsuba 3's `dielectric`: a smooth interface between two indices of refraction (`int_ior`
// inside, `ext_ior` outside), Dirac reflection and refraction chosen by the Fresnel term. Radiance
// crossing into a denser medium is scaled by (n_i / n_t)², as in Mitsuba's radiance transport.
#include "renderer/bsdfs/bsdf_props.h"
#include "renderer/bsdfs/fresnel.h"
#include "renderer/core/frame.h"
#include "renderer/textures/texture.h"

namespace dray {

struct DielectricBsdf : DiracOnly {
  static constexpr std::string_view kPlugins[] = {"dielectric"};
  static DielectricBsdf read(BsdfProps& p) { return read_smooth_dielectric<DielectricBsdf>(p); }

  Slot int_ior = kNoSlot, ext_ior = kNoSlot;                        // scalars
  ColourInput specular_reflectance, specular_transmittance;  // vec3

  uint32_t flags() const { return kLobeDelta | kLobeReflection | kLobeTransmission; }

  // wo may be on either side (z < 0: inside).
  BsdfSample sample(const Inputs<float>& P, const glm::vec3& wo, float uc, glm::vec2) const {
    BsdfSample s;
    if (wo.z == 0.f) return s;
    const float F = fresnel_dielectric(wo.z, P.scalar(int_ior) / P.scalar(ext_ior));
    const bool reflect = uc < F;
    s.lobe = kLobeDelta | (reflect ? kLobeReflection : kLobeTransmission);
    s.pdf = reflect ? F : 1.f - F;
    if (!(s.pdf > 0.f)) return BsdfSample{};
    const DeltaLobe<float> d = delta(P, Vec3<float>(wo), s);
    s.wi = to_glm(d.wi);
    s.weight = to_glm(d.weight);
    s.eta = reflect ? 1.f : (wo.z > 0.f ? P.scalar(int_ior) / P.scalar(ext_ior) : P.scalar(ext_ior) / P.scalar(int_ior));
    return s;
  }

  // The lobe `s` chose, in T: F / P(reflect) or (1 - F) (n_i/n_t)² / P(refract).
  template <class T>
  DeltaLobe<T> delta(const Inputs<T>& P, const Vec3<T>& wo, const BsdfSample& s) const {
    T cos_t, eta_ti;
    const T F = fresnel_dielectric(wo.z, P.scalar(int_ior) / P.scalar(ext_ior), cos_t, eta_ti);
    if (s.lobe & kLobeReflection) return {reflect_local(wo), P.vec3(specular_reflectance) * (F / T(s.pdf))};
    const Vec3<T> wi{-eta_ti * wo.x, -eta_ti * wo.y, cos_t};
    return {wi, P.vec3(specular_transmittance) * ((T(1.f) - F) * eta_ti * eta_ti / T(s.pdf))};
  }
};

}  // namespace dray
