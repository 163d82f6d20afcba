#include "renderer/io/scene_loader.h"
// --set overrides: KEY=VALUE applied to a scene document before it is loaded.
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <utility>

namespace dray {

using nlohmann::json;

namespace {

// Splits "a.b[2].c" into segments {"a", "b", "2", "c"}.
std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : key) {
    if (ch == '.' || ch == '[' || ch == ']') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<std::string> key_segments(const std::string& key) {
  std::vector<std::string> segs = split_key(key);
  // A mesh's transform parameters are named like every other (shapes.bunny.translate); in the
  // document they sit under the shape's "transform".
  static const std::set<std::string> transform_keys = {"scale", "translate", "rotate_x", "rotate_y", "rotate_z"};
  if (segs.size() >= 3 && segs[0] == "shapes" && transform_keys.count(segs[2]))
    segs.insert(segs.begin() + 2, "transform");
  // A later sensor's parameters (sensors.NAME.fov_y) sit in the /camera array.
  if (segs.size() >= 2 && segs[0] == "sensors") segs[0] = "camera";
  return segs;
}

// The element of a /camera array that `s` names: by "name", by its default name (camera, sensor1,
// sensor2, …) or by index.
std::optional<size_t> camera_element(const json& cameras, const std::string& s) {
  for (size_t k = 0; k < cameras.size(); ++k) {
    const bool named = cameras[k].is_object() && cameras[k].contains("name") && cameras[k]["name"].is_string();
    const std::string name = named ? cameras[k]["name"].get<std::string>() : (k == 0 ? "camera" : "sensor" + std::to_string(k));
    if (name == s || std::to_string(k) == s) return k;
  }
  return std::nullopt;
}

// A bare word (render.filter=box, file=models/x.obj) is a string; anything else must be JSON.
bool is_bare_word(const std::string& t) {
  if (t.empty() || std::string("[{\"-+0123456789").find(t[0]) != std::string::npos) return false;
  if (t[0] == '.' && t.size() > 1 && std::isdigit(static_cast<unsigned char>(t[1]))) return false;
  return t.find_first_of("[]{}\",: \t") == std::string::npos;
}

// Keys with two spellings (Mitsuba's and dray's first): --set writes the one the document has.
const std::string& spelled_as_in(const json& object, const std::string& key) {
  static const std::pair<std::string, std::string> kTwins[] = {{"reflectance", "albedo"}, {"specular_reflectance", "tint"}};
  if (object.contains(key)) return key;
  for (const auto& [a, b] : kTwins) {
    if (key == a && object.contains(b)) return b;
    if (key == b && object.contains(a)) return a;
  }
  return key;
}

}  // namespace

std::string scene_key(const std::string& param_name) {
  std::vector<std::string> segs = key_segments(param_name);
  std::string key;
  for (const auto& s : segs) key += (key.empty() ? "" : ".") + s;
  return key;
}

void apply_override(json& doc, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw LoadError("--set " + assignment + ": expected KEY=VALUE (e.g. render.spp=4)");
  std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  json value;
  try {
    value = json::parse(text);
  } catch (const json::exception& e) {
    if (!is_bare_word(text)) {
      std::string why = e.what();
      if (auto k = why.find("] "); k != std::string::npos) why = why.substr(k + 2);
      throw LoadError("--set " + assignment + ": the value is not valid JSON (" + why +
                      "); a bare word is a string, other text must be JSON");
    }
    value = text;
  }
  std::vector<std::string> segs = key_segments(key);
  if (segs.empty()) throw LoadError("--set " + assignment + ": empty key");
  // With several sensors, camera.KEY is the first one's, sensors.NAME.KEY another's.
  if (segs.size() >= 2 && segs[0] == "camera" && doc.contains("camera") && doc["camera"].is_array()) {
    const std::optional<size_t> k = camera_element(doc["camera"], segs[1]);
    if (k) segs[1] = std::to_string(*k);
    else segs.insert(segs.begin() + 1, "0");
  }
  json* node = &doc;
  for (size_t i = 0; i < segs.size(); ++i) {
    const std::string& s = segs[i];
    bool last = i + 1 == segs.size();
    if (node->is_array()) {
      // An array element by index, or (for shapes and lights) by its "name".
      json* next = nullptr;
      if (!s.empty() && std::all_of(s.begin(), s.end(), ::isdigit)) {
        size_t k = std::stoul(s);
        if (k < node->size()) next = &(*node)[k];
      } else {
        for (auto& el : *node)
          if (el.is_object() && el.contains("name") && el["name"] == s) next = &el;
        // An unnamed element by its default name: shapes.shape2 is /shapes/2.
        const std::string singular = i > 0 ? segs[i - 1].substr(0, segs[i - 1].size() - 1) : "";
        if (!next && !singular.empty() && s.size() > singular.size() && s.compare(0, singular.size(), singular) == 0 &&
            std::all_of(s.begin() + long(singular.size()), s.end(), ::isdigit)) {
          size_t k = std::stoul(s.substr(singular.size()));
          if (k < node->size() && !((*node)[k].is_object() && (*node)[k].contains("name"))) next = &(*node)[k];
        }
      }
      if (!next) throw LoadError("--set " + key + ": no element \"" + s + "\"");
      node = next;
    } else {
      if (node->is_null()) *node = json::object();
      if (!node->is_object()) throw LoadError("--set " + key + ": \"" + s + "\" is inside a value that is not an object");
      const std::string& name = last ? spelled_as_in(*node, s) : s;
      if (last && value.is_null()) {  // KEY=null removes the key
        node->erase(name);
        return;
      }
      node = &(*node)[name];
    }
    if (last) *node = value;
  }
}

}  // namespace dray
