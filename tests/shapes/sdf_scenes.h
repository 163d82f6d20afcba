#pragma once
// The sdfgrid tests' grids and scenes: a sphere's distances sampled on a grid, written as a .vol
// file, and a lit scene of that sphere (or the analytic one) on a floor.
#include <memory>
#include <string>
#include <vector>

#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "../temp_dir.h"
#include "renderer/io/vol_file.h"
#include "renderer/shapes/sdf_grid.h"

namespace dray::testing {

// Samples of f over the grid's corners (x fastest).
template <class F>
SdfGrid sampled_grid(glm::ivec3 res, F f) {
  SdfGrid g;
  g.res = res;
  std::vector<float> values;
  for (int z = 0; z < res.z; ++z)
    for (int y = 0; y < res.y; ++y)
      for (int x = 0; x < res.x; ++x) values.push_back(f(glm::vec3(x, y, z) / glm::vec3(res - 1)));
  g.values = std::make_shared<const std::vector<float>>(std::move(values));
  return g;
}

// Distances to the sphere of centre (0.5, 0.5, 0.5) and radius 0.35 in the unit cube.
inline float sphere_distance(const glm::vec3& q) { return glm::length(q - glm::vec3(0.5f)) - 0.35f; }

// A .vol file of the sphere's distances, res³.
inline std::string sphere_vol(const TempDir& t, int res, const std::string& name = "sphere.vol") {
  const SdfGrid g = sampled_grid(glm::ivec3(res), sphere_distance);
  const std::string path = (t.dir / name).string();
  write_vol_file(path, g.res, 1, g.values->data());
  return path;
}

// A diffuse sphere of radius 0.7 at (0, 0.7, 0) on a floor under a point light and a sky: the
// sdfgrid's (its unit cube scaled by 2 about the sphere's centre) or the analytic one.
inline nlohmann::json lit_scene(bool sdf, const std::string& normals = "smooth") {
  using nlohmann::json;
  json shape = sdf ? json{{"name", "ball"}, {"type", "sdfgrid"}, {"file", "sphere.vol"}, {"normals", normals}, {"material", "clay"},
                          {"transform", {{"scale", 2}, {"translate", {-1, -0.3, -1}}}}}
                   : json{{"name", "ball"}, {"type", "sphere"}, {"center", {0, 0.7, 0}}, {"radius", 0.7}, {"material", "clay"}};
  return {{"camera", {{"origin", {0, 1.5, 4}}, {"target", {0, 0.6, 0}}, {"up", {0, 1, 0}}, {"fov_y", 35}, {"width", 64}, {"height", 48}}},
          {"render", {{"spp", 16}, {"max_depth", 3}}},
          {"materials", {{"clay", {{"type", "diffuse"}, {"albedo", {0.7, 0.5, 0.3}}}}, {"floor", {{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}}}}},
          {"shapes", json::array({shape, {{"name", "floor"}, {"type", "quad"}, {"corner", {-5, 0, 5}}, {"edge_u", {10, 0, 0}},
                                          {"edge_v", {0, 0, -10}}, {"material", "floor"}}})},
          {"lights", json::array({{{"name", "sun"}, {"type", "point"}, {"position", {2, 4, 3}}, {"intensity", {20, 20, 20}}},
                                  {{"name", "sky"}, {"type", "environment"}, {"radiance", {0.2, 0.2, 0.25}}}})}};
}

}  // namespace dray::testing
