#include "renderer/io/mitsuba/values.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <glm/geometric.hpp>

#include "renderer/core/number_text.h"
#include "renderer/core/spectrum_rgb.h"
#include "renderer/io/json_reader.h"

namespace dray::mitsuba {

namespace fs = std::filesystem;

namespace {

// maxDepth -> max_depth, intIOR -> int_ior (Mitsuba 3 upgrades version-1 names so).
std::string snake_case(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0 &&
        (std::islower(static_cast<unsigned char>(s[i - 1])) || std::isdigit(static_cast<unsigned char>(s[i - 1]))))
      out += '_';
    out += char(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

void upgrade(pugi::xml_node n) {
  if (std::string(n.name()) == "lookAt") n.set_name("lookat");
  if (pugi::xml_attribute a = n.attribute("name")) a.set_value(snake_case(a.value()).c_str());
  for (pugi::xml_node c : n.children()) upgrade(c);
}

glm::dmat4 rotation(const glm::dvec3& axis, double degrees) {
  const glm::dvec3 a = glm::normalize(axis);
  const double t = degrees * M_PI / 180.0, c = std::cos(t), s = std::sin(t), k = 1.0 - c;
  glm::dmat4 m(1.0);  // glm is column-major: m[column][row]
  m[0] = {c + a.x * a.x * k, a.y * a.x * k + a.z * s, a.z * a.x * k - a.y * s, 0.0};
  m[1] = {a.x * a.y * k - a.z * s, c + a.y * a.y * k, a.z * a.y * k + a.x * s, 0.0};
  m[2] = {a.x * a.z * k + a.y * s, a.y * a.z * k - a.x * s, c + a.z * a.z * k, 0.0};
  return m;
}

}  // namespace

pugi::xml_node XmlFiles::load(const std::string& path) {
  auto src = std::make_unique<Source>();
  src->path = path;
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!fs::exists(path, ec)) throw LoadError(path + ": cannot open: no such file");
  if (!in || fs::is_directory(path, ec)) throw LoadError(path + ": cannot open for reading");
  std::stringstream ss;
  ss << in.rdbuf();
  src->text = ss.str();
  const pugi::xml_parse_result r = src->doc.load_buffer(src->text.data(), src->text.size());
  if (!r) {
    const long line = 1 + std::count(src->text.begin(), src->text.begin() + std::min<ptrdiff_t>(r.offset, ptrdiff_t(src->text.size())), '\n');
    throw LoadError(path + ":" + std::to_string(line) + ": not well-formed XML: " + r.description());
  }
  pugi::xml_node root = src->doc.document_element();
  sources_.push_back(std::move(src));
  if (std::string(root.name()) != "scene") fail(root, "the root element must be <scene>");
  const std::string version = root.attribute("version").value();
  if (version.empty()) fail(root, "the version attribute is missing (e.g. version=\"3.0.0\")");
  if (std::atoi(version.c_str()) < 2) upgrade(root);
  check_attributes(root);
  return root;
}

// Mitsuba's parser refuses an attribute an element does not take (src/core/parser.cpp,
// check_attributes): a typo such as <float nme="alpha"> is an error, not a silent default.
void XmlFiles::check_attributes(const pugi::xml_node& n) const {
  static const std::map<std::string, std::vector<std::string>> allowed = {
      {"scene", {"version", "type", "id", "name"}}, {"float", {"name", "value"}}, {"integer", {"name", "value"}},
      {"boolean", {"name", "value"}}, {"string", {"name", "value"}}, {"rgb", {"name", "value"}},
      {"spectrum", {"name", "value", "filename"}}, {"point", {"name", "value", "x", "y", "z"}},
      {"vector", {"name", "value", "x", "y", "z"}}, {"transform", {"name"}}, {"translate", {"value", "x", "y", "z"}},
      {"rotate", {"value", "angle", "x", "y", "z"}}, {"scale", {"value", "x", "y", "z"}}, {"matrix", {"value"}},
      {"lookat", {"origin", "target", "up"}}, {"include", {"filename", "name"}}, {"ref", {"id", "name"}},
      {"alias", {"id", "as"}}, {"default", {"name", "value"}}, {"path", {"value"}}};
  static const std::vector<std::string> object = {"type", "id", "name"};
  auto it = allowed.find(n.name());
  const std::vector<std::string>& ok = it == allowed.end() ? object : it->second;
  for (pugi::xml_attribute a : n.attributes()) {
    if (std::find(ok.begin(), ok.end(), a.name()) != ok.end()) continue;
    std::string list;
    for (const std::string& k : ok) list += (list.empty() ? "" : ", ") + k;
    fail(n, "unexpected attribute \"" + std::string(a.name()) + "\" (<" + n.name() + "> takes " + list + ")");
  }
  for (pugi::xml_node c : n.children())
    if (c.type() == pugi::node_element) check_attributes(c);
}

const XmlFiles::Source* XmlFiles::source_of(const pugi::xml_node& n) const {
  const pugi::xml_node root = n.root();
  for (const auto& s : sources_)
    if (s->doc == root) return s.get();
  return nullptr;
}

std::string XmlFiles::file_of(const pugi::xml_node& n) const {
  const Source* s = source_of(n);
  return s ? s->path : std::string("?");
}

std::string XmlFiles::where(const pugi::xml_node& n) const {
  const Source* s = source_of(n);
  if (!s) return "?";
  const ptrdiff_t off = std::clamp<ptrdiff_t>(n.offset_debug(), 0, ptrdiff_t(s->text.size()));
  std::string tag = "<";
  tag += n.name();
  for (const char* a : {"type", "name", "id"})
    if (pugi::xml_attribute at = n.attribute(a)) {
      tag += ' ';
      tag += a;
      tag += "=\"";
      tag += at.value();
      tag += '"';
    }
  // pugixml's offset is the element name's, one past its '<': the column is the '<''s (from 1).
  const size_t line_start = off > 0 ? s->text.rfind('\n', size_t(off - 1)) + 1 : 0;  // npos + 1 = 0
  const long column = std::max<long>(1, long(off) - long(line_start));
  return s->path + ":" + std::to_string(1 + std::count(s->text.begin(), s->text.begin() + off, '\n')) + ":" +
         std::to_string(column) + ": " + tag + ">";
}

void XmlFiles::fail(const pugi::xml_node& n, const std::string& msg) const { throw LoadError(where(n) + ": " + msg); }

void XmlFiles::add_default(const pugi::xml_node& n) {
  const std::string name = attr(n, "name");
  if (!defaults_.count(name)) defaults_[name] = attr(n, "value");
}

std::string XmlFiles::attr(const pugi::xml_node& n, const char* name, bool required) const {
  const pugi::xml_attribute a = n.attribute(name);
  if (!a) {
    if (required) fail(n, std::string("the ") + name + " attribute is missing");
    return "";
  }
  const std::string v = a.value();
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '$') {
      out += v[i];
      continue;
    }
    size_t j = i + 1;
    while (j < v.size() && (std::isalnum(static_cast<unsigned char>(v[j])) || v[j] == '_')) ++j;
    const std::string key = v.substr(i + 1, j - i - 1);
    used_.insert(key);
    if (auto d = defines_.find(key); d != defines_.end()) out += d->second;
    else if (auto f = defaults_.find(key); f != defaults_.end()) out += f->second;
    else fail(n, "$" + key + " is not defined (give <default name=\"" + key + "\" value=\"...\"/> or -D " + key + "=...)");
    i = j - 1;
  }
  return out;
}

