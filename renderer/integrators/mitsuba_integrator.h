#pragma once
// How a Mitsuba integrator's XML maps onto one of dray's integrator plugins: its name, its
// max_depth default (Mitsuba counts path vertices: -1 unlimited) and the keys it takes.
#include <string_view>

namespace dray {

// max_depth and rr_depth: taken; max_depth read and ignored (a fixed depth), rr_depth taken;
// neither taken.
enum class DepthKeys { take, ignore_max_depth, refuse };

struct MitsubaIntegrator {
  std::string_view name;
  long max_depth;  // Mitsuba's default
  DepthKeys depth_keys;
  bool projective = false;        // sppc, sppp, sppi and the guiding keys (Mitsuba's prb_projective)
  bool samples_per_pass = false;  // a split of the work: the same image
  bool shading_samples = false;   // emitter_samples, bsdf_samples, shading_samples (Mitsuba's direct)
};

}  // namespace dray
