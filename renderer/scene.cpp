#include "renderer/scene.h"

#include <cmath>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>

namespace dray {

namespace {

// world_from_object = translate * rotate_z * rotate_y * rotate_x * scale.
glm::mat4 world_from_object(const ParamTable& params, const Transform& t) {
  glm::vec3 rot = params.get_vec3(t.rotate);
  glm::mat4 m = glm::translate(glm::mat4(1.f), params.get_vec3(t.translate));
  m = glm::rotate(m, glm::radians(rot.z), glm::vec3(0, 0, 1));
  m = glm::rotate(m, glm::radians(rot.y), glm::vec3(0, 1, 0));
  m = glm::rotate(m, glm::radians(rot.x), glm::vec3(1, 0, 0));
  return glm::scale(m, glm::vec3(params.get(t.scale)));
}

float geom_area(const PrimGeom& g) {
  if (g.kind == PrimGeom::sphere) return 4.f * 3.14159265358979f * g.b.x * g.b.x;
  float a = glm::length(glm::cross(to_glm(g.b), to_glm(g.c)));
  return g.kind == PrimGeom::quad ? a : 0.5f * a;
}

}  // namespace

void Scene::build_geometry() {
  std::vector<PrimRef> refs;
  std::vector<PrimGeom> geoms;
  for (uint32_t si = 0; si < shapes.size(); ++si) {
    const Shape& s = shapes[si];
    switch (s.kind) {
      case Shape::Kind::sphere:
        refs.push_back({si, 0});
        geoms.push_back({Vec3<float>(params.get_vec3(s.a)), Vec3<float>(params.get(s.b), 0.f, 0.f),
                         Vec3<float>(0.f), PrimGeom::sphere});
        break;
      case Shape::Kind::quad:
        refs.push_back({si, 0});
        geoms.push_back({Vec3<float>(params.get_vec3(s.a)), Vec3<float>(params.get_vec3(s.b)),
                         Vec3<float>(params.get_vec3(s.c)), PrimGeom::quad});
        break;
      case Shape::Kind::mesh: {
        Mesh& m = meshes[s.mesh];
        glm::mat4 xf = world_from_object(params, s.transform);
        m.world_positions.resize(m.object_positions.size());
        for (size_t i = 0; i < m.object_positions.size(); ++i)
          m.world_positions[i] = glm::vec3(xf * glm::vec4(m.object_positions[i], 1.f));
        for (uint32_t f = 0; f < m.indices.size() / 3; ++f) {
          glm::vec3 v0 = m.world_positions[m.indices[3 * f]];
          glm::vec3 v1 = m.world_positions[m.indices[3 * f + 1]];
          glm::vec3 v2 = m.world_positions[m.indices[3 * f + 2]];
          refs.push_back({si, f});
          geoms.push_back({Vec3<float>(v0), Vec3<float>(v1 - v0), Vec3<float>(v2 - v0),
                           PrimGeom::triangle});
        }
        break;
      }
    }
  }
  bvh.build(std::move(refs), std::move(geoms));

  // Area lights: the emissive primitives of each emissive shape, with their area CDF.
  for (Light& l : lights) {
    l.prims.clear();
    l.cdf.clear();
    l.area = 0.f;
  }
  for (uint32_t i = 0; i < bvh.prim_refs().size(); ++i) {
    const Shape& s = shapes[bvh.prim_refs()[i].shape];
    if (s.light < 0 || !materials[material_of(i)].emissive) continue;
    Light& l = lights[s.light];
    l.area += geom_area(bvh.prim_geoms()[i]);
    l.prims.push_back(i);
    l.cdf.push_back(l.area);
  }
}

}  // namespace dray
