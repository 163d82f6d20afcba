#pragma once
// What a sensor measures over that the scene places (Scene::build_geometry refreshes it whenever
// the geometry moves): the scene's bounding ball, outside which a distant sensor's rays start, and
// the surface an irradiance meter is attached to, its shape's primitives with their area CDF.
#include <memory>
#include <string>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec4.hpp>

#include "renderer/shapes/prim.h"

namespace dray {

struct SensorSurface {
  glm::vec4 scene_ball{0.f, 0.f, 0.f, 1.f};  // centre xyz, radius w (Mitsuba's: the scene box's)
  std::vector<PrimT<float>> prims;           // the attached shape's, as its plugin places them
  std::vector<float> cdf;                    // their running areas (the last: the total)
  // A point uniform in area over the primitives, from two uniform numbers, with its geometric
  // normal (outward as the shape gives it).
  SurfacePoint<float> sample(glm::vec2 u) const;
  float area() const { return cdf.empty() ? 0.f : cdf.back(); }
};

// A sensor's share of the scene: shared by the frames built from it (read-only).
using SensorSurfaceRef = std::shared_ptr<const SensorSurface>;

}  // namespace dray
