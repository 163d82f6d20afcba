#pragma once
// Mitsuba 3's `directional`: `irradiance` (W/m², stored in Light::intensity) arriving from
// infinitely far along `direction` (the way the light travels, any length): from every point
// the light is along wi = −direction / |direction|, a Dirac in direction; its shadow ray runs to
// infinity.
#include "renderer/core/vec.h"
#include "renderer/emitters/light.h"

namespace dray {

template <class T>
Vec3<T> directional_wi(const ParamView<T>& P, const Light& light) {
  return -normalize(P.vec3(light.direction));
}

}  // namespace dray
