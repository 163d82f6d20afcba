#pragma once
// What a sensor's plugin reads when a loader builds it: its keys (core/props.h), and the film and
// clip planes every sensor has (read by the loader), on which some defaults depend.
#include <cmath>

#include "renderer/core/props.h"

namespace dray {

struct SensorFilm {
  int width = 320, height = 240;
  float near_clip = 0.f, far_clip = INFINITY;
};

class SensorProps : public Props {
 public:
  virtual const SensorFilm& film() const = 0;
};

}  // namespace dray
