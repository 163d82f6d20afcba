#pragma once
// Scenes of the media tests (tests/integrators/volume*_test.cpp): an absorbing box before a
// uniform sky, and a patterned density grid.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/media/vol_writer.h"
#include "tests/temp_dir.h"

namespace dray::testing {

// A unit cube at the origin (null boundary) holding `medium`, before a sky of radiance 1.
inline nlohmann::json absorbing_scene(const nlohmann::json& medium) {
  const std::string models = std::string(DRAY_SOURCE_DIR) + "/scenes/models";
  return {{"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"width", 4}, {"height", 4}}},
          {"render", {{"integrator", "volpath"}, {"max_depth", 8}}},
          {"media", {{"m", medium}}},
          {"materials", {{"none", {{"type", "null"}}}}},
          {"shapes", {{{"name", "box"}, {"type", "mesh"}, {"file", models + "/unit-cube.obj"}, {"material", "none"}, {"interior", "m"}}}},
          {"lights", {{{"name", "sky"}, {"type", "environment"}, {"radiance", 1}}}}};
}

// A res³ grid of values 0.2 + step · ((7x + 3y + 5z) mod res), written as t.dir/g.vol.
inline std::vector<float> patterned_grid(const TempDir& t, int res, float step) {
  std::vector<float> v;
  for (int z = 0; z < res; ++z)
    for (int y = 0; y < res; ++y)
      for (int x = 0; x < res; ++x) v.push_back(0.2f + step * float((x * 7 + y * 3 + z * 5) % res));
  write_vol((t.dir / "g.vol").string(), res, 1, v);
  return v;
}

}  // namespace dray::testing
