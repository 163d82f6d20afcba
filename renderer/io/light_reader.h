#pragma once
// Reads the scene's /lights: Mitsuba 3's emitters (point, spot, projector, directional, constant as
// `environment`, envmap, sunsky), each value a parameter under `lights.NAME.KEY` (sunsky: constants).
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

  // Light `name` of kind `type` from its JSON object at path p, its parameters named prefix + key
  // ("lights.NAME."); an environment light also sets scene.environment.
  Light read(const nlohmann::json& l, const std::string& p, const std::string& name, const std::string& type,
             const std::string& prefix);

 private:
  void read_projector(const nlohmann::json& l, const std::string& p, const std::string& name, const std::string& prefix,
                      Light& light);
  void read_sunsky(const nlohmann::json& l, const std::string& p, Light& light);  // sunsky_reader.cpp
  // A 4x4 row-major matrix whose 3x3 part must be a rotation (Mitsuba's to_world of `what`).
  glm::mat3 rotation(const nlohmann::json& m, const std::string& p, const std::string& what) const;

  const JsonReader& rd_;
  Scene& scene_;
  TextureReader& textures_;
  std::filesystem::path base_dir_;
};

}  // namespace dray
