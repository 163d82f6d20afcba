#pragma once
// A plugin's keys read from its object in the scene document (core/props.h): the JSON object at
// path p, its parameters named prefix + key in the scene's table, the keys `extra` allowed besides
// the plugin's own (a material's, a medium's). JsonProps<I> implements the common part of a kind's
// interface I (Props, BsdfProps, PhaseProps); the kind's reader adds the rest.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "renderer/core/number_text.h"
#include "renderer/core/props.h"
#include "renderer/io/json_reader.h"

namespace dray {

template <class Interface>
class JsonProps : public Interface {
 public:
  JsonProps(const JsonReader& rd, ParamTable& table, const nlohmann::json& m, std::string p, std::string prefix,
            std::vector<std::string> extra, std::string type)
      : rd_(rd), table_(table), m_(m), p_(std::move(p)), prefix_(std::move(prefix)), extra_(std::move(extra)),
        type_(std::move(type)) {}

  const std::string& type() const override { return type_; }
  void keys(const std::vector<std::string>& allowed, const std::vector<std::string>& required) override {
    std::vector<std::string> all{"type"};
    all.insert(all.end(), allowed.begin(), allowed.end());
    all.insert(all.end(), extra_.begin(), extra_.end());
    rd_.object(m_, p_, all, required);
  }
  bool has(const std::string& key) const override { return m_.contains(key); }
  bool is_number(const std::string& key) const override { return has(key) && m_[key].is_number(); }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const override { rd_.fail(path(key), what); }
  double number(const std::string& key) const override { return rd_.number(m_[key], path(key)); }
  bool boolean(const std::string& key) const override { return rd_.boolean(m_[key], path(key)); }
  std::string string(const std::string& key) const override { return rd_.string(m_[key], path(key)); }
  glm::vec3 colour_value(const std::string& key) const override { return rd_.colour(m_[key], path(key)); }
  glm::vec3 vec3_value(const std::string& key) const override { return rd_.vec3(m_[key], path(key)); }
  std::vector<float> numbers(const std::string& key) const override {
    const nlohmann::json& v = m_[key];
    std::vector<float> out;
    if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) out.push_back(float(rd_.number(v[i], path(key) + "/" + std::to_string(i))));
      return out;
    }
    if (!v.is_string()) fail(key, std::string("must be an array of numbers or a string of them, got ") + v.type_name());
    for (const std::string& word : list_words(v.get<std::string>())) {
      double x = 0.0;
      if (!parse_number(word, x) || !(std::fabs(x) <= double(std::numeric_limits<float>::max())))
        fail(key, "\"" + word + "\" is not a number within float range");
      out.push_back(float(x));
    }
    return out;
  }
  Slot param(const std::string& key, float value, Domain d) override { return table_.add(prefix_ + key, value, d); }
  Slot param(const std::string& key, const glm::vec3& value, Domain d) override { return table_.add(prefix_ + key, value, d); }
  Slot block(const std::string& key, const std::vector<float>& values, const std::vector<uint32_t>& shape, Domain d) override {
    return table_.add_block(prefix_ + key, values, shape, d);
  }
  std::size_t count(const std::string& key) const override { return has(key) && m_[key].is_array() ? m_[key].size() : 0; }
  const ParamTable& params() const override { return table_; }

 protected:
  std::string path(const std::string& key) const { return p_ + "/" + key; }
  const JsonReader& rd_;
  ParamTable& table_;
  const nlohmann::json& m_;
  std::string p_, prefix_;
  std::vector<std::string> extra_;
  std::string type_;
};

}  // namespace dray
