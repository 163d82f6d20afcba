#include "renderer/io/obj_file.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <glm/common.hpp>
#include <glm/geometric.hpp>
#include <glm/vector_relational.hpp>
#include <tiny_obj_loader.h>

#include "renderer/core/atomic_file.h"
#include "renderer/core/load_error.h"

namespace dray {

namespace fs = std::filesystem;

namespace {

// Finds the first OBJ face that names a vertex outside the vertices defined before it (an OBJ
// index is 1-based, or negative counting back from the last vertex), to say where: "line 12:
// vertex index 9 is out of range (3 vertices)". Returns an empty string when every index is
// good. Only called once a bad index is suspected.
std::string locate_bad_face(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  long vertices = 0;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream ss(line);
    std::string tag;
    ss >> tag;
    if (tag == "v") ++vertices;
    if (tag != "f") continue;
    for (std::string tok; ss >> tok;) {
      long idx = std::strtol(tok.c_str(), nullptr, 10);
      if (idx == 0) return "line " + std::to_string(number) + ": vertex index 0 is invalid (OBJ indices start at 1)";
      if (idx > vertices || idx < -vertices)
        return "line " + std::to_string(number) + ": vertex index " + std::to_string(idx) +
               " is out of range (" + std::to_string(vertices) + " vertices defined before it)";
    }
  }
  return {};
}

// tinyobjloader reads a vertex coordinate it cannot parse ("nan", "abc") as 0 without a word,
// so vertex lines are checked here first: every "v" line needs three finite numbers. Returns
// the first problem, with its line number, or an empty string.
std::string check_obj_vertices(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.size() < 2 || line[0] != 'v' || (line[1] != ' ' && line[1] != '\t')) continue;
    std::istringstream ss(line.substr(2));
    std::string tok;
    for (int k = 0; k < 3; ++k) {
      if (!(ss >> tok))
        return "line " + std::to_string(number) + ": a vertex needs 3 coordinates, got " + std::to_string(k);
      char* end = nullptr;
      const float v = std::strtof(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0' || !std::isfinite(v))
        return "line " + std::to_string(number) + ": vertex coordinate \"" + tok + "\" is not a finite number";
    }
  }
  return {};
}

}  // namespace

std::string missing_mtllib(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream ss(line);
    std::string tag, name;
    if (!(ss >> tag) || tag != "mtllib") continue;
    while (ss >> name) {
      std::error_code ec;
      if (!fs::exists(file.parent_path() / name, ec))
        return "line " + std::to_string(number) + ": material library \"" + name + "\" not found (looked in " +
               (file.parent_path().empty() ? std::string(".") : file.parent_path().string()) + ")";
    }
  }
  return {};
}

