#pragma once
// The BSDF interface: a closed set of materials (one header each) in a std::variant built at load
// time, dispatched without virtual calls (as pbrt-v4's BxDF). Every BSDF provides
//   flags()                      its lobes (Lobe);
//   f(in, wo, wi)         in T   the non-Dirac part of the BSDF, without the cosine;
//   pdf(in, wo, wi)       float  the density with which sample() draws wi (non-Dirac lobes);
//   sample(in, wo, uc, u) float  a direction (a decision: made on the parameters' values);
//   delta(in, wo, s)      in T   for Dirac lobes: the sampled lobe's direction and weight,
//                                re-evaluated so that they follow the parameters;
// where `in` (Inputs) reads parameters and textures at the surface point's UV, and, for loading,
//   kPlugins                     the Mitsuba plugin names it implements;
//   static read(BsdfProps&)      itself from a scene file's keys (bsdfs/bsdf_props.h).
// The variant's list below is the BSDF registry (core/registry.h): the loaders find a plugin by
// name through it. Adding a BSDF touches its header, this list and its test.
#include <variant>

#include "renderer/core/registry.h"

#include "renderer/bsdfs/conductor.h"
#include "renderer/bsdfs/dielectric.h"
#include "renderer/bsdfs/diffuse.h"
#include "renderer/bsdfs/plastic.h"
#include "renderer/bsdfs/principled.h"
#include "renderer/bsdfs/principled_thin.h"
#include "renderer/bsdfs/rough_conductor.h"
#include "renderer/bsdfs/rough_dielectric.h"
#include "renderer/bsdfs/rough_plastic.h"
#include "renderer/bsdfs/thin_dielectric.h"

namespace dray {

struct BlendBsdf;
using Bsdf = std::variant<DiffuseBsdf, ConductorBsdf, RoughConductorBsdf, DielectricBsdf, RoughDielectricBsdf, PlasticBsdf,
                          RoughPlasticBsdf, PrincipledBsdf, PrincipledThinBsdf, ThinDielectricBsdf, BlendBsdf>;

// The dispatch (below), declared for BlendBsdf, which dispatches to its two.
inline uint32_t bsdf_flags(const Bsdf& b);
template <class T>
Vec3<T> bsdf_f(const Bsdf& b, const Inputs<T>& in, const Vec3<T>& wo, const Vec3<T>& wi);
inline float bsdf_pdf(const Bsdf& b, const Inputs<float>& in, const glm::vec3& wo, const glm::vec3& wi);
inline BsdfSample bsdf_sample(const Bsdf& b, const Inputs<float>& in, const glm::vec3& wo, float uc, glm::vec2 u);
template <class T>
DeltaLobe<T> bsdf_delta(const Bsdf& b, const Inputs<T>& in, const Vec3<T>& wo, const BsdfSample& s);
inline void refresh_bsdf(Bsdf& b, const ParamTable& params);

}  // namespace dray

#include "renderer/bsdfs/blend.h"

namespace dray {

inline uint32_t bsdf_flags(const Bsdf& b) {
  return std::visit([](const auto& x) { return x.flags(); }, b);
}

template <class T>
Vec3<T> bsdf_f(const Bsdf& b, const Inputs<T>& in, const Vec3<T>& wo, const Vec3<T>& wi) {
  return std::visit([&](const auto& x) { return x.f(in, wo, wi); }, b);
}

inline float bsdf_pdf(const Bsdf& b, const Inputs<float>& in, const glm::vec3& wo, const glm::vec3& wi) {
  return std::visit([&](const auto& x) { return x.pdf(in, wo, wi); }, b);
}

inline BsdfSample bsdf_sample(const Bsdf& b, const Inputs<float>& in, const glm::vec3& wo, float uc, glm::vec2 u) {
  return std::visit([&](const auto& x) { return x.sample(in, wo, uc, u); }, b);
}

// The Dirac lobe that `s` drew, in T (s.lobe has kLobeDelta).
template <class T>
DeltaLobe<T> bsdf_delta(const Bsdf& b, const Inputs<T>& in, const Vec3<T>& wo, const BsdfSample& s) {
  return std::visit(
      [&](const auto& x) -> DeltaLobe<T> {
        if constexpr (requires { x.delta(in, wo, s); }) return x.delta(in, wo, s);
        else return {Vec3<T>(T(0.f)), Vec3<T>(T(0.f))};
      },
      b);
}

// What a BSDF precomputes from its parameters' values (a rough plastic's coating table), brought up
// to date after they changed.
inline void refresh_bsdf(Bsdf& b, const ParamTable& params) {
  if (auto* r = std::get_if<RoughPlasticBsdf>(&b)) refresh_coating(*r, params);
  if (auto* m = std::get_if<BlendBsdf>(&b)) {
    refresh_bsdf(*m->a.p, params);
    refresh_bsdf(*m->b.p, params);
  }
}

// Without textures (a BSDF on its own, as the tests use them): the parameters alone.
template <class T>
Vec3<T> bsdf_f(const Bsdf& b, const ParamView<T>& P, const Vec3<T>& wo, const Vec3<T>& wi) {
  return bsdf_f(b, Inputs<T>(P), wo, wi);
}
inline float bsdf_pdf(const Bsdf& b, const ParamView<float>& P, const glm::vec3& wo, const glm::vec3& wi) {
  return bsdf_pdf(b, Inputs<float>(P), wo, wi);
}
inline BsdfSample bsdf_sample(const Bsdf& b, const ParamView<float>& P, const glm::vec3& wo, float uc, glm::vec2 u) {
  return bsdf_sample(b, Inputs<float>(P), wo, uc, u);
}
template <class T>
DeltaLobe<T> bsdf_delta(const Bsdf& b, const ParamView<T>& P, const Vec3<T>& wo, const BsdfSample& s) {
  return bsdf_delta(b, Inputs<T>(P), wo, s);
}

}  // namespace dray
