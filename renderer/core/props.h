#pragma once
// What a plugin reads when a loader builds it (as Mitsuba's Properties): the keys of its object in
// the scene file, each continuous value a parameter named after its key (KIND.NAME.KEY). A kind
// whose plugins read more (a BSDF's textures and nested BSDFs, a phase function's nested phases)
// extends it (bsdfs/bsdf_props.h, media/phase_props.h); the JSON loader implements them
// (io/json_props.h; Mitsuba XML is converted to that JSON). Each plugin's static read() uses it.
#include <cstddef>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/core/load_error.h"
#include "renderer/core/param_table.h"

namespace dray {

class Props {
 public:
  virtual ~Props() = default;
  virtual const std::string& type() const = 0;  // the plugin name that chose the reader
  // The keys this plugin takes (any other key is an error) and those it requires.
  virtual void keys(const std::vector<std::string>& allowed, const std::vector<std::string>& required = {}) = 0;
  virtual bool has(const std::string& key) const = 0;
  virtual bool is_number(const std::string& key) const = 0;
  [[noreturn]] virtual void fail(const std::string& key, const std::string& what) const = 0;
  // Values of keys that are given (checked: a number, true or false, a string, a colour).
  virtual double number(const std::string& key) const = 0;
  virtual bool boolean(const std::string& key) const = 0;
  virtual std::string string(const std::string& key) const = 0;
  virtual glm::vec3 colour_value(const std::string& key) const = 0;
  virtual glm::vec3 vec3_value(const std::string& key) const = 0;  // a point or a direction
  // A list of finite numbers: an array of them, or a string of them separated by commas or spaces
  // (Mitsuba's form for a tabulated plugin's `values`).
  virtual std::vector<float> numbers(const std::string& key) const = 0;
  // A parameter named after the key; a block of them (`shape` its dimensions).
  virtual Slot param(const std::string& key, float value, Domain d = Domain::finite()) = 0;
  virtual Slot param(const std::string& key, const glm::vec3& value, Domain d = Domain::finite()) = 0;
  virtual Slot block(const std::string& key, const std::vector<float>& values, const std::vector<uint32_t>& shape,
                     Domain d = Domain::finite()) = 0;
  // The length of the array under `key` (0: not an array).
  virtual std::size_t count(const std::string& key) const = 0;
  virtual const ParamTable& params() const = 0;

  // Values with defaults.
  glm::vec3 vec3_or(const std::string& key, const glm::vec3& fallback) const { return has(key) ? vec3_value(key) : fallback; }
  glm::vec3 colour_or(const std::string& key, const glm::vec3& fallback) const {
    return has(key) ? colour_value(key) : fallback;
  }
  double number_or(const std::string& key, double fallback) const { return has(key) ? number(key) : fallback; }
  // A number > 0 (1 when absent).
  float positive_or_one(const std::string& key) const {
    if (!has(key)) return 1.f;
    const double v = number(key);
    if (!(v > 0)) fail(key, "must be > 0, got " + fmt_number(v));
    return float(v);
  }
};

}  // namespace dray