ObjFile read_obj_file(const fs::path& file, const std::string& where, bool flip_tex_coords) {
  std::error_code ec;
  if (fs::file_size(file, ec) == 0) throw LoadError(where + "is empty");
  if (std::string problem = check_obj_vertices(file); !problem.empty()) throw LoadError(where + problem);
  tinyobj::ObjReaderConfig cfg;
  cfg.triangulate = true;
  cfg.vertex_color = false;
  cfg.mtl_search_path = file.parent_path().string();
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(file.string(), cfg)) {
    if (std::string problem = locate_bad_face(file); !problem.empty()) throw LoadError(where + problem);
    std::string err = reader.Error();
    while (!err.empty() && err.back() == '\n') err.pop_back();
    throw LoadError(where + (err.empty() ? "cannot parse OBJ" : err));
  }
  ObjFile obj;
  const auto& attrib = reader.GetAttrib();
  const size_t nv = attrib.vertices.size() / 3;
  obj.positions.resize(nv);
  for (size_t i = 0; i < nv; ++i) {
    glm::vec3 v(attrib.vertices[3 * i], attrib.vertices[3 * i + 1], attrib.vertices[3 * i + 2]);
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
      throw LoadError(where + "vertex " + std::to_string(i + 1) + " is not finite");
    obj.positions[i] = v;
  }
  for (const auto& m : reader.GetMaterials()) {
    glm::vec3 kd(m.diffuse[0], m.diffuse[1], m.diffuse[2]);
    glm::vec3 ke(m.emission[0], m.emission[1], m.emission[2]);
    glm::vec3 ka(m.ambient[0], m.ambient[1], m.ambient[2]);
    glm::vec3 e = glm::any(glm::greaterThan(ke, glm::vec3(0.f))) ? ke : ka;
    ObjMaterial om{m.name, glm::clamp(kd, 0.f, 1.f), std::nullopt};
    if (glm::any(glm::greaterThan(e, glm::vec3(0.f)))) om.emission = e;
    obj.materials.push_back(om);
  }
  const size_t nn = attrib.normals.size() / 3, nt = attrib.texcoords.size() / 2;
  bool all_normals = nn > 0, all_uvs = nt > 0;
  for (const auto& sh : reader.GetShapes()) {
    const auto& idx = sh.mesh.indices;
    for (size_t f = 0; f < idx.size() / 3; ++f) {
      for (int k = 0; k < 3; ++k) {
        const int ni = idx[3 * f + k].normal_index;
        if (ni < 0 || size_t(ni) >= nn) all_normals = false;
        if (all_normals) {
          const glm::vec3 n(attrib.normals[3 * size_t(ni)], attrib.normals[3 * size_t(ni) + 1], attrib.normals[3 * size_t(ni) + 2]);
          const float len = glm::length(n);
          if (!(len > 0.f) || !std::isfinite(len)) all_normals = false;
          else obj.corner_normals.push_back(n / len);
        }
        const int ti = idx[3 * f + k].texcoord_index;
        if (ti < 0 || size_t(ti) >= nt) all_uvs = false;
        if (all_uvs) {
          const float v = attrib.texcoords[2 * size_t(ti) + 1];
          const glm::vec2 uv(attrib.texcoords[2 * size_t(ti)], flip_tex_coords ? 1.f - v : v);
          if (!std::isfinite(uv.x) || !std::isfinite(uv.y)) all_uvs = false;
          else obj.corner_uvs.push_back(uv);
        }
        int vi = idx[3 * f + k].vertex_index;
        if (vi < 0 || size_t(vi) >= nv) {
          std::string problem = locate_bad_face(file);
          throw LoadError(where + (problem.empty() ? "a face has a vertex index out of range" : problem));
        }
        obj.indices.push_back(uint32_t(vi));
      }
      obj.face_material.push_back(sh.mesh.material_ids[f]);
    }
  }
  if (!all_normals) obj.corner_normals.clear();  // partial or degenerate `vn`: computed instead
  if (!all_uvs) obj.corner_uvs.clear();          // partial `vt`: barycentric coordinates instead
  if (obj.indices.empty()) {
    size_t points = 0, lines = 0;
    for (const auto& sh : reader.GetShapes()) points += sh.points.indices.size(), lines += sh.lines.indices.size();
    if (points + lines > 0)
      throw LoadError(where + "has no faces, only " + std::to_string(points) + " point and " + std::to_string(lines) +
                      " line vertices (a mesh needs triangles or polygons)");
    throw LoadError(where + "has no faces (a mesh needs \"f\" lines with 3 or more vertices)");
  }
  return obj;
}

void write_obj_file(const fs::path& file, const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices,
                    const std::vector<glm::vec2>& corner_uvs) {
  std::string text = "# written by dray\n";
  char line[160];
  for (const glm::vec3& p : positions) {
    std::snprintf(line, sizeof line, "v %.9g %.9g %.9g\n", double(p.x), double(p.y), double(p.z));
    text += line;
  }
  for (const glm::vec2& t : corner_uvs) {
    std::snprintf(line, sizeof line, "vt %.9g %.9g\n", double(t.x), double(1.f - t.y));
    text += line;
  }
  for (size_t f = 0; f < indices.size() / 3; ++f) {
    text += "f";
    for (size_t k = 0; k < 3; ++k) {
      text += ' ';  // appended piecewise: GCC 12 warns falsely of " " + to_string (-Wrestrict, its bug 105329)
      text += std::to_string(indices[3 * f + k] + 1);
      if (!corner_uvs.empty()) {
        text += '/';
        text += std::to_string(3 * f + k + 1);
      }
    }
    text += "\n";
  }
  write_text_file(file, text);
}

}  // namespace dray
