#pragma once
// Mitsuba 3's `homogeneous`: σt and albedo constant colours (parameters media.NAME.sigma_t and
// .albedo, Mitsuba's defaults 1 and 0.75), σt times the medium's `scale`. Free flights are drawn
// exactly (media/free_flight.h); transmittance is exact.
#include <string_view>
#include <vector>

#include "renderer/media/free_flight.h"
#include "renderer/media/medium_props.h"

namespace dray {

struct HomogeneousMedium {
  static constexpr std::string_view kPlugins[] = {"homogeneous"};
  static constexpr bool kVolumes = false;
  static HomogeneousMedium read(MediumProps& p) {
    p.keys({"sigma_t", "albedo"});
    const auto [sigma_t, albedo] = read_coefficients(p, kVolumes);
    return {sigma_t.constant, albedo.constant};
  }

  Slot sigma_t = kNoSlot, albedo = kNoSlot;

  template <class T>
  Vec3<T> sigma_t_at(const std::vector<GridVolume>&, const ParamView<T>& P, const glm::vec3&, Slot scale) const {
    return P.vec3(sigma_t) * P.scalar(scale);
  }
  template <class T>
  Vec3<T> albedo_at(const std::vector<GridVolume>&, const ParamView<T>& P, const glm::vec3&) const {
    return P.vec3(albedo);
  }
  template <class T>
  FreeFlight<T> free_flight(const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r, float t_end,
                            Sampler& sampler, Slot scale) const {
    return constant_free_flight(sigma_t_at(volumes, P, r.o, scale), [&](const glm::vec3&) { return P.vec3(albedo); }, r,
                                t_end, sampler);
  }
  template <class T>
  Vec3<T> transmittance(const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r, float t_end, Sampler&,
                        Slot scale) const {
    return media_detail::exp_neg(sigma_t_at(volumes, P, r.o, scale), t_end);
  }
};

}  // namespace dray
