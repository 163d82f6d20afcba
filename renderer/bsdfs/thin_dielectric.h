#pragma once
// Mitsuba 3's `thindielectric`: a thin pane of glass (`int_ior` inside, `ext_ior` outside). Light
// reflects with the pane's total reflectance R = 2F / (1 + F) (every internal bounce summed, F the
// Fresnel term at the incidence) or passes straight through with 1 − R; both Dirac. As in
// Mitsuba's `path`, shadow rays do not pass it.
#include "renderer/bsdfs/bsdf_props.h"
#include "renderer/bsdfs/fresnel.h"
#include "renderer/core/frame.h"
#include "renderer/textures/texture.h"

namespace dray {

struct ThinDielectricBsdf : DiracOnly {
  static constexpr std::string_view kPlugins[] = {"thindielectric"};
  static ThinDielectricBsdf read(BsdfProps& p) { return read_smooth_dielectric<ThinDielectricBsdf>(p); }

  Slot int_ior = kNoSlot, ext_ior = kNoSlot;
  ColourInput specular_reflectance, specular_transmittance;

  uint32_t flags() const { return kLobeDelta | kLobeReflection | kLobeTransmission; }

  template <class T>
  T reflectance(const Inputs<T>& P, const T& cos_i) const {
    const T F = fresnel_dielectric(abs(cos_i), P.scalar(int_ior) / P.scalar(ext_ior));
    return F * T(2.f) / (T(1.f) + F);
  }

  BsdfSample sample(const Inputs<float>& P, const glm::vec3& wo, float uc, glm::vec2) const {
    BsdfSample s;
    if (wo.z == 0.f) return s;
    const float R = reflectance(P, wo.z);
    const bool reflect = uc <= R;
    s.lobe = kLobeDelta | (reflect ? kLobeReflection : kLobeTransmission);
    s.pdf = reflect ? R : 1.f - R;
    if (!(s.pdf > 0.f)) return BsdfSample{};
    const DeltaLobe<float> d = delta(P, Vec3<float>(wo), s);
    s.wi = to_glm(d.wi);
    s.weight = to_glm(d.weight);
    return s;
  }

  // The lobe `s` chose, in T: R / P(reflect), or (1 − R) / P(pass) straight through.
  template <class T>
  DeltaLobe<T> delta(const Inputs<T>& P, const Vec3<T>& wo, const BsdfSample& s) const {
    const T R = reflectance(P, wo.z);
    if (s.lobe & kLobeReflection) return {reflect_local(wo), P.vec3(specular_reflectance) * (R / T(s.pdf))};
    return {-wo, P.vec3(specular_transmittance) * ((T(1.f) - R) / T(s.pdf))};
  }
};

}  // namespace dray
