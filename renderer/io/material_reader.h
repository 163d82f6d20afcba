#pragma once
// Reads the scene's /materials: Mitsuba 3's BSDF plugins and parameter names (diffuse, conductor,
// roughconductor, dielectric, plastic, twosided, mask; dray's mirror), every continuous value a
// parameter under `materials.NAME.KEY`.
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
  // One BSDF object (not twosided or mask); `extra` keys are allowed besides its own (the
  // material-level ones). Parameters are named prefix + key.
  uint32_t bsdf(const nlohmann::json& m, const std::string& p, const std::string& prefix,
                const std::vector<std::string>& extra);
  // A colour: a value (a parameter named prefix + key), a texture's name, or an inline texture.
  ColourInput colour(const nlohmann::json& m, const std::string& p, const std::string& prefix, const std::string& key,
                     const glm::vec3& fallback, const char* alias = nullptr, bool at_most_one = false);
  Slot scalar(const nlohmann::json& m, const std::string& p, const std::string& prefix, const std::string& key,
              float fallback);
  float ior(const nlohmann::json& m, const std::string& p, const std::string& key, const char* fallback);
  void roughness(const nlohmann::json& m, const std::string& p, const std::string& prefix, MicrofacetType& type,
                 Slot& alpha_u, Slot& alpha_v);
  void conductor_index(const nlohmann::json& m, const std::string& p, const std::string& prefix, ColourInput& eta, ColourInput& k);
  uint32_t push(const Bsdf& b);

  const JsonReader& rd_;
  Scene& scene_;
  TextureReader* textures_;
};

}  // namespace dray
