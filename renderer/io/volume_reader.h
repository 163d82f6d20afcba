#pragma once
// A volume object of the scene document (Mitsuba's src/volumes): {"type": "gridvolume",
// "filename", "to_world"} or {"type": "constvolume", "value", "to_world"}, read by a medium's
// coefficients and by the `volume` texture.
#include <filesystem>
#include <optional>
#include <string>

#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>

#include "renderer/io/json_reader.h"
#include "renderer/media/grid_volume.h"

namespace dray {

// A grid on the unit cube under the volume's to_world (identity without one), its values the
// parameter block `block` (res.z × res.y × res.x × channels) in `domain`; or, for a constvolume
// without a to_world (its value everywhere), no grid and that value (`fallback` without one).
// Files are relative to base_dir; errors name the key `key` the object is under.
struct VolumeObject {
  std::optional<GridVolume> grid;
  glm::vec3 constant{0.f};
};
VolumeObject read_volume_object(const JsonReader& rd, ParamTable& params, const nlohmann::json& j, const std::string& p,
                                const std::filesystem::path& base_dir, const std::string& block, const std::string& key,
                                Domain domain, const glm::vec3& fallback);

}  // namespace dray
