// Mitsuba's disk as a mesh: the polygon's area is the disk's, its UVs are Mitsuba's (r, φ/2π), it
// faces +z (-z flipped), and as an area light it gives the closed-form irradiance on its axis.
#include <catch2/catch.hpp>

#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/shapes/disk_mesh.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;

TEST_CASE("disk mesh: area, orientation and UVs", "[disk]") {
  for (bool flip : {false, true}) {
    const TriangleMesh m = disk_mesh(kDiskSegments, flip);
    REQUIRE(m.indices.size() == 3 * size_t(kDiskSegments));
    double area = 0;
    for (size_t t = 0; t < m.indices.size(); t += 3) {
      const glm::vec3 a = m.positions[m.indices[t]], b = m.positions[m.indices[t + 1]], c = m.positions[m.indices[t + 2]];
      const glm::vec3 n = glm::cross(b - a, c - a);
      REQUIRE(n.z * (flip ? -1.f : 1.f) > 0.f);  // every triangle faces +z (flipped: -z)
      area += 0.5 * glm::length(glm::dvec3(n));
      // The centre corner is u = 0 at the triangle's mid-angle; rim corners u = 1 at their angle.
      for (int k = 0; k < 3; ++k) {
        const glm::vec3 p = m.positions[m.indices[t + size_t(k)]];
        const glm::vec2 uv = m.corner_uvs[t + size_t(k)];
        if (m.indices[t + size_t(k)] == 0) {
          REQUIRE(uv.x == 0.f);
          continue;
        }
        REQUIRE(uv.x == 1.f);
        double phi = std::atan2(double(p.y), double(p.x)) / (2 * M_PI);
        if (phi < 0 || (phi == 0 && uv.y > 0.5f)) phi += 1;  // the seam: v = 1 on the last triangle
        REQUIRE(uv.y == Approx(phi).margin(1e-6));
      }
    }
    CHECK(area == Approx(M_PI).epsilon(1e-6));
  }
}

TEST_CASE("a disk light's irradiance on its axis: pi L r^2 / (h^2 + r^2)", "[disk]") {
  // A camera looks straight down at a white floor under a downward-facing disk light of radius r
  // at height h (the camera sees through the light's back: one-sided). The floor's radiance at
  // the image centre is rho/pi E, E = pi L r^2 / (h^2 + r^2).
  const double r = 0.5, h = 2.0, L = 3.0, rho = 0.8;
  const json doc = {
      {"camera", {{"origin", {0, 1, 0}}, {"target", {0, 0, 0}}, {"up", {0, 0, -1}}, {"fov_y", 2}, {"width", 4}, {"height", 4}}},
      {"render", {{"spp", 4096}, {"max_depth", 1}}},
      {"materials", {{"floor", {{"type", "diffuse"}, {"reflectance", {rho, rho, rho}}}},
                     {"lamp", {{"type", "diffuse"}, {"reflectance", {0, 0, 0}}, {"emission", {L, L, L}}}}}},
      {"shapes", {{{"name", "floor"}, {"type", "quad"}, {"corner", {-5, 0, 5}}, {"edge_u", {10, 0, 0}}, {"edge_v", {0, 0, -10}},
                   {"material", "floor"}},
                  {{"name", "lamp"}, {"type", "disk"}, {"material", "lamp"},
                   // scale r, the normal +z turned to -y, at height h
                   {"transform", {{"matrix", {r, 0, 0, 0, 0, 0, -r, h, 0, r, 0, 0, 0, 0, 0, 1}}}}}}}};
  Scene scene = load_scene(doc, "disk.json");
  const Image im = render_local(scene, 2);
  double mean = 0;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) mean += im.pixel(x, y)[1] / 16.0;
  const double expected = rho * L * r * r / (h * h + r * r);
  INFO("floor radiance " << mean << ", closed form " << expected);
  CHECK(mean == Approx(expected).epsilon(0.01));
}
