#pragma once
// Reads the scene's /materials: Mitsuba 3's BSDF plugins by the registry (each BSDF's read(), the
// Bsdf variant's list in bsdfs/bsdf.h), and the material-level wrappers (mask, twosided, normalmap,
// bumpmap) and null; every continuous value a parameter under `materials.NAME.KEY`.
#include <string>

#include <glm/vec3.hpp>

#include "renderer/io/texture_reader.h"
#include "renderer/io/json_reader.h"
#include "renderer/scene.h"

namespace dray {

class MaterialReader {
 public:
  // `textures`: where colours given as a texture name or an inline texture object are found.
  MaterialReader(const JsonReader& rd, Scene& scene, TextureReader* textures = nullptr)
      : rd_(rd), scene_(scene), textures_(textures) {}

  // Adds material `name` from its JSON object at path p; returns its index in scene.materials.
  uint32_t read(const std::string& name, const nlohmann::json& m, const std::string& p);

  // A diffuse material (OBJ materials): reflectance, and emission when not null.
  uint32_t add_diffuse(const std::string& name, const glm::vec3& reflectance, const glm::vec3* emission);

 private:
  friend class JsonBsdfProps;  // a BSDF's keys, read through this reader
  // One BSDF object (not twosided or mask); `extra` keys are allowed besides its own (the
  // material-level ones). Parameters are named prefix + key.
  uint32_t bsdf(const nlohmann::json& m, const std::string& p, const std::string& prefix,
                const std::vector<std::string>& extra);
  // A colour: a value (a parameter named prefix + key), a texture's name, or an inline texture.
  ColourInput colour(const nlohmann::json& m, const std::string& p, const std::string& prefix, const std::string& key,
                     const glm::vec3& fallback, const char* alias = nullptr, bool at_most_one = false);
  // The texture a key names (a name in /textures, or an inline object named prefix + key).
  int texture_input(const nlohmann::json& v, const std::string& path, const std::string& prefix, const std::string& key);
  uint32_t push(const Bsdf& b);
  void mask_opacity(const nlohmann::json& m, const std::string& p, const std::string& prefix, Material& mat);
  // A material's emission and sides (emission, two_sided, directional), then the material added.
  uint32_t finish(Material& mat, const nlohmann::json& m, const std::string& p, const std::string& prefix);
  void perturbation(const nlohmann::json& m, const std::string& p, const std::string& prefix, const std::string& type,
                    std::vector<std::string> extra, Material& mat);

  const JsonReader& rd_;
  Scene& scene_;
  TextureReader* textures_;
};

}  // namespace dray
