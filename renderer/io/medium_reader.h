#pragma once
// The scene document's /media (DESIGN.md): participating media by name, each read by its plugin
// (media/medium.h's registry), with their phase functions and grid volumes.
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "renderer/io/json_reader.h"
#include "renderer/scene.h"

namespace dray {

// Reads /media into scene.media (and scene.volumes); returns each medium's index by name.
std::map<std::string, int> read_media(const JsonReader& rd, Scene& scene, const nlohmann::json& media,
                                      const std::filesystem::path& base_dir);

// Fails unless every mesh that names an interior medium is closed (each edge between two faces):
// a medium behind an open surface would leak out of it.
void check_media_closed(const JsonReader& rd, const Scene& scene);

}  // namespace dray
