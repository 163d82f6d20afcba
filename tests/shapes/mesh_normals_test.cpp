// Smooth shading normals: computed ones follow the surface they approximate; a smooth-shaded
// sphere mesh renders like the analytic sphere where a flat-shaded one does not; the file's `vn`
// are read; `face_normals` shades flat; the camera's boundary term skips a smooth mesh's creases.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>

#include <glm/geometric.hpp>

#include "ad/dual.h"
#include "tests/temp_dir.h"
#include "renderer/integrators/boundary.h"
#include "renderer/shapes/mesh_normals.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;

namespace {

// A UV sphere of radius 1 about the origin: rings x segments quads as triangles, poles shared.
struct UvSphere {
  std::vector<glm::vec3> positions;
  std::vector<uint32_t> indices;
};
UvSphere uv_sphere(int rings, int segments) {
  UvSphere s;
  s.positions.push_back({0, 1, 0});
  for (int r = 1; r < rings; ++r)
    for (int k = 0; k < segments; ++k) {
      const double th = M_PI * r / rings, ph = 2 * M_PI * k / segments;
      s.positions.push_back(glm::vec3(float(std::sin(th) * std::cos(ph)), float(std::cos(th)), float(std::sin(th) * std::sin(ph))));
    }
  s.positions.push_back({0, -1, 0});
  const uint32_t bottom = uint32_t(s.positions.size() - 1);
  auto ring = [&](int r, int k) { return uint32_t(1 + (r - 1) * segments + (k % segments)); };
  for (int k = 0; k < segments; ++k) {
    s.indices.insert(s.indices.end(), {0, ring(1, k + 1), ring(1, k)});
    s.indices.insert(s.indices.end(), {bottom, ring(rings - 1, k), ring(rings - 1, k + 1)});
    for (int r = 1; r < rings - 1; ++r)
      s.indices.insert(s.indices.end(), {ring(r, k), ring(r, k + 1), ring(r + 1, k + 1), ring(r, k), ring(r + 1, k + 1), ring(r + 1, k)});
  }
  return s;
}

std::string obj_text(const UvSphere& s, bool with_vn) {
  std::ostringstream o;
  for (const auto& p : s.positions) o << "v " << p.x << " " << p.y << " " << p.z << "\n";
  if (with_vn)
    for (const auto& p : s.positions) o << "vn " << p.x << " " << p.y << " " << p.z << "\n";
  for (size_t f = 0; f < s.indices.size(); f += 3) {
    o << "f";
    for (int k = 0; k < 3; ++k) {
      const uint32_t i = s.indices[f + size_t(k)] + 1;
      o << " " << i;
      if (with_vn) o << "//" << i;
    }
    o << "\n";
  }
  return o.str();
}

// A sphere (analytic, or a mesh from `obj`) under a point light, direct light only, 64 x 48.
json sphere_scene(const std::string& obj, bool face_normals) {
  json shape = obj.empty() ? json{{"name", "s"}, {"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1}, {"material", "m"}}
                           : json{{"name", "s"}, {"type", "mesh"}, {"file", obj}, {"material", "m"}, {"face_normals", face_normals}};
  return {{"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}, {"fov_y", 40}, {"width", 64}, {"height", 48}}},
          {"render", {{"spp", 16}, {"max_depth", 1}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"reflectance", {0.8, 0.8, 0.8}}}}}},
          {"shapes", json::array({shape})},
          {"lights", json::array({{{"name", "key"}, {"type", "point"}, {"position", {3, 3, 4}}, {"intensity", {20, 20, 20}}}})}};
}

// Root-mean-square difference of two images over the pixels well inside both outlines (the
// pixel and its 8 neighbours lit in both: the polygonal outline differs from the circle).
double rms_inside(const Image& a, const Image& b) {
  auto inside = [&](int x, int y) {
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (a.pixel(x + dx, y + dy)[0] <= 0.f || b.pixel(x + dx, y + dy)[0] <= 0.f) return false;
    return true;
  };
  double sum = 0;
  long n = 0;
  for (int y = 1; y + 1 < a.height; ++y)
    for (int x = 1; x + 1 < a.width; ++x) {
      const float *p = a.pixel(x, y), *q = b.pixel(x, y);
      if (!inside(x, y)) continue;
      sum += double(p[0] - q[0]) * double(p[0] - q[0]);
      ++n;
    }
  return std::sqrt(sum / double(std::max(n, 1L)));
}

struct TempDir : dray::testing::TempDir {
  TempDir() : dray::testing::TempDir("dray_normals_test_") {}
};

}  // namespace

TEST_CASE("computed vertex normals follow the sphere a mesh approximates", "[normals]") {
  const UvSphere s = uv_sphere(16, 32);
  const std::vector<glm::vec3> n = vertex_normals(s.positions, s.indices);
  REQUIRE(n.size() == s.indices.size());
  double worst = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const glm::vec3 p = glm::normalize(s.positions[s.indices[i]]);
    worst = std::max(worst, double(std::acos(std::min(1.f, glm::dot(n[i], p)))) * 180 / M_PI);
  }
  INFO("largest angle to the true normal: " << worst << " degrees");
  CHECK(worst < 0.5);  // the sphere's symmetric vertices: the angle-weighted mean is radial
}

