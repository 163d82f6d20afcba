#pragma once
// What a texture reads when a loader builds it: Props (core/props.h), its parameters named
// textures.NAME.KEY, and what textures read besides: an image (a file, or a constant start), Mitsuba's
// `to_uv`, a mesh attribute's id.
#include <optional>
#include <string>

#include "renderer/core/props.h"
#include "renderer/image/image.h"
#include "renderer/media/grid_volume.h"
#include "renderer/textures/tex_coord.h"

namespace dray {

class TextureProps : public Props {
 public:
  // The image at `filename` (relative to the scene's folder; 8-bit formats decoded from sRGB unless
  // `raw`), or dray's constant start: `width` × `height` of `value` (default `fallback`).
  virtual Image image(bool raw, const glm::vec3& fallback) = 0;
  // `to_uv`: {"scale": s, "offset": o}, each a number or two (identity without it).
  virtual ToUv to_uv() = 0;
  // The scene's id of a mesh attribute's name (vertex_* or face_*).
  virtual int attribute_id(const std::string& name) = 0;
  // `key`: a volume object (a gridvolume, or a constvolume under a to_world: a grid whose values are
  // the parameter block named after the key), or a colour, a constvolume without a to_world, or
  // `fallback` without one (a parameter).
  struct Volume {
    std::optional<GridVolume> grid;
    Slot constant = kNoSlot;
  };
  virtual Volume volume(const std::string& key, const glm::vec3& fallback) = 0;
};

}  // namespace dray
