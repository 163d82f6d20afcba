#pragma once
// What an emitter's plugin reads when a loader builds it: its keys (core/props.h), each
// continuous value a parameter named lights.NAME.KEY, and besides numbers, colours and points:
// integers, textures it projects, an image (envmap), a rotation (Mitsuba's to_world of a sky),
// warnings. The JSON loader implements it (io/light_reader.cpp).
#include <string>

#include <glm/mat3x3.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "renderer/core/props.h"
#include "renderer/image/image.h"

namespace dray {

class EmitterProps : public Props {
 public:
  virtual const std::string& name() const = 0;  // the light's
  virtual long integer(const std::string& key, long lo, long hi) const = 0;
  // Whether the key holds a texture (a texture's name or an inline one), and that texture's
  // index in the scene and its size in texels (0 × 0 for a procedural texture).
  virtual bool is_texture(const std::string& key) const = 0;
  virtual int texture(const std::string& key) = 0;
  virtual glm::ivec2 texture_size(int texture) const = 0;
  // The image of `filename` (linear: 8-bit files decoded from sRGB), or dray's constant start of
  // `width`, `height` and `value`.
  virtual Image image() const = 0;
  // A 4x4 row-major matrix whose 3x3 part must be a rotation (`what`'s to_world).
  virtual glm::mat3 rotation(const std::string& key, const std::string& what) const = 0;
  virtual void warn(const std::string& message) = 0;
};

}  // namespace dray
