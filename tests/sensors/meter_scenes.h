#pragma once
// Mitsuba XML scenes around one meter (radiancemeter, distant): the path integrator, the sensor of
// `type` with `inside` (its own elements), a film of `pixels` x `pixels` with a box filter, `spp`
// independent samples, and the scene's other elements `rest`.
#include <string>

namespace dray::testing {

inline std::string meter_xml(const std::string& type, const std::string& inside, const std::string& rest, int pixels, int spp) {
  const std::string n = std::to_string(pixels);
  return R"(<scene version="3.0.0"><integrator type="path"/><sensor type=")" + type + R"(">)" + inside +
         R"(<film type="hdrfilm"><integer name="width" value=")" + n + R"("/><integer name="height" value=")" + n +
         R"("/><rfilter type="box"/></film><sampler type="independent"><integer name="sample_count" value=")" +
         std::to_string(spp) + R"("/></sampler></sensor>)" + rest + "</scene>";
}

}  // namespace dray::testing
