#include "renderer/io/ply_file.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "renderer/core/load_error.h"

namespace dray {

namespace {

enum class Type { i8, u8, i16, u16, i32, u32, f32, f64 };

// A value read from the file, for a message (any double, however large).
std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

bool parse_type(const std::string& s, Type& t) {
  static const std::pair<const char*, Type> names[] = {
      {"char", Type::i8},     {"int8", Type::i8},     {"uchar", Type::u8},   {"uint8", Type::u8},     {"short", Type::i16},
      {"int16", Type::i16},   {"ushort", Type::u16},  {"uint16", Type::u16}, {"int", Type::i32},      {"int32", Type::i32},
      {"uint", Type::u32},    {"uint32", Type::u32},  {"float", Type::f32},  {"float32", Type::f32}, {"double", Type::f64},
      {"float64", Type::f64}};
  for (const auto& [name, type] : names)
    if (s == name) {
      t = type;
      return true;
    }
  return false;
}

size_t type_size(Type t) {
  switch (t) {
    case Type::i8: case Type::u8: return 1;
    case Type::i16: case Type::u16: return 2;
    case Type::i32: case Type::u32: case Type::f32: return 4;
    case Type::f64: return 8;
  }
  return 1;
}

struct Property {
  std::string name;
  Type type = Type::f32;
  bool list = false;
  Type count_type = Type::u8;
};

struct Element {
  std::string name;
  size_t count = 0;
  std::vector<Property> properties;
};

// The largest value of an integer type (a normalized integer's 1), or 0 for a float type.
double integer_max(Type t) {
  switch (t) {
    case Type::i8: return 127.0;
    case Type::u8: return 255.0;
    case Type::i16: return 32767.0;
    case Type::u16: return 65535.0;
    case Type::i32: return 2147483647.0;
    case Type::u32: return 4294967295.0;
    default: return 0.0;
  }
}

// An attribute of an element: its name (Mitsuba's: `vertex_color`, `face_PREFIX`) and properties.
struct AttributeFields {
  std::string name;
  std::vector<size_t> properties;
};

// The element's scalar properties grouped into attributes by Mitsuba's PLY rules (src/shapes/ply.h,
// find_other_fields): r g b [a] (or red green blue [alpha]) as `KIND_color`; then runs of
// PREFIX_x y z (or r g b, 0 1 2, 1 2 3) of one or three fields as `KIND_PREFIX` (`KIND_PREFIX_color`
// for r g b); anything else skipped with a warning. `reserved`: the properties read as geometry.
std::vector<AttributeFields> group_attributes(const Element& e, const std::string& kind, const std::vector<std::string>& reserved,
                                              std::vector<std::string>& warnings) {
  auto index = [&](const char* n) {
    for (size_t k = 0; k < e.properties.size(); ++k)
      if (e.properties[k].name == n && !e.properties[k].list) return int(k);
    return -1;
  };
  std::vector<AttributeFields> out;
  std::vector<bool> used(e.properties.size(), false);
  for (const std::string& r : reserved)
    if (int k = index(r.c_str()); k >= 0) used[size_t(k)] = true;
  for (const auto& names : {std::vector<const char*>{"r", "g", "b", "a"}, std::vector<const char*>{"red", "green", "blue", "alpha"}}) {
    if (index(names[0]) < 0 || index(names[1]) < 0 || index(names[2]) < 0) continue;
    AttributeFields colour{kind + "color", {}};
    for (const char* n : names)
      if (int k = index(n); k >= 0) colour.properties.push_back(size_t(k)), used[size_t(k)] = true;
    out.push_back(colour);
    break;
  }
  static const char* const kPostfixes[4] = {"xyzw", "rgba", "0123", "1234"};
  std::vector<std::string> seen;
  AttributeFields run;
  int category = -1;
  std::string prefix;
  auto skip = [&](const std::string& why) { warnings.push_back(kind + " attribute \"" + prefix + "\" skipped: " + why); };
  auto flush = [&] {
    if (run.properties.empty()) return;
    if (run.properties.size() == 1 || run.properties.size() == 3) {
      run.name = kind + prefix + (category == 1 ? "_color" : "");
      out.push_back(run);
      seen.push_back(prefix);
    } else {
      skip("an attribute has 1 or 3 fields, this one " + std::to_string(run.properties.size()));
    }
    run = {};
  };
  for (size_t k = 0; k < e.properties.size(); ++k) {
    const Property& p = e.properties[k];
    if (p.list || used[k]) continue;
    const size_t cut = p.name.rfind('_');
    const std::string post = cut == std::string::npos ? "" : p.name.substr(cut + 1);
    const std::string pre = cut == std::string::npos ? p.name : p.name.substr(0, cut);
    if (!run.properties.empty() && pre != prefix) flush();
    if (post.size() != 1) {
      flush();
      warnings.push_back(kind + " property \"" + p.name + "\" skipped: an attribute's fields are named PREFIX_x, _y, _z (or _r _g _b, _0 _1 _2, _1 _2 _3)");
      continue;
    }
    if (run.properties.empty()) {
      prefix = pre;
      if (std::find(seen.begin(), seen.end(), pre) != seen.end()) {
        skip("the prefix comes twice");
        continue;
      }
      category = -1;
      for (int c = 0; c < 4; ++c)
        if (post[0] == kPostfixes[c][0]) category = c;
      if (category < 0) {
        skip("its first field must end in _x, _r, _0 or _1, not _" + post);
        continue;
      }
      run.properties.push_back(k);
    } else if (run.properties.size() < 4 && post[0] == kPostfixes[category][run.properties.size()]) {
      run.properties.push_back(k);
    } else {
      skip("its fields are out of order at \"" + p.name + "\"");
      run = {};
      seen.push_back(pre);
    }
  }
  flush();
  return out;
}

// Reads values from the body: ASCII words (with their line) or binary bytes (with their offset).
class Body {
 public:
  Body(const std::string& data, size_t start, int line, int format, const std::string& where)
      : data_(data), pos_(start), line_(line), format_(format), where_(where) {}