TEST_CASE("a smooth-shaded sphere mesh renders like the analytic sphere; flat shading does not", "[normals]") {
  TempDir tmp;
  const UvSphere s = uv_sphere(12, 24);
  const std::string plain = tmp.write("s.obj", obj_text(s, false)), with_vn = tmp.write("vn.obj", obj_text(s, true));
  const Image exact = render_local(load_scene(sphere_scene("", false), (tmp.dir / "a.json").string()), 2);
  const Image smooth = render_local(load_scene(sphere_scene(plain, false), (tmp.dir / "a.json").string()), 2);
  const Image from_vn = render_local(load_scene(sphere_scene(with_vn, false), (tmp.dir / "a.json").string()), 2);
  const Image flat = render_local(load_scene(sphere_scene(plain, true), (tmp.dir / "a.json").string()), 2);
  const double e_smooth = rms_inside(smooth, exact), e_vn = rms_inside(from_vn, exact), e_flat = rms_inside(flat, exact);
  INFO("RMS against the analytic sphere: smooth " << e_smooth << ", from vn " << e_vn << ", flat " << e_flat);
  CHECK(e_smooth < 0.4 * e_flat);
  CHECK(e_vn < 0.4 * e_flat);
  // The file's vn are what the mesh shades with (per corner, unit); face_normals drops them.
  const Scene vn_scene = load_scene(sphere_scene(with_vn, false), (tmp.dir / "a.json").string());
  const Mesh& m = vn_scene.meshes.at(0);
  REQUIRE(m.object_normals.size() == s.indices.size());
  for (size_t i = 0; i < s.indices.size(); ++i)
    CHECK(glm::length(m.object_normals[i] - glm::normalize(s.positions[s.indices[i]])) < 1e-5f);
  CHECK(load_scene(sphere_scene(with_vn, true), (tmp.dir / "a.json").string()).meshes.at(0).object_normals.empty());
}

TEST_CASE("a smooth mesh's camera edges are its silhouettes only", "[normals]") {
  TempDir tmp;
  const std::string obj = tmp.write("s.obj", obj_text(uv_sphere(12, 24), false));
  const Scene smooth = load_scene(sphere_scene(obj, false), (tmp.dir / "a.json").string());
  const Scene flat = load_scene(sphere_scene(obj, true), (tmp.dir / "a.json").string());
  const Tile w{0, 0, 64, 48};
  const size_t n_smooth = find_silhouettes(smooth, smooth.shot(), w).elements.size(), n_flat = find_silhouettes(flat, flat.shot(), w).elements.size();
  INFO("camera edges: smooth " << n_smooth << ", flat " << n_flat);
  // Flat: every visible bent edge (hundreds); smooth: the outline, about one edge per segment.
  CHECK(n_smooth <= 2 * 24 + 8);
  CHECK(n_flat > 5 * n_smooth);
}

TEST_CASE("a smooth normal in a derivative type: the placed mesh's value bitwise, its derivative the normals' difference quotient", "[normals]") {
  // The ring formula (mesh_normals.h) in Dual<1>, seeded by one vertex's y: at every vertex of a
  // coarse sphere its value is vertex_normals' bitwise, and its tangent the central difference of
  // vertex_normals with that vertex moved by ±h (1e-3 of the normal's change per unit).
  UvSphere s = uv_sphere(5, 7);
  s.indices.insert(s.indices.end(), {0, 0, 1});  // a degenerate face adds nothing
  const std::vector<glm::vec3> placed = vertex_normals(s.positions, s.indices);
  const VertexRings rings = vertex_rings(s.indices, s.positions.size());
  const uint32_t moved = 9;
  using D = ad::Dual<1>;
  auto position = [&](uint32_t i) {
    Vec3<D> p(Vec3<float>(s.positions[i]));
    if (i == moved) p.y = D(s.positions[i].y, 0);
    return p;
  };
  const double h = 1e-3;
  auto normals_at = [&](double dy) {
    std::vector<glm::vec3> p = s.positions;
    p[moved].y += float(dy);
    return vertex_normals(p, s.indices);
  };
  const std::vector<glm::vec3> plus = normals_at(h), minus = normals_at(-h);
  bool bitwise = true;
  double worst = 0, largest = 0;
  for (size_t c = 0; c < s.indices.size(); ++c) {
    const uint32_t v = s.indices[c];
    const Vec3<D> n = vertex_normal<D>(s.indices, v, rings.of(v), position, Vec3<D>(Vec3<float>(placed[c])));
    bitwise = bitwise && n.x.v == placed[c].x && n.y.v == placed[c].y && n.z.v == placed[c].z;
    for (int k = 0; k < 3; ++k) {
      const double fd = (double(plus[c][k]) - double(minus[c][k])) / (2 * h);
      worst = std::max(worst, std::abs(double(n[k].d[0]) - fd));
      largest = std::max(largest, std::abs(fd));
    }
  }
  INFO("largest tangent " << largest << ", worst error " << worst);
  CHECK(bitwise);
  CHECK(largest > 0.1);  // the moved vertex turns its ring's normals
  CHECK(worst < 5e-4);
}
