#pragma once
// What `principled` and `principledthin` read alike: their lobe switches (Mitsuba's get_flag: a
// lobe is on when its key is given, unless as the number 0), the shared keys and the
// *_sampling_rate numbers.
#include <string>
#include <vector>

#include "renderer/bsdfs/bsdf_props.h"

namespace dray::principled {

inline bool flag(const BsdfProps& p, const std::string& key) {
  return p.has(key) && !(p.is_number(key) && p.number(key) == 0.0);
}

// A lobe's weight (in [0, hi], or a texture) and whether it is on.
inline void lobe(BsdfProps& p, const std::string& key, ScalarInput& in, bool& on, float hi = 1.f) {
  on = flag(p, key);
  in = bounded_input(p, key, 0.f, hi);
}

inline float sampling_rate(const BsdfProps& p, const std::string& key) {
  const float r = p.has(key) ? float(p.number(key)) : 1.f;
  if (!(r >= 0.f)) p.fail(key, "must be >= 0, got " + fmt_value(r));
  return r;
}

// The keys both take, and the values both read: base_color, roughness and six lobes.
inline std::vector<std::string> common_keys() {
  return {"base_color", "roughness", "anisotropic", "spec_trans", "sheen", "sheen_tint", "flatness", "spec_tint", "eta"};
}
template <class B>
void read_common(BsdfProps& p, B& b) {
  b.base_color = p.colour("base_color", glm::vec3(0.5f), nullptr, true);
  b.roughness = bounded_input(p, "roughness", 0.5f);
  lobe(p, "anisotropic", b.anisotropic, b.has_anisotropic);
  lobe(p, "spec_trans", b.spec_trans, b.has_spec_trans);
  lobe(p, "sheen", b.sheen, b.has_sheen);
  lobe(p, "sheen_tint", b.sheen_tint, b.has_sheen_tint);
  lobe(p, "flatness", b.flatness, b.has_flatness);
  lobe(p, "spec_tint", b.spec_tint, b.has_spec_tint);
}

}  // namespace dray::principled