  double read(Type t) {
    if (format_ == 0) return word();
    const size_t n = type_size(t);
    if (pos_ + n > data_.size()) fail("the file ends inside the data (byte " + std::to_string(pos_) + ")");
    unsigned char b[8];
    std::memcpy(b, data_.data() + pos_, n);
    pos_ += n;
    if ((format_ == 2) == (std::endian::native == std::endian::little))
      for (size_t k = 0; k < n / 2; ++k) std::swap(b[k], b[n - 1 - k]);
    auto as = [&](auto v) {
      std::memcpy(&v, b, sizeof v);
      return double(v);
    };
    switch (t) {
      case Type::i8: return as(int8_t());
      case Type::u8: return as(uint8_t());
      case Type::i16: return as(int16_t());
      case Type::u16: return as(uint16_t());
      case Type::i32: return as(int32_t());
      case Type::u32: return as(uint32_t());
      case Type::f32: return as(float());
      case Type::f64: return as(double());
    }
    return 0;
  }
  [[noreturn]] void fail(const std::string& msg) const {
    throw LoadError(where_ + (format_ == 0 ? "line " + std::to_string(line_) + ": " : "") + msg);
  }

 private:
  double word() {
    while (pos_ < data_.size() && std::isspace(static_cast<unsigned char>(data_[pos_])))
      if (data_[pos_++] == '\n') ++line_;
    if (pos_ >= data_.size()) fail("the file ends inside the data");
    const size_t start = pos_;
    while (pos_ < data_.size() && !std::isspace(static_cast<unsigned char>(data_[pos_]))) ++pos_;
    const std::string w = data_.substr(start, pos_ - start);
    char* end = nullptr;
    const double v = std::strtod(w.c_str(), &end);
    if (*end != '\0') fail("\"" + w + "\" is not a number");
    return v;
  }
  const std::string& data_;
  size_t pos_;
  int line_, format_;  // format: 0 ascii, 1 little endian, 2 big endian
  const std::string& where_;
};

// The header, line by line: the elements, their properties and the body's format (0 ascii, 1
// little endian, 2 big endian); `pos` and `line` end at the body's start.
std::vector<Element> read_header(const std::string& data, const std::string& where, size_t& pos, int& line, int& format) {
  std::vector<Element> elements;
  auto fail = [&](const std::string& msg) -> void { throw LoadError(where + "line " + std::to_string(line) + ": " + msg); };
  for (;;) {
    const size_t eol = data.find('\n', pos);
    if (eol == std::string::npos) {
      ++line;
      fail(line == 1 ? "not a PLY file (it does not start with \"ply\")" : "the header has no end_header");
    }
    std::string text = data.substr(pos, eol - pos);
    if (!text.empty() && text.back() == '\r') text.pop_back();
    pos = eol + 1;
    ++line;
    std::istringstream words(text);
    std::string key;
    words >> key;
    if (line == 1) {
      if (key != "ply") fail("not a PLY file (it does not start with \"ply\")");
    } else if (key == "format") {
      std::string f;
      words >> f;
      format = f == "ascii" ? 0 : f == "binary_little_endian" ? 1 : f == "binary_big_endian" ? 2 : -1;
      if (format < 0) fail("unknown format \"" + f + "\" (expected ascii, binary_little_endian or binary_big_endian)");
    } else if (key == "element") {
      Element e;
      std::string count;
      words >> e.name >> count;
      char* end = nullptr;
      const double n = std::strtod(count.c_str(), &end);
      if (e.name.empty() || count.empty() || *end != '\0' || !(n >= 0) || n != std::floor(n) || n > double(data.size()))
        fail("element " + e.name + ": the count must be a whole number no larger than the file, got \"" + count + "\"");
      e.count = size_t(n);
      elements.push_back(e);
    } else if (key == "property") {
      if (elements.empty()) fail("a property before any element");
      Property p;
      std::string type;
      words >> type;
      if (type == "list") {
        std::string count_type;
        words >> count_type >> type;
        if (!parse_type(count_type, p.count_type)) fail("unknown type \"" + count_type + "\"");
        p.list = true;
      }
      if (!parse_type(type, p.type)) fail("unknown type \"" + type + "\"");
      words >> p.name;
      if (p.name.empty()) fail("a property without a name");
      elements.back().properties.push_back(p);
    } else if (key == "end_header") {
      break;
    } else if (key != "comment" && key != "obj_info" && !key.empty()) {
      fail("unknown header line \"" + key + "\"");
    }
  }
  if (format < 0) fail("the header has no format line");
  return elements;
}

// The body's vertices (positions, normals, texture coordinates, attributes) and polygons (with
// their attributes) before triangulation; other elements skipped.
struct Polygons {
  std::vector<glm::vec3> normals;
  std::vector<glm::vec2> uvs;
  std::vector<std::vector<uint32_t>> faces;
  std::vector<TriangleMesh::Attribute> face_attributes;  // per face
  bool have_normals = false, have_uvs = false;
};
void read_elements(Body& body, const std::vector<Element>& elements, ObjFile& out, Polygons& polygons) {
  std::vector<glm::vec3>& normals = polygons.normals;
  std::vector<glm::vec2>& uvs = polygons.uvs;
  std::vector<std::vector<uint32_t>>& faces = polygons.faces;
  std::vector<TriangleMesh::Attribute>& face_attributes = polygons.face_attributes;
  bool &have_normals = polygons.have_normals, &have_uvs = polygons.have_uvs;
  for (const Element& e : elements) {
    auto find = [&](std::initializer_list<const char*> names) {
      for (const char* n : names)
        for (size_t k = 0; k < e.properties.size(); ++k)
          if (e.properties[k].name == n && !e.properties[k].list) return int(k);
      return -1;
    };
    const int x = find({"x"}), y = find({"y"}), z = find({"z"}), nx = find({"nx"}), ny = find({"ny"}), nz = find({"nz"});
    const int u = find({"u", "s", "texture_u", "texture_s"}), v = find({"v", "t", "texture_v", "texture_t"});
    const bool vertex = e.name == "vertex", face = e.name == "face";
    if (vertex) {
      if (x < 0 || y < 0 || z < 0) body.fail("element vertex has no x, y and z");
      have_normals = nx >= 0 && ny >= 0 && nz >= 0;
      have_uvs = u >= 0 && v >= 0;
    }
    // Attributes: vertex ones straight into the mesh, face ones per face (per triangle below).
    const std::vector<AttributeFields> groups =
        vertex ? group_attributes(e, "vertex_", {"x", "y", "z", "nx", "ny", "nz", "u", "v", "s", "t", "texture_u", "texture_v", "texture_s", "texture_t"}, out.warnings)
        : face ? group_attributes(e, "face_", {}, out.warnings) : std::vector<AttributeFields>();
    std::vector<TriangleMesh::Attribute>& attrs = vertex ? out.attributes : face_attributes;
    for (const AttributeFields& g : groups) attrs.push_back({g.name, int(g.properties.size()), {}});
    std::vector<double> values(e.properties.size());
    for (size_t i = 0; i < e.count; ++i) {
      std::vector<uint32_t> list;
      for (size_t k = 0; k < e.properties.size(); ++k) {
        const Property& p = e.properties[k];
        if (!p.list) {
          values[k] = body.read(p.type);
          continue;
        }
        const double n = body.read(p.count_type);
        if (!(n >= 0) || n != std::floor(n) || n > 1e6)
          body.fail(e.name + " " + std::to_string(i) + ": a list of " + number_text(n) + " items (at most 10^6)");
        const bool indices = face && (p.name == "vertex_indices" || p.name == "vertex_index");
        for (size_t j = 0; j < size_t(n); ++j) {
          const double item = body.read(p.type);
          if (indices) {
            if (!(item >= 0) || item >= double(out.positions.size()))
              body.fail("face " + std::to_string(i) + ": vertex index " + number_text(item) + " is out of range (" +
                        std::to_string(out.positions.size()) + " vertices)");
            list.push_back(uint32_t(item));
          }
        }
        if (indices && list.size() < 3) body.fail("face " + std::to_string(i) + " has fewer than 3 vertices");
      }
      if (vertex) {
        // Every value a float holds (a double beyond float's range would not convert).
        auto f = [&](int k) {
          const double d = values[size_t(k)];
          if (!(std::fabs(d) <= double(std::numeric_limits<float>::max())))
            body.fail("vertex " + std::to_string(i) + ": " + e.properties[size_t(k)].name + " = " + number_text(d) + " is not a finite float");
          return float(d);
        };
        out.positions.push_back({f(x), f(y), f(z)});
        if (have_normals) normals.push_back({f(nx), f(ny), f(nz)});
        if (have_uvs) uvs.push_back({f(u), f(v)});
      }
      if (face && !list.empty()) faces.push_back(std::move(list));
      // Integers as Mitsuba reads them: normalized to [0, 1] and from sRGB to linear.
      for (size_t g = 0; g < groups.size(); ++g)
        for (size_t k : groups[g].properties) {
          const double top = integer_max(e.properties[k].type);
          attrs[attrs.size() - groups.size() + g].values.push_back(top > 0.0 ? srgb_to_linear(float(values[k] / top)) : float(values[k]));
        }
    }
  }
}

// Polygons as fans of triangles; normals and texture coordinates per corner, a face's attributes
// on each of its triangles.
void triangulate(const Polygons& p, ObjFile& out) {
  for (const TriangleMesh::Attribute& a : p.face_attributes) out.attributes.push_back({a.name, a.dim, {}});
  for (size_t fi = 0; fi < p.faces.size(); ++fi) {
    const auto& f = p.faces[fi];
    for (size_t k = 1; k + 1 < f.size(); ++k) {
      for (uint32_t i : {f[0], f[k], f[k + 1]}) {
        out.indices.push_back(i);
        if (p.have_normals) out.corner_normals.push_back(p.normals[i]);
        if (p.have_uvs) out.corner_uvs.push_back(p.uvs[i]);
      }
      for (size_t a = 0; a < p.face_attributes.size(); ++a) {
        const TriangleMesh::Attribute& src = p.face_attributes[a];
        const auto first = src.values.begin() + std::ptrdiff_t(fi * size_t(src.dim));
        auto& dst = out.attributes[out.attributes.size() - p.face_attributes.size() + a].values;
        dst.insert(dst.end(), first, first + src.dim);
      }
    }
  }
}

}  // namespace

ObjFile read_ply_file(const std::filesystem::path& file, const std::string& where) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw LoadError(where + "cannot open for reading");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string data = ss.str();
  size_t pos = 0;
  int line = 0, format = -1;
  const std::vector<Element> elements = read_header(data, where, pos, line, format);
  Body body(data, pos, line + 1, format, where);
  ObjFile out;
  Polygons polygons;
  read_elements(body, elements, out, polygons);
  triangulate(polygons, out);
  if (out.indices.empty()) throw LoadError(where + "has no faces");
  out.face_material.assign(out.indices.size() / 3, -1);
  return out;
}

}  // namespace dray
