#pragma once
// A light of the scene: Mitsuba 3's emitters (point, spot, projector, directional, constant, envmap,
// sunsky, and area on a shape) as one tagged struct, their continuous values slots in the parameter table.
// Each kind's radiance and sampling are in its file of emitters/ (point.h, spot.h, projector.h,
// directional.h, environment.h for constant and envmap); integrators/light_sample.h dispatches next-event
// estimation over the kinds, and samples area lights through their shape's primitives.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/core/param_table.h"
#include "renderer/emitters/envmap.h"
#include "renderer/emitters/sunsky.h"

namespace dray {

struct Light {
  enum class Kind { point, environment, area, directional, spot, projector };
  std::string name;
  Kind kind = Kind::point;
  Slot position = kNoSlot;   // point
  Slot direction = kNoSlot;  // directional: the direction the light travels (any length)
  Slot target = kNoSlot;     // spot, projector: the point its axis passes through
  Slot cutoff = kNoSlot, beam = kNoSlot;  // spot: cutoff_angle and beam_width, degrees
  int texture = -1;          // spot, projector: the texture it projects (index into Scene::textures), or -1
  glm::vec3 up{0.f, 1.f, 0.f};  // spot, projector: the up of its frame (the texture's +v), as a lookat's up
  Slot intensity = kNoSlot;  // point, spot (on its axis): W/sr; environment: radiance; directional: irradiance W/m²;
                             // projector: its irradiance where it has no texture
  Slot scale = kNoSlot;      // projector: the factor on its irradiance
  float fov = 0.f, aspect = 1.f;  // projector: horizontal field of view (degrees), its image's width / height
  EnvMap env;                // environment from an image (`envmap`): env.data != kNoSlot
  std::shared_ptr<const SunSky> sunsky;  // environment from Mitsuba's `sunsky` model (constant)
  uint32_t shape = 0;        // area: the emissive shape
  // area: the emissive primitives of the shape (BVH primitive ids) and their area CDF.
  std::vector<uint32_t> prims;
  std::vector<float> cdf;
  float area = 0.f;

  // Whether the light sits at one point (`position`): point, spot, projector.
  bool at_point() const { return kind == Kind::point || kind == Kind::spot || kind == Kind::projector; }
};

}  // namespace dray
