#pragma once
// What a BSDF reads when a loader builds it: Props (core/props.h), each continuous value a
// parameter named materials.NAME.KEY or a texture. The JSON loader implements it
// (io/material_reader.cpp); each BSDF's static read() uses it, with the helpers below for what
// several BSDFs share.
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/bsdfs/microfacet.h"
#include "renderer/core/param_table.h"
#include "renderer/core/props.h"
#include "renderer/textures/texture.h"

namespace dray {

struct BsdfBox;

// A BSDF's keys (core/props.h) and what BSDFs read besides: textures, colours that may be one, and
// the BSDFs nested in one (blendbsdf's two).
class BsdfProps : public Props {
 public:
  virtual bool is_texture(const std::string& key) const = 0;  // a texture's name or an inline texture
  // A key's texture (its index in the scene).
  virtual int texture(const std::string& key) = 0;
  // A colour: a texture or a parameter (fallback when absent); `alias` another accepted name.
  virtual ColourInput colour(const std::string& key, const glm::vec3& fallback, const char* alias = nullptr,
                             bool at_most_one = false) = 0;
  // The index-th of the BSDFs under `key` (blendbsdf's two), its parameters named under `name`.
  virtual BsdfBox nested(const std::string& key, int index, const std::string& name) = 0;
};

// A number as messages print it (6 significant digits).
std::string fmt_value(double v);
// A number > 0 (fallback when absent), as a parameter, or a texture.
ScalarInput positive_input(BsdfProps& p, const std::string& key, float fallback, bool textured = true);
// A number in [0, hi] (fallback when absent), as a parameter, or a texture.
ScalarInput bounded_input(BsdfProps& p, const std::string& key, float fallback, float hi = 1.f, bool textured = true);
// An index of refraction: a number or Mitsuba's name of a dielectric (fallback when absent).
float ior_value(const BsdfProps& p, const std::string& key, const char* fallback);
// `distribution` (beckmann, ggx), `alpha` or `alpha_u` and `alpha_v`, `sample_visible`.
void read_roughness(BsdfProps& p, MicrofacetType& type, ScalarInput& alpha_u, ScalarInput& alpha_v, bool textured = true);
// A dielectric interface: `int_ior` (default bk7), `ext_ior` (air), `specular_reflectance` and
// `specular_transmittance` (1).
void read_dielectric(BsdfProps& p, Slot& int_ior, Slot& ext_ior, ColourInput& reflectance, ColourInput& transmittance);
// `dielectric` and `thindielectric`: the interface's keys alone.
template <class B>
B read_smooth_dielectric(BsdfProps& p) {
  p.keys({"int_ior", "ext_ior", "specular_reflectance", "specular_transmittance"});
  B b;
  read_dielectric(p, b.int_ior, b.ext_ior, b.specular_reflectance, b.specular_transmittance);
  return b;
}
// A conductor's complex index: `material` (Mitsuba's names; default none, a perfect mirror) or
// `eta` and `k`.
void read_conductor_index(BsdfProps& p, ColourInput& eta, ColourInput& k);

}  // namespace dray
