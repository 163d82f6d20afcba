#pragma once
// Mitsuba 3's `homogeneous`: σt a constant colour (parameter media.NAME.sigma_t, Mitsuba's default
// 1) times the medium's `scale`, and the albedo a colour (media.NAME.albedo, default 0.75) or, as
// Mitsuba's, a volume evaluated where the path scatters (a gridvolume, which may repeat: it does
// not bound the medium). Free flights are drawn exactly (media/free_flight.h); transmittance is
// exact.
#include <string_view>
#include <vector>

#include "renderer/media/free_flight.h"
#include "renderer/media/medium_props.h"

namespace dray {

struct HomogeneousMedium {
  static constexpr std::string_view kPlugins[] = {"homogeneous"};
  static constexpr bool kVolumes = false, kAlbedoVolume = true;
  static HomogeneousMedium read(MediumProps& p) {
    p.keys({"sigma_t", "albedo"});
    const MediumVolume sigma_t = p.volume("sigma_t", false, glm::vec3(1.f), Domain::at_least(0));
    return {sigma_t.constant, read_albedo(p, kAlbedoVolume)};
  }

  Slot sigma_t = kNoSlot;
  MediumVolume albedo;

  template <class T>
  Vec3<T> sigma_t_at(const std::vector<GridVolume>&, const ParamView<T>& P, const glm::vec3&, Slot scale) const {
    return P.vec3(sigma_t) * P.scalar(scale);
  }
  template <class T>
  Vec3<T> albedo_at(const std::vector<GridVolume>& volumes, const ParamView<T>& P, const glm::vec3& p) const {
    return eval_volume(albedo, volumes, P, p);
  }
  template <class T>
  FreeFlight<T> free_flight(const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r, float t_end,
                            Sampler& sampler, Slot scale) const {
    return constant_free_flight(sigma_t_at(volumes, P, r.o, scale), [&](const glm::vec3& p) { return albedo_at(volumes, P, p); },
                                r, t_end, sampler);
  }
  template <class T>
  Vec3<T> transmittance(const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r, float t_end, Sampler&,
                        Slot scale) const {
    return media_detail::exp_neg(sigma_t_at(volumes, P, r.o, scale), t_end);
  }
};

}  // namespace dray
