#pragma once
// Mitsuba's `volpath`: `path` whose paths cross media (free flights, phase functions) and null
// surfaces without counting a bounce (renderer/integrators/media_vertex.h). Mitsuba's volpathmis and
// prbvolpath render as it.
#include <string_view>

#include "renderer/integrators/camera_passes.h"
#include "renderer/integrators/mitsuba_integrator.h"

namespace dray {

struct VolPathIntegrator : CameraTilePasses {  // its passes over camera tiles
  static constexpr std::string_view kPlugins[] = {"volpath"};
  static constexpr bool kMedia = true;
  static constexpr MitsubaIntegrator kMitsuba[] = {
      {"volpath", -1, DepthKeys::take},
      {"volpathmis", -1, DepthKeys::take},
      {"prbvolpath", 6, DepthKeys::take},
  };
};

}  // namespace dray
