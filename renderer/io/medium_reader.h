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

// Warns of each mesh that names an interior medium and is not closed (an edge with one face): a
// path that leaves the medium through a hole stays in it until it crosses the surface again, as in
// Mitsuba (which renders such scenes: its documentation's bunny, open at its base).
void check_media_closed(const JsonReader& rd, Scene& scene);

}  // namespace dray