std::vector<std::string> XmlFiles::unused_defines() const {
  std::vector<std::string> out;
  for (const auto& [name, value] : defines_)
    if (!used_.count(name)) out.push_back(name);
  return out;
}

std::string XmlFiles::parameter_names() const {
  auto list = [](const std::set<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "$" : ", $") + n;
    return out;
  };
  std::set<std::string> unused;  // a <default> the scene declares and never substitutes
  for (const auto& [name, value] : defaults_)
    if (!used_.count(name)) unused.insert(name);
  const std::string used = used_.empty() ? "none" : list(used_);
  return unused.empty() ? used : used + "; declared by a <default> but never used: " + list(unused);
}

std::vector<double> XmlFiles::numbers(const pugi::xml_node& n, const std::string& text) const {
  std::vector<double> out;
  for (const std::string& word : list_words(text)) out.push_back(number(n, word));
  return out;
}

double XmlFiles::number(const pugi::xml_node& n, const std::string& text) const {
  double v = 0.0;
  if (!parse_number(text, v)) fail(n, "\"" + text + "\" is not a number");
  return v;
}

long XmlFiles::integer(const pugi::xml_node& n) const {
  const double v = number(n);
  if (v != std::floor(v) || std::fabs(v) > 1e15) fail(n, "\"" + attr(n, "value") + "\" is not an integer");
  return long(v);
}

