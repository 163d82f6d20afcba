#pragma once
// Named indices of refraction, as Mitsuba 3 accepts them: dielectrics by name ("bk7", "water",
// "air", …) and conductors by chemical symbol ("Au", "Cu", …, or "none", a perfect mirror).
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

namespace dray {

// A dielectric's index of refraction by Mitsuba 3's name; nullopt for an unknown name.
std::optional<float> dielectric_ior(const std::string& name);
// The names dielectric_ior knows, for error messages.
std::vector<std::string> dielectric_ior_names();

struct ConductorIor {
  glm::vec3 eta, k;
};
// A conductor's complex index (RGB) by Mitsuba 3's name; nullopt for an unknown name.
std::optional<ConductorIor> conductor_ior(const std::string& name);
std::vector<std::string> conductor_ior_names();

}  // namespace dray
