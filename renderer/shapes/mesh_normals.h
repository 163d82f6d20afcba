#pragma once
// Smooth shading normals for meshes that come without them, as Mitsuba 3 computes them for a
// mesh without `face_normals`: each vertex's normal is the average of the normals of the faces
// around it, weighted by the face's angle at the vertex (Thürmer and Wüthrich 1998), so that a
// vertex's normal does not depend on how the faces around it are triangulated. One formula for
// every scalar type: a moving vertex block turns its smooth normals in a derivative pass, with the
// float values of the placed mesh bit for bit.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/core/vec.h"

namespace dray {

// The faces around each vertex, ascending: vertex v's are faces[start[v] .. start[v + 1]).
struct VertexRings {
  std::vector<uint32_t> start, faces;
  std::span<const uint32_t> of(uint32_t v) const { return {faces.data() + start[v], start[v + 1] - start[v]}; }
};
VertexRings vertex_rings(const std::vector<uint32_t>& indices, size_t vertex_count);

// v / s component by component (Vec3's / multiplies by 1 / s: the placed mesh's normals divide).
template <class T>
Vec3<T> divided(const Vec3<T>& v, const T& s) {
  return {v.x / s, v.y / s, v.z / s};
}

// Face f's unit normal from its corners' positions (position(i): vertex i's, in T); false when it
// has no area.
template <class T, class Position>
bool face_unit_normal(const std::vector<uint32_t>& indices, uint32_t f, Position&& position, Vec3<T>& out) {
  const uint32_t* v = &indices[3 * size_t(f)];
  const Vec3<T> p0 = position(v[0]);
  const Vec3<T> n = cross(position(v[1]) - p0, position(v[2]) - p0);
  const T len = length(n);
  if (!(value(len) > 0.f)) return false;
  out = divided(n, len);
  return true;
}

// Vertex v's smooth normal from the faces of its ring, or `fallback` (its corner's face normal)
// when none is usable.
template <class T, class Position>
Vec3<T> vertex_normal(const std::vector<uint32_t>& indices, uint32_t v, std::span<const uint32_t> ring, Position&& position,
                      const Vec3<T>& fallback) {
  Vec3<T> sum(T(0.f), T(0.f), T(0.f));
  for (uint32_t f : ring) {
    Vec3<T> face;
    if (!face_unit_normal<T>(indices, f, position, face)) continue;
    const uint32_t* c = &indices[3 * size_t(f)];
    for (int k = 0; k < 3; ++k) {
      if (c[k] != v) continue;
      const Vec3<T> at = position(c[k]);
      const Vec3<T> a = position(c[(k + 1) % 3]) - at, b = position(c[(k + 2) % 3]) - at;
      const T la = length(a), lb = length(b);
      if (!(value(la) > 0.f && value(lb) > 0.f)) continue;
      const T cosine = dot(a, b) / (la * lb);
      sum += face * acos(value(cosine) < -1.f ? T(-1.f) : value(cosine) > 1.f ? T(1.f) : cosine);
    }
  }
  const T len = length(sum);
  return value(len) > 0.f ? divided(sum, len) : fallback;
}

// A function of vertex indices (a vertex's position in T) read once per vertex: the rings of a
// triangle's three corners share most of their vertices, and a displaced or lifted position costs
// a texture lookup or tape statements each time. Up to N distinct vertices; past that, read again.
template <class T, class Read, int N = 32>
class PositionCache {
 public:
  explicit PositionCache(Read read) : read_(std::move(read)) {}
  Vec3<T> operator()(uint32_t v) {
    for (int k = 0; k < count_; ++k)
      if (ids_[k] == v) return values_[k];
    const Vec3<T> p = read_(v);
    if (count_ < N) {
      ids_[count_] = v;
      values_[count_++] = p;
    }
    return p;
  }

 private:
  Read read_;
  int count_ = 0;
  uint32_t ids_[N];
  Vec3<T> values_[N];
};

// One unit normal per triangle corner (3 per triangle), from the triangles' positions.
// Degenerate faces add nothing; a vertex with no usable face gets the normal of its face.
std::vector<glm::vec3> vertex_normals(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices);
std::vector<glm::vec3> vertex_normals(const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& indices,
                                      const VertexRings& rings);

}  // namespace dray
