#pragma once
// Reads the scene's /lights: each by its plugin in the registry (emitters/light.h's list of Mitsuba
// 3's emitters), each value a parameter under `lights.NAME.KEY`. Area lights come from emissive
// shapes.
#include <filesystem>
#include <string>

#include "renderer/io/json_reader.h"
#include "renderer/io/texture_reader.h"
#include "renderer/scene.h"

namespace dray {

class LightReader {
 public:
  LightReader(const JsonReader& rd, Scene& scene, TextureReader& textures, std::filesystem::path base_dir)
      : rd_(rd), scene_(scene), textures_(textures), base_dir_(std::move(base_dir)) {}

  // Light `name` of plugin `type` from its JSON object at path p, its parameters named prefix + key
  // ("lights.NAME."); a sky also sets scene.environment (one at most).
  Light read(const nlohmann::json& l, const std::string& p, const std::string& name, const std::string& type,
             const std::string& prefix);

 private:
  const JsonReader& rd_;
  Scene& scene_;
  TextureReader& textures_;
  std::filesystem::path base_dir_;
};

}  // namespace dray
