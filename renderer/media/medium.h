#pragma once
// The medium interface: Mitsuba 3's src/media as a closed set (one header each) in a std::variant,
// dispatched without virtual calls. A medium fills the inside (or outside) of the shapes that name
// it; paths carry the medium they travel in (renderer/integrators/media_vertex.h). Every medium provides
//   sigma_t_at(volumes, P, p, scale)   σt (times the medium's scale) at world point p, in T;
//   albedo_at(volumes, P, p)           its albedo there, in T;
//   free_flight(…)                     a flight along a float ray: scattered at t, or passed;
//   transmittance(…)                   the transmittance along a float ray, in T;
//   kVolumes                           whether its coefficients may be volumes (sigma_t's bounds it);
//   kAlbedoVolume                      whether its albedo may be one;
// and, for loading, kPlugins (Mitsuba's names) and static read(MediumProps&)
// (media/medium_props.h). The variant's list below is the registry (core/registry.h): adding a
// medium touches its header, this list and its test.
//
// Distances are decisions (float, DESIGN.md invariant 2); the weights that follow from them are
// evaluated in T, so that albedo, σt, scale and the voxels get their derivatives at fixed
// distances.
#include <string>
#include <variant>
#include <vector>

#include "renderer/media/heterogeneous.h"
#include "renderer/media/homogeneous.h"
#include "renderer/media/phase.h"

namespace dray {

using MediumModel = std::variant<HomogeneousMedium, HeterogeneousMedium>;

// A medium: its plugin, and what every medium has (Mitsuba's Medium: a phase function, whether
// next-event estimation samples emitters in it, and σt's scale, a parameter media.NAME.scale).
struct Medium {
  std::string name;
  MediumModel model;
  Slot scale = kNoSlot;
  Phase phase;
  bool sample_emitters = true;
};

// σt (times scale) and the albedo of medium m at world point p, per channel.
template <class T>
Vec3<T> medium_sigma_t(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const glm::vec3& p) {
  return std::visit([&](const auto& x) { return x.sigma_t_at(volumes, P, p, m.scale); }, m.model);
}
template <class T>
Vec3<T> medium_albedo(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const glm::vec3& p) {
  return std::visit([&](const auto& x) { return x.albedo_at(volumes, P, p); }, m.model);
}

// A free flight along float ray r over [0, t_end) in medium m.
template <class T>
FreeFlight<T> sample_free_flight(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r,
                                 float t_end, Sampler& sampler) {
  return std::visit([&](const auto& x) { return x.free_flight(volumes, P, r, t_end, sampler, m.scale); }, m.model);
}

// The transmittance of medium m along float ray r over [0, t_end) (drawing from `sampler` where
// the medium estimates it).
template <class T>
Vec3<T> medium_transmittance(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r,
                             float t_end, Sampler& sampler) {
  return std::visit([&](const auto& x) { return x.transmittance(volumes, P, r, t_end, sampler, m.scale); }, m.model);
}

}  // namespace dray
