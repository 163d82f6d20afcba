#pragma once
// dray's `displacement` of a mesh (no Mitsuba plugin: Mitsuba's caustics tutorial does it in
// Python): vertex v sits at its loaded position moved along its loaded unit normal by a texture's
// scalar (Mitsuba's eval_1: a bitmap's luminance) at the vertex's UV, times `scale`. The texture's
// values are then the mesh's shape: a heightmap to optimize, at any resolution, over a fixed grid.
// One formula for every scalar type, so that a derivative pass moves the vertices with the
// texels, at the float pass's values bit for bit.
#include <cstdint>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "renderer/textures/texture.h"

namespace dray {

struct MeshDisplacement {
  int texture = -1;  // index into Scene::textures: a bitmap, a checkerboard or a rawconstant
  float scale = 1.f;
  // Per vertex, in object space: the loaded position, the direction it moves along (the loaded
  // smooth normal, unit), its texture coordinates.
  std::vector<glm::vec3> base, directions;
  std::vector<glm::vec2> uvs;
};

// The key of a displaced mesh's positions lifted once per reverse pass (ParamView::lifted; a slot
// no parameter has, one per mesh).
inline Slot displaced_positions_key(uint32_t mesh) { return kNoSlot - 1 - mesh; }
// The key of its smooth vertex normals lifted likewise.
inline Slot displaced_normals_key(uint32_t mesh) { return kNoSlot - (1u << 24) - mesh; }

// Vertex v's object-space position under the textures' values in P.
template <class T>
Vec3<T> displaced_position(const MeshDisplacement& d, const Texture* textures, const ParamView<T>& P, uint32_t v) {
  const T height = eval_texture_1(textures[d.texture], P, d.uvs[v]);
  return Vec3<T>(Vec3<float>(d.base[v])) + Vec3<T>(Vec3<float>(d.directions[v])) * (height * T(d.scale));
}

}  // namespace dray