bool XmlFiles::boolean(const pugi::xml_node& n) const {
  const std::string v = attr(n, "value");
  if (v == "true") return true;
  if (v == "false") return false;
  fail(n, "\"" + v + "\" is not true or false");
}

glm::dvec3 XmlFiles::triple(const pugi::xml_node& n) const {
  if (n.attribute("value")) {
    const std::vector<double> v = numbers(n, attr(n, "value"));
    if (v.size() == 1) return glm::dvec3(v[0]);
    if (v.size() != 3) fail(n, "value must hold 3 numbers");
    return {v[0], v[1], v[2]};
  }
  glm::dvec3 p(0.0);
  const char* axes[3] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k)
    if (n.attribute(axes[k])) p[k] = number(n, attr(n, axes[k]));
  return p;
}

nlohmann::json XmlFiles::colour(const pugi::xml_node& n, bool within_emitter) const {
  if (std::string(n.name()) == "rgb") {
    const std::vector<double> v = numbers(n, attr(n, "value"));
    if (v.size() == 1) return {v[0], v[0], v[0]};
    if (v.size() != 3) fail(n, "value must hold 1 or 3 numbers");
    return {v[0], v[1], v[2]};
  }
  // A spectrum, as Mitsuba 3's RGB variants read it (renderer/core/spectrum_rgb.h).
  const std::string name = attr(n, "name", false);
  const bool unbounded = name == "eta" || name == "k" || name == "int_ior" || name == "ext_ior";
  const bool has_file = bool(n.attribute("filename"));
  if (has_file == bool(n.attribute("value"))) fail(n, "a spectrum needs one of value or filename");
  std::vector<double> wavelengths, values;
  if (has_file) {
    read_spectrum_file(n, wavelengths, values);
  } else {
    const std::string text = attr(n, "value");
    if (text.find(':') == std::string::npos) {
      const std::vector<double> v = numbers(n, text);
      if (v.size() != 1) fail(n, "a spectrum's value is one number or wavelength:value pairs");
      // Mitsuba: a uniform spectrum emitted is D65-white's opposite in sRGB, (1, 1, 1) in XYZ.
      const glm::dvec3 c = within_emitter && !unbounded ? xyz_to_srgb(glm::dvec3(1.0)) * v[0] : glm::dvec3(v[0]);
      return {c.x, c.y, c.z};
    }
    for (const std::string& pair : list_words(text)) {
      const size_t colon = pair.find(':');
      if (colon == std::string::npos || pair.find(':', colon + 1) != std::string::npos)
        fail(n, "\"" + pair + "\" is not a wavelength:value pair");
      wavelengths.push_back(number(n, pair.substr(0, colon)));
      values.push_back(number(n, pair.substr(colon + 1)));
    }
  }
  if (wavelengths.size() < 2) fail(n, "a spectrum needs at least two wavelength:value pairs");
  for (size_t i = 1; i < wavelengths.size(); ++i)
    if (!(wavelengths[i] > wavelengths[i - 1])) fail(n, "a spectrum's wavelengths must increase");
  for (double& v : values) v *= kCieYNormalization;
  const glm::dvec3 c = spectrum_to_srgb(wavelengths, values, !(within_emitter || unbounded), !(within_emitter && !unbounded));
  return {c.x, c.y, c.z};
}

void XmlFiles::read_spectrum_file(const pugi::xml_node& n, std::vector<double>& wavelengths,
                                  std::vector<double>& values) const {
  const fs::path file = fs::path(file_of(n)).parent_path() / attr(n, "filename");
  std::ifstream in(file);
  if (!in) fail(n, "cannot open the spectrum file \"" + file.string() + "\"");
  std::string line;
  for (int number_of_line = 1; std::getline(in, line); ++number_of_line) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    double w, v;
    std::string extra;
    if (!(words >> w)) continue;  // blank or a comment
    if (!(words >> v) || (words >> extra) || !std::isfinite(w) || !std::isfinite(v))
      fail(n, file.string() + ": line " + std::to_string(number_of_line) + ": expected \"wavelength value\"");
    wavelengths.push_back(w);
    values.push_back(v);
  }
}

