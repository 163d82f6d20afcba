#pragma once
// The BSDF interface: a closed set of materials (one header each) in a std::variant built at load
// time, dispatched without virtual calls (as pbrt-v4's BxDF). Every BSDF provides
//   flags()                     its lobes (Lobe);
//   f(P, wo, wi)         in T   the non-Dirac part of the BSDF, without the cosine;
//   pdf(P, wo, wi)       float  the density with which sample() draws wi (non-Dirac lobes);
//   sample(P, wo, uc, u) float  a direction (a decision: made on the parameters' values);
//   delta(P, wo, s)      in T   for Dirac lobes: the sampled lobe's direction and weight,
//                               re-evaluated so that they follow the parameters.
#include <variant>

#include "renderer/bsdfs/conductor.h"
#include "renderer/bsdfs/dielectric.h"
#include "renderer/bsdfs/diffuse.h"
#include "renderer/bsdfs/plastic.h"
#include "renderer/bsdfs/rough_conductor.h"
#include "renderer/bsdfs/rough_dielectric.h"
#include "renderer/bsdfs/rough_plastic.h"

namespace dray {

using Bsdf = std::variant<DiffuseBsdf, ConductorBsdf, RoughConductorBsdf, DielectricBsdf, RoughDielectricBsdf, PlasticBsdf,
                          RoughPlasticBsdf>;

inline uint32_t bsdf_flags(const Bsdf& b) {
  return std::visit([](const auto& x) { return x.flags(); }, b);
}

template <class T>
Vec3<T> bsdf_f(const Bsdf& b, const ParamView<T>& P, const Vec3<T>& wo, const Vec3<T>& wi) {
  return std::visit([&](const auto& x) { return x.f(P, wo, wi); }, b);
}

inline float bsdf_pdf(const Bsdf& b, const ParamView<float>& P, const glm::vec3& wo, const glm::vec3& wi) {
  return std::visit([&](const auto& x) { return x.pdf(P, wo, wi); }, b);
}

inline BsdfSample bsdf_sample(const Bsdf& b, const ParamView<float>& P, const glm::vec3& wo, float uc, glm::vec2 u) {
  return std::visit([&](const auto& x) { return x.sample(P, wo, uc, u); }, b);
}

// The Dirac lobe that `s` drew, in T (s.lobe has kLobeDelta).
template <class T>
DeltaLobe<T> bsdf_delta(const Bsdf& b, const ParamView<T>& P, const Vec3<T>& wo, const BsdfSample& s) {
  return std::visit(
      [&](const auto& x) -> DeltaLobe<T> {
        if constexpr (requires { x.delta(P, wo, s); }) return x.delta(P, wo, s);
        else return {Vec3<T>(T(0.f)), Vec3<T>(T(0.f))};
      },
      b);
}

}  // namespace dray
