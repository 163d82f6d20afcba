#pragma once
// What a medium's plugin reads when a loader builds it: its keys (core/props.h) and its
// coefficients, each a colour or, for a plugin that takes volumes, a grid or constant volume
// (io/medium_reader.cpp reads their files); and how a coefficient is evaluated at a point.
#include <string>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/core/props.h"
#include "renderer/media/grid_volume.h"

namespace dray {

// A coefficient: a colour (a parameter), or a grid volume (an index into the scene's volumes).
struct MediumVolume {
  Slot constant = kNoSlot;
  int grid = -1;
};

class MediumProps : public Props {
 public:
  // `key`: a colour in `domain` (`fallback` without one) or, where `volumes`, a gridvolume or a
  // constvolume object.
  virtual MediumVolume volume(const std::string& key, bool volumes, const glm::vec3& fallback, Domain domain) = 0;
};

// A medium's albedo (Mitsuba's default 0.75), a volume where `volumes`.
inline MediumVolume read_albedo(MediumProps& p, bool volumes) {
  return p.volume("albedo", volumes, glm::vec3(0.75f), Domain::closed(0, 1));
}
// A medium's σt and albedo (Mitsuba's defaults 1 and 0.75), volumes where `volumes`.
inline std::pair<MediumVolume, MediumVolume> read_coefficients(MediumProps& p, bool volumes) {
  const MediumVolume sigma_t = p.volume("sigma_t", volumes, glm::vec3(1.f), Domain::at_least(0));
  return {sigma_t, read_albedo(p, volumes)};
}

// Coefficient v at world point p, per channel.
template <class T>
Vec3<T> eval_volume(const MediumVolume& v, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const glm::vec3& p) {
  if (v.grid < 0) return P.vec3(v.constant);
  const GridVolume& g = volumes[size_t(v.grid)];
  return g.eval(P, glm::vec3(g.to_local * glm::vec4(p, 1.f)));
}

}  // namespace dray
