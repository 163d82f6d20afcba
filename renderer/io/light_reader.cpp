#include "renderer/io/light_reader.h"

#include <cmath>

#include <glm/matrix.hpp>

#include "renderer/core/registry.h"
#include "renderer/io/json_props.h"

namespace dray {

using nlohmann::json;

namespace {

// An emitter plugin's keys from its light object.
class JsonEmitterProps final : public JsonProps<EmitterProps> {
 public:
  JsonEmitterProps(const JsonReader& rd, Scene& scene, TextureReader& textures, const std::filesystem::path& base_dir,
                   const json& l, const std::string& p, const std::string& name, const std::string& prefix,
                   const std::string& type)
      : JsonProps(rd, scene.params, l, p, prefix, {"name"}, type), scene_(scene), textures_(textures),
        base_dir_(base_dir), name_(name) {}

  const std::string& name() const override { return name_; }
  long integer(const std::string& key, long lo, long hi) const override { return rd_.integer(m_[key], path(key), lo, hi); }
  bool is_texture(const std::string& key) const override { return has(key) && (m_[key].is_string() || m_[key].is_object()); }
  int texture(const std::string& key) override { return textures_.input(m_[key], path(key), name_ + "." + key); }
  glm::ivec2 texture_size(int texture) const override { return dray::texture_size(scene_.textures[size_t(texture)]); }
  Image image() const override { return read_image_input(rd_, m_, p_, base_dir_, false, glm::vec3(1.f)); }
  glm::mat3 rotation(const std::string& key, const std::string& what) const override {
    const json& m = m_[key];
    const std::string at = path(key);
    if (!m.is_array() || m.size() != 16) rd_.fail(at, "must be an array of 16 numbers (4x4, row-major)");
    glm::mat3 r;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) r[k][i] = float(rd_.number(m[size_t(4 * i + k)], at + "/" + std::to_string(4 * i + k)));
    const glm::mat3 should_be_one = glm::transpose(r) * r;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k)
        if (std::fabs(should_be_one[i][k] - (i == k ? 1.f : 0.f)) > 1e-5f || !(glm::determinant(r) > 0.f))
          rd_.fail(at, what + "'s matrix must be a rotation (orthonormal, no mirror, no scale)");
    return r;
  }
  void warn(const std::string& message) override { scene_.warnings.push_back(message); }

 private:
  Scene& scene_;
  TextureReader& textures_;
  const std::filesystem::path& base_dir_;
  std::string name_;
};

}  // namespace

Light LightReader::read(const json& l, const std::string& p, const std::string& name, const std::string& type,
                        const std::string& prefix) {
  const auto reader = plugin_reader<EmitterModel, EmitterProps>(type);
  if (!reader)
    rd_.fail(p + "/type", "unknown light type \"" + type + "\" (expected one of: " + plugin_names<EmitterModel>() + ")");
  bool sky = false;
  with_plugin<EmitterModel>(type, [&](const auto& e) { sky = e.kPlacement == EmitterPlacement::sky; });
  if (sky && scene_.environment >= 0) rd_.fail(p, "only one environment light is allowed");
  JsonEmitterProps props(rd_, scene_, textures_, base_dir_, l, p, name, prefix, type);
  Light light{name, reader(props)};
  if (sky) scene_.environment = int(scene_.lights.size());
  return light;
}

}  // namespace dray
