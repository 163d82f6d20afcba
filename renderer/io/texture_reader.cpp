#include "renderer/io/texture_reader.h"

#include <stdexcept>


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

int TextureReader::read(const std::string& name, const json& t, const std::string& p) {
  if (!t.is_object() || !t.contains("type")) rd_.fail(p + "/type", "required key is missing");
  const std::string type = rd_.string(t["type"], p + "/type");
  const std::string prefix = "textures." + name + ".";
  Texture tex;
  tex.name = name;
  auto to_uv = [&] {
    if (!t.contains("to_uv")) return;
    const json& x = t["to_uv"];
    const std::string q = p + "/to_uv";
    rd_.object(x, q, {"scale", "offset"});
    auto pair = [&](const char* key, float fallback) {
      if (!x.contains(key)) return glm::vec2(fallback);
      if (x[key].is_number()) return glm::vec2(float(rd_.number(x[key], q + "/" + key)));
      if (!x[key].is_array() || x[key].size() != 2) rd_.fail(q + "/" + key, "must be a number or an array of 2 numbers");
      return glm::vec2(float(rd_.number(x[key][0], q + "/" + key + "/0")), float(rd_.number(x[key][1], q + "/" + key + "/1")));
    };
    tex.scale = pair("scale", 1.f);
    tex.offset = pair("offset", 0.f);
  };
  if (type == "checkerboard") {
    rd_.object(t, p, {"type", "color0", "color1", "to_uv"});
    tex.kind = Texture::Kind::checkerboard;
    tex.color0 = scene_.params.add(prefix + "color0", t.contains("color0") ? rd_.colour(t["color0"], p + "/color0") : glm::vec3(0.4f), Domain::at_least(0));
    tex.color1 = scene_.params.add(prefix + "color1", t.contains("color1") ? rd_.colour(t["color1"], p + "/color1") : glm::vec3(0.2f), Domain::at_least(0));
    to_uv();
  } else if (type == "rawconstant") {
    // Mitsuba's `rawconstant`: a value as given (one number or three), no colour conversion.
    rd_.object(t, p, {"type", "value"}, {"value"});
    tex.kind = Texture::Kind::constant;
    const json& v = t["value"];
    tex.color0 = scene_.params.add(prefix + "value", v.is_number() ? glm::vec3(float(rd_.number(v, p + "/value"))) : rd_.vec3(v, p + "/value"));
  } else if (type == "bitmap") {
    // Mitsuba's keys, and dray's `width`, `height`, `value` for a constant start (an optimization's).
    rd_.object(t, p, {"type", "filename", "raw", "filter_type", "wrap_mode", "to_uv", "format", "width", "height", "value"});
    // `format`: Mitsuba's storage precision; dray keeps texels in float whatever it says.
    if (t.contains("format")) {
      const std::string f = rd_.string(t["format"], p + "/format");
      if (f != "variant" && f != "fp16" && f != "fp32") rd_.fail(p + "/format", "must be \"variant\", \"fp16\" or \"fp32\", got \"" + f + "\"");
    }
    tex.kind = Texture::Kind::bitmap;
    const Image img = read_image_input(rd_, t, p, base_dir_, t.contains("raw") && rd_.boolean(t["raw"], p + "/raw"), glm::vec3(0.5f));
    tex.width = img.width;
    tex.height = img.height;
    tex.data = scene_.params.add_block(prefix + "data", img.data, {uint32_t(img.height), uint32_t(img.width), 3u});
    const std::string filter = t.contains("filter_type") ? rd_.string(t["filter_type"], p + "/filter_type") : "bilinear";
    if (filter != "bilinear" && filter != "nearest") rd_.fail(p + "/filter_type", "must be \"bilinear\" or \"nearest\", got \"" + filter + "\"");
    tex.nearest = filter == "nearest";
    const std::string wrap = t.contains("wrap_mode") ? rd_.string(t["wrap_mode"], p + "/wrap_mode") : "repeat";
    if (wrap == "repeat") tex.wrap = Texture::Wrap::repeat;
    else if (wrap == "mirror") tex.wrap = Texture::Wrap::mirror;
    else if (wrap == "clamp") tex.wrap = Texture::Wrap::clamp;
    else rd_.fail(p + "/wrap_mode", "must be \"repeat\", \"mirror\" or \"clamp\", got \"" + wrap + "\"");
    to_uv();
  } else if (type == "mesh_attribute") {
    // Mitsuba's `mesh_attribute`: a mesh's vertex_* or face_* attribute (a PLY file's) times `scale`;
    // a shape without it reads 0.
    rd_.object(t, p, {"type", "name", "scale"}, {"name"});
    tex.kind = Texture::Kind::attribute;
    const std::string attr = rd_.string(t["name"], p + "/name");
    if (attr.rfind("vertex_", 0) != 0 && attr.rfind("face_", 0) != 0)
      rd_.fail(p + "/name", "must start with \"vertex_\" or \"face_\", got \"" + attr + "\"");
    tex.attribute = scene_.attribute_id(attr);
    if (t.contains("scale")) tex.value_scale = float(rd_.number(t["scale"], p + "/scale"));
  } else {
    rd_.fail(p + "/type", "unknown texture type \"" + type + "\" (expected bitmap, checkerboard, rawconstant or mesh_attribute)");
  }
  if (index_.count(name)) rd_.fail(p, "duplicate texture name \"" + name + "\"");
  scene_.textures.push_back(tex);
  index_[name] = int(scene_.textures.size() - 1);
  return index_[name];
}

}  // namespace dray
