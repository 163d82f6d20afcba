#pragma once
// Reading JSON documents (scenes, jobs) with errors that say where:
// `scene.json: /shapes/2/radius: must be > 0, got -1`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>

#include "renderer/core/load_error.h"

namespace dray {

using nlohmann::json;

// Reads and parses a JSON file; errors name the file (and the line, for syntax errors).
inline json read_json_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw LoadError(path + ": cannot open: no such file");
  if (std::filesystem::is_directory(path, ec)) throw LoadError(path + ": is a directory, not a JSON file");
  // A FIFO or a device would block or never end.
  if (!std::filesystem::is_regular_file(path, ec)) throw LoadError(path + ": is not a regular file");
  std::ifstream in(path);
  if (!in) throw LoadError(path + ": cannot open for reading");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    // A syntax error (nlohmann's message reads "[json.exception.parse_error.101] parse error at
    // line 3, ..."), or a number too large for a double (out_of_range.406, found by fuzzing).
    // Its "last read" may quote binary bytes: those are shown as \xNN.
    std::string what = e.what(), shown;
    auto k = what.find("] ");
    for (unsigned char ch : k == std::string::npos ? what : what.substr(k + 2)) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", ch);
      shown += ch >= 0x20 && ch < 0x7f ? std::string(1, char(ch)) : std::string(hex);
    }
    throw LoadError(path + ": " + shown);
  }
}

// Reads and validates JSON values; every error says which file and which JSON path.
class JsonReader {
 public:
  explicit JsonReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw LoadError(file_ + ": " + (path.empty() ? "/" : path) + ": " + msg);
  }

  // Checks that j is an object whose keys are all in `allowed` and that `required` are there.
  void object(const json& j, const std::string& path, std::initializer_list<const char*> allowed,
              std::initializer_list<const char*> required = {}) const {
    object(j, path, std::vector<std::string>(allowed.begin(), allowed.end()),
           std::vector<std::string>(required.begin(), required.end()));
  }
  void object(const json& j, const std::string& path, const std::vector<std::string>& allowed,
              const std::vector<std::string>& required = {}) const {
    if (!j.is_object()) fail(path, std::string("must be an object, got ") + j.type_name());
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(path + "/" + it.key(), "unknown key (expected one of: " + list + ")");
    }
    for (const auto& r : required)
      if (!j.contains(r)) fail(path + "/" + r, "required key is missing");
  }
  bool boolean(const json& j, const std::string& path) const {
    if (!j.is_boolean()) fail(path, std::string("must be true or false, got ") + j.type_name());
    return j.get<bool>();
  }

  double number(const json& j, const std::string& path) const {
    if (!j.is_number()) fail(path, std::string("must be a number, got ") + j.type_name());
    double v = j.get<double>();
    // Scene values are stored as floats: beyond float's range they would become Inf.
    if (!(std::fabs(v) <= double(std::numeric_limits<float>::max())))
      fail(path, "must be a finite number within float range (|x| <= 3.4e38), got " + fmt_number(v));
    return v;
  }
  float positive(const json& j, const std::string& path) const {
    double v = number(j, path);
    if (!(v > 0)) fail(path, "must be > 0, got " + fmt_number(v));
    return float(v);
  }
  long integer(const json& j, const std::string& path, long min, long max) const {
    if (!j.is_number_integer()) fail(path, std::string("must be an integer, got ") + j.type_name());
    // An unsigned value beyond long's range would wrap when read as long: compare it unsigned.
    const bool too_large = j.is_number_unsigned() && j.get<unsigned long long>() > (unsigned long long)max;
    const long v = too_large ? max : j.get<long>();
    if (too_large || v < min || v > max)
      fail(path, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + j.dump());
    return v;
  }
  std::string string(const json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, std::string("must be a string, got ") + j.type_name());
    return j.get<std::string>();
  }
  glm::vec3 vec3(const json& j, const std::string& path) const {
    if (!j.is_array() || j.size() != 3) fail(path, "must be an array of 3 numbers");
    return {float(number(j[0], path + "/0")), float(number(j[1], path + "/1")),
            float(number(j[2], path + "/2"))};
  }
  // A colour: [r, g, b] or one number for all three; components >= 0.
  glm::vec3 colour(const json& j, const std::string& path) const {
    glm::vec3 c = j.is_number() ? glm::vec3(float(number(j, path))) : vec3(j, path);
    for (int i = 0; i < 3; ++i)
      if (c[i] < 0.f) fail(path, "must be >= 0, got " + fmt_number(c[i]));
    return c;
  }

  // Key `key` of object j (at path p) as a vector or colour, or `fallback` when absent: the keys
  // Mitsuba defaults (a light at the origin, unit intensity, a unit sphere).
  glm::vec3 vec3_or(const json& j, const char* key, const std::string& p, const glm::vec3& fallback) const {
    return j.contains(key) ? vec3(j[key], p + "/" + key) : fallback;
  }
  glm::vec3 colour_or(const json& j, const char* key, const std::string& p, const glm::vec3& fallback) const {
    return j.contains(key) ? colour(j[key], p + "/" + key) : fallback;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

}  // namespace dray
