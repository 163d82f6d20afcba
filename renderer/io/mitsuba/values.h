#pragma once
// The value layer of the Mitsuba XML reader (renderer/io/mitsuba/xml.cpp): parsed files with
// their line numbers, `$name` substitution, errors that name file, line and element, and the
// typed values (numbers, colours, points, transforms) of Mitsuba's property elements.
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

namespace dray::mitsuba {

class XmlFiles {
 public:
  explicit XmlFiles(std::map<std::string, std::string> defines) : defines_(std::move(defines)) {}

  // Parses `path`; its root must be <scene>. Version-1 files are upgraded as Mitsuba 3 does
  // (names from camelCase to snake_case, lookAt to lookat).
  pugi::xml_node load(const std::string& path);

  // "file.xml:LINE:COLUMN: <tag type="...">: msg"
  [[noreturn]] void fail(const pugi::xml_node& n, const std::string& msg) const;
  std::string where(const pugi::xml_node& n) const;
  std::string file_of(const pugi::xml_node& n) const;

  // <default name value>: its value unless -D gave one.
  void add_default(const pugi::xml_node& n);
  // Attribute `name` of n with $names substituted; `required`: missing is an error, else "".
  std::string attr(const pugi::xml_node& n, const char* name, bool required = true) const;
  // The -D names no attribute used (a typo, or a scene without that parameter), and the $names
  // the scene has (its <default>s and those used), for the message.
  std::vector<std::string> unused_defines() const;
  std::string parameter_names() const;

  // Typed property values of the element n (<float value>, <rgb value>, <point x y z>, ...).
  double number(const pugi::xml_node& n, const std::string& text) const;
  double number(const pugi::xml_node& n) const { return number(n, attr(n, "value")); }
  long integer(const pugi::xml_node& n) const;
  bool boolean(const pugi::xml_node& n) const;
  glm::dvec3 triple(const pugi::xml_node& n) const;  // point, vector: x y z or value "x, y, z"
  // rgb, or spectrum (a constant, wavelength:value pairs or a .spd file) as Mitsuba's RGB variants
  // convert it, emitted (`within_emitter`) or not: [r, g, b].
  nlohmann::json colour(const pugi::xml_node& n, bool within_emitter = false) const;
  glm::dmat4 transform(const pugi::xml_node& n) const;   // <transform> and its children, composed
  // A <transform> that is one <lookat>, after at most a <scale>: its origin, target and up as
  // written (up [0, 1, 0] when absent), so that a camera or light keeps the scene's own numbers.
  struct LookAt {
    glm::dvec3 origin, target, up;
  };
  std::optional<LookAt> lookat(const pugi::xml_node& n) const;

 private:
  void check_attributes(const pugi::xml_node& n) const;
  void read_spectrum_file(const pugi::xml_node& n, std::vector<double>& wavelengths, std::vector<double>& values) const;

  struct Source {
    std::string path, text;
    pugi::xml_document doc;
  };
  std::vector<std::unique_ptr<Source>> sources_;
  std::map<std::string, std::string> defines_, defaults_;
  mutable std::set<std::string> used_;  // $names substituted
  const Source* source_of(const pugi::xml_node& n) const;
  std::vector<double> numbers(const pugi::xml_node& n, const std::string& text) const;
};

// Whether a material (dray's JSON) holds a twosided: itself, or inside its mask, normalmap or
// bumpmap wrappers. The reader marks the rest one-sided, the writer wraps the rest in one.
inline bool holds_twosided(const nlohmann::json& m) {
  return m.value("type", "") == "twosided" || (m.contains("bsdf") && m["bsdf"].is_object() && holds_twosided(m["bsdf"]));
}

}  // namespace dray::mitsuba
