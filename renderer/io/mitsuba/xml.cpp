#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>


#include "renderer/io/mitsuba/converter.h"

namespace dray::mitsuba {

namespace fs = std::filesystem;

json Converter::run(const std::string& path) {
  top_folder_ = fs::path(path).parent_path().string();
  resolver_ = FileResolver(top_folder_);
  read_file(path);
  // Mitsuba refuses what the scene does not use; a -D that changes nothing is a typo to report.
  if (const auto unused = x_.unused_defines(); !unused.empty())
    throw LoadError(path + ": -D " + unused[0] + ": the scene never uses $" + unused[0] + " (its parameters: " + x_.parameter_names() +
                    ")");
  if (camera_.is_null()) throw LoadError(path + ": the scene has no <sensor>");
  if (!filter_seen_) render_["filter"] = "gaussian";  // Mitsuba's default
  render_["splat"] = true;                              // hdrfilm splats its samples
  json doc = {{"camera", camera_}, {"render", render_}, {"shapes", shapes_}};
  if (!materials_.empty()) doc["materials"] = materials_;
  if (!textures_.empty()) doc["textures"] = textures_;
  if (!lights_.empty()) doc["lights"] = lights_;
  if (!media_.empty()) doc["media"] = media_;
  if (!mitsuba_ids_.empty()) doc["mitsuba_ids"] = mitsuba_ids_;
  resolve_files(doc);
  return doc;
}

void Converter::read_file(const std::string& path, const pugi::xml_node* at) {
  std::error_code ec;
  const std::string key = fs::weakly_canonical(fs::absolute(path), ec).string();
  if (std::find(open_.begin(), open_.end(), key) != open_.end()) {
    std::string chain;
    for (const std::string& f : open_) chain += f + " -> ";
    if (at) x_.fail(*at, "include cycle: " + chain + key);
    throw LoadError("include cycle: " + chain + key);
  }
  open_.push_back(key);
  scene(x_.load(path));
  open_.pop_back();
}

void Converter::add_path(const pugi::xml_node& n) {
  const std::string value = x_.attr(n, "value");
  fs::path folder = value;
  if (!folder.is_absolute()) {  // beside the file naming it, else through the resolver
    folder = fs::path(x_.file_of(n)).parent_path() / value;
    if (std::error_code ec; !fs::exists(folder, ec)) folder = resolver_.resolve(value);
  }
  if (std::error_code ec; !fs::is_directory(folder, ec))
    x_.fail(n, "folder \"" + value + "\" not found (looked beside " + x_.file_of(n) + " and in " + resolver_.folders() + ")");
  resolver_.prepend(folder);
}

void Converter::include(const pugi::xml_node& n) {
  // The including file's folder first, then the resolver; the included file is read with that
  // copy of the resolver (its own <path>s end with it).
  const FileResolver outer = resolver_;
  resolver_.prepend(fs::path(x_.file_of(n)).parent_path());
  const std::string name = x_.attr(n, "filename");
  const fs::path file = resolver_.resolve(name);
  if (std::error_code ec; !fs::is_regular_file(file, ec))
    x_.fail(n, "included file \"" + name + "\" not found (looked in " + resolver_.folders() + ")");
  try {
    read_file(file.string(), &n);
  } catch (const LoadError& e) {
    resolver_ = outer;
    throw;
  }
  resolver_ = outer;
}

void Converter::resolve_files(json& j) const {
  if (j.is_object() && j.contains("$file")) {
    const std::string name = j["$file"].get<std::string>();
    const fs::path file = resolver_.resolve(name);
    if (std::error_code ec; !fs::exists(file, ec))
      throw LoadError(j["$at"].get<std::string>() + ": file \"" + name + "\" not found (looked in " + resolver_.folders() + ")");
    if (file.is_absolute() && fs::path(name).is_absolute()) {
      j = file.string();
      return;
    }
    // Relative to the top file's folder, where the loader looks.
    const fs::path base = fs::absolute(top_folder_.empty() ? fs::path(".") : fs::path(top_folder_)).lexically_normal();
    j = fs::absolute(file).lexically_normal().lexically_relative(base).string();
    return;
  }
  if (j.is_structured())
    for (json& e : j) resolve_files(e);
}

void Converter::scene(const pugi::xml_node& root) {
  // Mitsuba resolves references once the file is read: a shape may refer to a bsdf or an emitter
  // declared after it. The file's own ids (those without a $name) are known before its objects.
  std::set<pugi::xml_node> known;
  for (pugi::xml_node n : root.children()) {
    const std::string t = element(n) ? tag(n) : "";
    const char* id = n.attribute("id").value();
    if (t.empty() || t == "default" || t == "include" || t == "path" || t == "alias" || !*id || std::strchr(id, '$')) continue;
    register_id(n);
    known.insert(n);
  }
  for (pugi::xml_node n : root.children()) {
    if (!element(n)) continue;
    const std::string t = tag(n);
    if (t == "default") {
      x_.add_default(n);
    } else if (t == "include") {
      include(n);
    } else if (t == "path") {
      add_path(n);
    } else if (t == "alias") {
      ids_[x_.attr(n, "as")] = find(n, x_.attr(n, "id"));
    } else {
      if (n.attribute("id") && !known.count(n)) register_id(n);
      if (t == "integrator") {
        // Mitsuba keeps one integrator; a second is a mistake to say, not one to pick silently.
        if (!integrator_at_.empty()) x_.fail(n, "a second <integrator> (the first: " + integrator_at_ + "); a scene has one");
        integrator_at_ = x_.where(n);
        integrator(n);
      }
      else if (t == "sensor") sensor(n);
      else if (t == "shape") shape(n);
      else if (t == "emitter" && is_area_emitter(n) && n.attribute("id")) continue;  // the shapes that refer to it emit
      else if (t == "sampler" && n.attribute("id")) continue;  // the sensor that refers to it samples with it
      else if (t == "sampler") x_.fail(n, "a sampler at the scene level serves the sensor that refers to it: give it an id and a <ref id=\"…\"/> in the sensor");
      else if (t == "emitter") emitter(n);
      else if (t == "bsdf") material_for(n);
      else if (t == "texture") texture_name(n);
      else if (t == "medium") medium(n);
      else x_.fail(n, "unsupported element at scene level (expected default, include, alias, integrator, sensor, "
                      "shape, emitter, bsdf, texture, medium or sampler)");
    }
  }
}

json Converter::property(const pugi::xml_node& c, bool within_emitter) {
  const std::string t = tag(c);
  if (t == "float") return x_.number(c);
  if (t == "integer") return x_.integer(c);
  if (t == "boolean") return x_.boolean(c);
  if (t == "string") return x_.attr(c, "value");
  if (t == "rgb" || t == "spectrum") return x_.colour(c, within_emitter);
  if (t == "point" || t == "vector") return vec(x_.triple(c));
  if (t == "texture") return texture(c);
  if (t == "ref") return texture_name(resolve(c, "texture"));
  x_.fail(c, "unsupported property element here");
}

}  // namespace dray::mitsuba
