#pragma once
// Mitsuba's `depth` integrator (src/integrators/depth.cpp): per camera sample, the distance to
// the first surface the ray meets (0 where it meets none) in every channel, averaged over the
// pixel's samples as any image. A debugging integrator: no media, AOVs, alpha or derivatives, as
// Mitsuba's has none (its image pass alone, over camera tiles).
#include <optional>
#include <string>
#include <string_view>

#include "renderer/integrators/mitsuba_integrator.h"
#include "renderer/integrators/pass.h"

namespace dray {

struct DepthIntegrator {
  static constexpr std::string_view kPlugins[] = {"depth"};
  static constexpr bool kMedia = false;
  static constexpr MitsubaIntegrator kMitsuba[] = {{"depth", -1, DepthKeys::refuse}};
  static Image image_pass(const Scene& scene, const ImageRequest& request, const PassComm& comm, PassFigures& figures);
  static void gradient_pass(const Scene& scene, const GradientRequest& request, const PassComm& comm, GradientSums& sums,
                            PassFigures& figures);
  static std::optional<std::string> refusal(const PassAsk& ask);
};

}  // namespace dray
