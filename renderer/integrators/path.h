#pragma once
// Mitsuba's `path` integrator and the ones dray renders as it: unidirectional path tracing with
// next-event estimation and MIS (renderer/integrators/integrator.h), media ignored as in Mitsuba's
// `path`. Its derivatives are the prb integrators' (reverse mode replays the path).
#include <string_view>

#include "renderer/integrators/camera_passes.h"
#include "renderer/integrators/mitsuba_integrator.h"

namespace dray {

struct PathIntegrator : CameraTilePasses {  // its passes over camera tiles
  static constexpr std::string_view kPlugins[] = {"path"};
  static constexpr bool kMedia = false;      // paths cross media and null surfaces (volpath)
  // Mitsuba's C++ integrators count to max_depth -1, its Python AD ones (ad/integrators/common.py)
  // to 6; direct_projective reads max_depth and always renders 2 (direct light); `direct` is
  // direct light (dray: one bounce with MIS, as Mitsuba's emitter and BSDF samples).
  static constexpr MitsubaIntegrator kMitsuba[] = {
      {"path", -1, DepthKeys::take},
      {"prb", 6, DepthKeys::take},
      {"prb_basic", 6, DepthKeys::take},
      {"prb_projective", 6, DepthKeys::take, true},
      {"direct_projective", 2, DepthKeys::ignore_max_depth, true},
      {"direct", 2, DepthKeys::refuse, false, false, true},
  };
};

}  // namespace dray
