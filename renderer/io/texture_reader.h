#pragma once
// Reads textures into Scene::textures, each by its plugin in the registry (textures/texture.h), their
// values into the parameter table: `textures.NAME.data` (a bitmap's H×W×3 block), `textures.NAME.color0`.
#include <filesystem>
#include <map>
#include <string>

#include "renderer/image/image.h"
#include "renderer/io/json_reader.h"
#include "renderer/scene.h"

namespace dray {

// The image at `filename` (relative to base_dir; 8-bit formats decoded from sRGB unless `raw`), or
// dray's constant start: `width` × `height` of `value` (default `fallback`). Errors name the key.
Image read_image_input(const JsonReader& rd, const nlohmann::json& j, const std::string& p,
                       const std::filesystem::path& base_dir, bool raw, const glm::vec3& fallback);

class TextureReader {
 public:
  TextureReader(const JsonReader& rd, Scene& scene, std::filesystem::path base_dir)
      : rd_(rd), scene_(scene), base_dir_(std::move(base_dir)) {}

  // Adds texture `name` from its JSON object at path p; returns its index in scene.textures.
  int read(const std::string& name, const nlohmann::json& t, const std::string& p);

  // The texture value v at path names: a name in /textures, or an inline object (added under
  // `inline_name`). Returns its index.
  int input(const nlohmann::json& v, const std::string& path, const std::string& inline_name);

  // The /textures section: every entry, by name.
  void read_all(const nlohmann::json& j);

  // The texture a material names (a string), or -1 with a message naming the textures.
  int find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? -1 : it->second;
  }
  std::string names() const;

 private:
  const JsonReader& rd_;
  Scene& scene_;
  std::filesystem::path base_dir_;
  std::map<std::string, int> index_;
};

}  // namespace dray
