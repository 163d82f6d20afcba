#pragma once
// Rays in plain float (for traversal) and in the kernel's scalar type T.
#include <limits>

#include <glm/vec3.hpp>

#include "renderer/core/vec.h"

namespace dray {

// A ray for BVH traversal: plain floats, no derivatives. Points at o + t d, t in (0, t_max).
struct Ray {
  glm::vec3 o{0.f}, d{0.f, 0.f, 1.f};
  float t_max = std::numeric_limits<float>::infinity();
};

// The same ray in the kernel's scalar type: its origin and direction carry derivatives.
// t_max: a camera ray's far clip (other rays run to infinity).
template <class T>
struct RayT {
  Vec3<T> o, d;
  float t_max = std::numeric_limits<float>::infinity();
  Ray detached() const { return Ray{value(o), value(d), t_max}; }
};

}  // namespace dray