std::optional<XmlFiles::LookAt> XmlFiles::lookat(const pugi::xml_node& n) const {
  std::vector<pugi::xml_node> steps;
  for (pugi::xml_node c : n.children())
    if (c.type() == pugi::node_element) steps.push_back(c);
  if (steps.empty() || std::string(steps.back().name()) != "lookat") return std::nullopt;
  if (steps.size() > 2 || (steps.size() == 2 && std::string(steps[0].name()) != "scale")) return std::nullopt;
  const pugi::xml_node c = steps.back();
  auto point = [&](const char* a) {
    const std::vector<double> v = numbers(c, attr(c, a));
    if (v.size() != 3) fail(c, std::string(a) + " must hold 3 numbers");
    return glm::dvec3(v[0], v[1], v[2]);
  };
  return LookAt{point("origin"), point("target"), c.attribute("up") ? point("up") : glm::dvec3(0, 1, 0)};
}

glm::dmat4 XmlFiles::transform(const pugi::xml_node& n) const {
  glm::dmat4 m(1.0);
  for (pugi::xml_node c : n.children()) {
    if (c.type() != pugi::node_element) continue;
    const std::string kind = c.name();
    glm::dmat4 step(1.0);
    if (kind == "translate") {
      const glm::dvec3 t = triple(c);
      step[3] = glm::dvec4(t, 1.0);
    } else if (kind == "scale") {
      const glm::dvec3 s = c.attribute("value") ? triple(c) : [&] {
        glm::dvec3 v(1.0);
        const char* axes[3] = {"x", "y", "z"};
        for (int k = 0; k < 3; ++k)
          if (c.attribute(axes[k])) v[k] = number(c, attr(c, axes[k]));
        return v;
      }();
      for (int k = 0; k < 3; ++k) step[k][k] = s[k];
    } else if (kind == "rotate") {
      const glm::dvec3 axis = triple(c);
      if (!(glm::length(axis) > 0.0)) fail(c, "the rotation axis must not be zero");
      step = rotation(axis, number(c, attr(c, "angle")));
    } else if (kind == "matrix") {
      const std::vector<double> v = numbers(c, attr(c, "value"));
      if (v.size() != 16 && v.size() != 9) fail(c, "value must hold 16 (4x4) or 9 (3x3) numbers, row by row");
      const int w = v.size() == 16 ? 4 : 3;
      for (int r = 0; r < w; ++r)
        for (int k = 0; k < w; ++k) step[k][r] = v[size_t(r * w + k)];
    } else if (kind == "lookat") {
      auto point = [&](const char* a) {
        const std::vector<double> v = numbers(c, attr(c, a));
        if (v.size() != 3) fail(c, std::string(a) + " must hold 3 numbers");
        return glm::dvec3(v[0], v[1], v[2]);
      };
      const glm::dvec3 origin = point("origin"), target = point("target");
      const glm::dvec3 up = c.attribute("up") ? point("up") : glm::dvec3(0, 1, 0);
      const glm::dvec3 dir = target - origin;
      if (!(glm::length(dir) > 0.0)) fail(c, "target must differ from origin");
      const glm::dvec3 left = glm::cross(up, glm::normalize(dir));
      if (!(glm::length(left) > 1e-9)) fail(c, "up must not be parallel to the viewing direction");
      const glm::dvec3 d = glm::normalize(dir), l = glm::normalize(left), u = glm::cross(d, l);
      step[0] = glm::dvec4(l, 0.0);
      step[1] = glm::dvec4(u, 0.0);
      step[2] = glm::dvec4(d, 0.0);
      step[3] = glm::dvec4(origin, 1.0);
    } else {
      fail(c, "unknown transform element (expected translate, rotate, scale, matrix or lookat)");
    }
    m = step * m;  // each element applies after the ones before it
  }
  return m;
}

}  // namespace dray::mitsuba
