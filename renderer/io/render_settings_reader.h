#pragma once
// Reads the scene's /render: samples, depth, seed, boundary samples, the pixel filter, the crop.
#include <nlohmann/json.hpp>

#include "renderer/io/json_reader.h"
#include "renderer/scene.h"

namespace dray {

// The settings of /render (`j`), checked; the crop against the camera's image.
RenderSettings read_render_settings(const JsonReader& rd, const nlohmann::json& j, const Camera& camera);

}  // namespace dray
