#include "renderer/bsdfs/ior.h"

#include <utility>

namespace dray {

namespace {

// Mitsuba 3's table of dielectrics (include/mitsuba/render/ior.h, values at 589 nm).
const std::vector<std::pair<std::string, float>>& dielectrics() {
  static const std::vector<std::pair<std::string, float>> table = {
      {"vacuum", 1.0f},          {"helium", 1.000036f},        {"hydrogen", 1.000132f},
      {"air", 1.000277f},        {"carbon dioxide", 1.00045f}, {"water", 1.3330f},
      {"acetone", 1.36f},        {"ethanol", 1.361f},          {"carbon tetrachloride", 1.461f},
      {"glycerol", 1.4729f},     {"benzene", 1.501f},          {"silicone oil", 1.52045f},
      {"bromine", 1.661f},       {"water ice", 1.31f},         {"fused quartz", 1.458f},
      {"pyrex", 1.470f},         {"acrylic glass", 1.49f},     {"polypropylene", 1.49f},
      {"bk7", 1.5046f},          {"sodium chloride", 1.544f},  {"amber", 1.55f},
      {"pet", 1.5750f},          {"diamond", 2.419f},
  };
  return table;
}

// Conductors: Mitsuba 3's spectral eta and k integrated against the sRGB primaries (the RGB fits
// that Yocto/GL tabulates from Mitsuba's data), for the metals scenes name most.
const std::vector<std::pair<std::string, ConductorIor>>& conductors() {
  static const std::vector<std::pair<std::string, ConductorIor>> table = {
      {"none", {{0.f, 0.f, 0.f}, {1.f, 1.f, 1.f}}},
      {"Ag", {{0.1552646f, 0.1167233f, 0.1383807f}, {4.8283433f, 3.1222459f, 2.1469504f}}},
      {"Al", {{1.6574600f, 0.8803690f, 0.5212287f}, {9.2238692f, 6.2695232f, 4.8370012f}}},
      {"Au", {{0.1431190f, 0.3749570f, 1.4424786f}, {3.9831604f, 2.3857207f, 1.6032153f}}},
      {"Be", {{4.1850593f, 3.1850604f, 2.7840913f}, {3.8354398f, 3.0101260f, 2.8690089f}}},
      {"Cr", {{4.3696829f, 2.9167025f, 1.6547005f}, {5.2064338f, 4.2313645f, 3.7549468f}}},
      {"Cu", {{0.2004377f, 0.9240334f, 1.1022120f}, {3.9129485f, 2.4528477f, 2.1421880f}}},
      {"Hg", {{2.3989315f, 1.4400255f, 0.9095512f}, {6.3276269f, 4.3719414f, 3.4217899f}}},
      {"Ir", {{3.0864098f, 2.0821938f, 1.6178867f}, {5.5921510f, 4.0671757f, 3.2672611f}}},
      {"Mo", {{4.4837010f, 3.5254578f, 2.7760769f}, {4.1111308f, 3.4208716f, 3.1506031f}}},
      {"Ni", {{2.3672754f, 1.6633583f, 1.4670554f}, {4.4988330f, 3.0501644f, 2.3454274f}}},
      {"Rh", {{2.5857955f, 1.8601866f, 1.5544280f}, {6.7822927f, 4.7029501f, 3.9760892f}}},
      {"Ta", {{2.0625847f, 2.3930916f, 2.6280685f}, {2.4080468f, 1.7413706f, 1.9470377f}}},
      {"TiN", {{1.6484692f, 1.1504483f, 1.3797795f}, {3.3684596f, 1.9434889f, 1.1020123f}}},
      {"W", {{4.3707030f, 3.3002972f, 2.9982667f}, {3.5006779f, 2.6048653f, 2.2731931f}}},
  };
  return table;
}

template <class V>
std::optional<V> lookup(const std::vector<std::pair<std::string, V>>& table, const std::string& name) {
  for (const auto& [n, v] : table)
    if (n == name) return v;
  return std::nullopt;
}

template <class V>
std::vector<std::string> names(const std::vector<std::pair<std::string, V>>& table) {
  std::vector<std::string> out;
  for (const auto& entry : table) out.push_back(entry.first);
  return out;
}

}  // namespace

std::optional<float> dielectric_ior(const std::string& name) { return lookup(dielectrics(), name); }
std::vector<std::string> dielectric_ior_names() { return names(dielectrics()); }
std::optional<ConductorIor> conductor_ior(const std::string& name) { return lookup(conductors(), name); }
std::vector<std::string> conductor_ior_names() { return names(conductors()); }

}  // namespace dray
