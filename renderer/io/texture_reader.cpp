#include "renderer/io/texture_reader.h"

#include <stdexcept>

#include "renderer/core/registry.h"
#include "renderer/io/json_props.h"
#include "renderer/io/volume_reader.h"

namespace dray {

using nlohmann::json;
namespace fs = std::filesystem;

Image read_image_input(const JsonReader& rd, const json& j, const std::string& p, const fs::path& base_dir, bool raw,
                       const glm::vec3& fallback) {
  if (j.contains("filename")) {
    for (const char* k : {"width", "height", "value"})
      if (j.contains(k)) rd.fail(p + "/" + k, "give either filename or width, height and value");
    const std::string rel = rd.string(j["filename"], p + "/filename");
    const fs::path file = fs::path(rel).is_absolute() ? fs::path(rel) : base_dir / rel;
    try {
      return read_image(file.string(), raw);
    } catch (const std::exception& e) {
      rd.fail(p + "/filename", e.what());
    }
  }
  if (!j.contains("width") || !j.contains("height")) rd.fail(p + "/filename", "required (or width, height and value for a constant image)");
  Image img(int(rd.integer(j["width"], p + "/width", 1, 1 << 15)), int(rd.integer(j["height"], p + "/height", 1, 1 << 15)), 3);
  const glm::vec3 v = j.contains("value") ? rd.colour(j["value"], p + "/value") : fallback;
  for (size_t k = 0; k < img.data.size(); ++k) img.data[k] = v[int(k % 3)];
  return img;
}

std::string TextureReader::names() const {
  std::string out;
  for (const auto& [n, i] : index_) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none defined" : out;
}

int TextureReader::input(const json& v, const std::string& path, const std::string& inline_name) {
  if (v.is_object()) return read(inline_name, v, path);
  if (!v.is_string()) rd_.fail(path, "must be a texture: the name of one in /textures, or an object with a \"type\"");
  const int index = find(v.get<std::string>());
  if (index < 0) rd_.fail(path, "no texture named \"" + v.get<std::string>() + "\" in /textures (" + names() + ")");
  return index;
}

void TextureReader::read_all(const json& j) {
  if (!j.is_object()) rd_.fail("/textures", std::string("must be an object, got ") + j.type_name());
  for (auto it = j.begin(); it != j.end(); ++it) read(it.key(), it.value(), "/textures/" + it.key());
}

// A texture's keys as it reads them (textures/texture_props.h).
class JsonTextureProps final : public JsonProps<TextureProps> {
 public:
  JsonTextureProps(const JsonReader& rd, Scene& scene, const fs::path& base_dir, const json& t, const std::string& p,
                   const std::string& prefix, const std::string& type)
      : JsonProps(rd, scene.params, t, p, prefix, {}, type), scene_(scene), base_dir_(base_dir) {}
  Image image(bool raw, const glm::vec3& fallback) override { return read_image_input(rd_, m_, p_, base_dir_, raw, fallback); }
  ToUv to_uv() override {
    ToUv out;
    if (!has("to_uv")) return out;
    const json& x = m_["to_uv"];
    const std::string q = path("to_uv");
    rd_.object(x, q, {"scale", "offset"});
    auto pair = [&](const char* key, float fallback) {
      if (!x.contains(key)) return glm::vec2(fallback);
      if (x[key].is_number()) return glm::vec2(float(rd_.number(x[key], q + "/" + key)));
      if (!x[key].is_array() || x[key].size() != 2) rd_.fail(q + "/" + key, "must be a number or an array of 2 numbers");
      return glm::vec2(float(rd_.number(x[key][0], q + "/" + key + "/0")), float(rd_.number(x[key][1], q + "/" + key + "/1")));
    };
    out.scale = pair("scale", 1.f);
    out.offset = pair("offset", 0.f);
    return out;
  }
  int attribute_id(const std::string& name) override { return scene_.attribute_id(name); }
  Volume volume(const std::string& key, const glm::vec3& fallback) override {
    Volume out;
    glm::vec3 value = has(key) ? glm::vec3(0.f) : fallback;
    if (has(key) && m_[key].is_object()) {
      VolumeObject v = read_volume_object(rd_, table_, m_[key], path(key), base_dir_, prefix_ + key, key, Domain::finite(), fallback);
      if (v.grid) {
        out.grid = std::move(v.grid);
        return out;
      }
      value = v.constant;
    } else if (has(key)) {
      value = colour_value(key);
    }
    out.constant = param(key, value, Domain::finite());
    return out;
  }

 private:
  Scene& scene_;
  const fs::path& base_dir_;
};

// A texture object, read by its plugin in the registry (the TextureModel variant's list,
// textures/texture.h).
int TextureReader::read(const std::string& name, const json& t, const std::string& p) {
  if (!t.is_object() || !t.contains("type")) rd_.fail(p + "/type", "required key is missing");
  const std::string type = rd_.string(t["type"], p + "/type");
  const auto read_plugin = plugin_reader<TextureModel, TextureProps>(type);
  if (!read_plugin) rd_.fail(p + "/type", "unknown texture type \"" + type + "\" (expected " + plugin_names<TextureModel>() + ")");
  JsonTextureProps props(rd_, scene_, base_dir_, t, p, "textures." + name + ".", type);
  Texture tex{name, read_plugin(props)};
  if (index_.count(name)) rd_.fail(p, "duplicate texture name \"" + name + "\"");
  scene_.textures.push_back(tex);
  index_[name] = int(scene_.textures.size() - 1);
  return index_[name];
}

}  // namespace dray
