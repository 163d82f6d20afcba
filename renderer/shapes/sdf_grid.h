#pragma once
// Mitsuba 3's sdfgrid (its src/shapes/sdfgrid.cpp): signed distances sampled at the corners of a
// grid spanning [0, 1]^3 in object space and interpolated trilinearly; the surface is their zero
// set, its outside where they are positive. Each voxel whose corners change sign (or touch 0) is
// one BVH primitive (renderer/shapes/sdfgrid.h), boxed tightly around its edges' zero crossings
// (Hansson-Söderlund & Akenine-Möller, "Tight Bounding Boxes for Voxels and Bricks in a Signed
// Distance Field Ray Tracer", 2023), and met by solving the cubic that the trilinear function is
// along the ray (Hansson-Söderlund, Evans & Akenine-Möller, "Ray Tracing of Signed Distance
// Function Grids", JCGT 11(3), 2022). Normals: the interpolant's gradient (`analytic`), or the
// paper's blend of the eight nearest voxels' gradients (`smooth`, Mitsuba's default). It has no
// UV and emits nothing; its grid is constant, its transform differentiable (Mitsuba's is not),
// its silhouettes and analytic normals' creases drawn per sample (sdf_contour.h). In a shape
// group, the group's tree holds its voxels in the group's space and each instance a placed copy
// (samples shared) for its world-space hits.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/mat3x3.hpp>
#include <glm/vec3.hpp>

#include "renderer/accel/bvh.h"
#include "renderer/core/vec.h"
#include "renderer/shapes/sdf_contour.h"

namespace dray {

struct SdfGrid {
  glm::ivec3 res{2};          // samples per axis (each >= 2): res - 1 voxels per axis
  // res.x * res.y * res.z, x fastest (a .vol file's order); shared by the grid's placed copies.
  std::shared_ptr<const std::vector<float>> values;
  bool smooth = true;         // Mitsuba's normals = "smooth" (else "analytic")
  // to_world as p = linear x + offset; the inverse of linear; the normals' matrix (its inverse transpose).
  glm::mat3 linear{1.f}, inverse{1.f}, normal{1.f};
  glm::vec3 offset{0.f};
  std::string file;  // the .vol file as the scene named it (dray convert writes it back)
  // The voxels holding surface (x + y (res.x - 1) + z (res.x - 1)(res.y - 1)) and their world
  // boxes (empty in an instance's placed copy, which the group's tree traverses in its space).
  std::vector<uint32_t> voxels;
  std::vector<Aabb> boxes;
  std::vector<Aabb> local_boxes;  // the same voxels' tight boxes in their own [0, 1]^3

  float at(int x, int y, int z) const { return (*values)[(size_t(z) * size_t(res.y) + size_t(y)) * size_t(res.x) + size_t(x)]; }
  glm::ivec3 voxel_position(uint32_t index) const;
};

// Finds the voxels holding surface and places the grid (place_sdf_grid). Throws
// std::runtime_error when no voxel does or the transform is singular.
void prepare_sdf_grid(SdfGrid& g, const glm::mat3& linear, const glm::vec3& offset);
// Sets linear, inverse, normal and offset from to_world's linear part and offset, and the voxels'
// world boxes (when the grid's transform parameters move).
void place_sdf_grid(SdfGrid& g, const glm::mat3& linear, const glm::vec3& offset);

// Voxel v's corners and its neighbours' (renderer/shapes/sdf_contour.h), and a world viewpoint
// (homogeneous: a point, or a direction toward the viewer) in the voxel's coordinates.
// `shading_edges`: the radiance seen, not only visibility, is wanted, so that analytic normals'
// creases count (VoxelNeighbourhood::creases).
VoxelNeighbourhood sdf_neighbourhood(const SdfGrid& g, const glm::ivec3& v, bool shading_edges = false);
glm::vec4 sdf_voxel_view(const SdfGrid& g, const glm::ivec3& v, const glm::vec4& from);

// g under a further affine map (an instance's transform): the same samples (shared), to_world
// composed, no voxels or boxes.
SdfGrid placed_sdf_grid(const SdfGrid& g, const glm::mat3& linear, const glm::vec3& offset);

// The BVH primitive of g's filled voxel k, and back (the grid outlives the tree: Scene::sdf_grids).
PrimGeom sdf_voxel_geom(const SdfGrid& g, size_t k);
const SdfGrid* sdf_voxel_grid(const PrimGeom& geom, uint32_t& voxel);
// geom, a voxel of another placement of its grid, as a voxel of g (its box kept as it was).
PrimGeom sdf_voxel_on(const PrimGeom& geom, const SdfGrid& g);

// The nearest crossing of the zero set in voxel `voxel` by the world ray within (t_min, t_max).
bool intersect_sdf_voxel(const SdfGrid& g, uint32_t voxel, const Ray& ray, float t_min, float t_max, float& t);

namespace sdf_detail {

// The trilinear interpolant at object point q in [0, 1]^3, clamped to the grid at its faces (as
// Mitsuba's texture lookup with clamped wrapping).
template <class T>
T eval(const SdfGrid& g, const Vec3<T>& q) {
  int i[3];
  T f[3];
  for (int a = 0; a < 3; ++a) {
    const int n = g.res[a] - 1;
    T x = q[a] * T(float(n));
    if (!(value(x) > 0.f)) x = T(0.f);
    if (value(x) > float(n)) x = T(float(n));
    i[a] = std::min(int(std::floor(value(x))), n - 1);
    f[a] = x - T(float(i[a]));
  }
  auto lerp = [](const T& a, const T& b, const T& t) { return a + (b - a) * t; };
  T yz[2][2];
  for (int dz = 0; dz < 2; ++dz)
    for (int dy = 0; dy < 2; ++dy)
      yz[dz][dy] = lerp(T(g.at(i[0], i[1] + dy, i[2] + dz)), T(g.at(i[0] + 1, i[1] + dy, i[2] + dz)), f[0]);
  return lerp(lerp(yz[0][0], yz[0][1], f[1]), lerp(yz[1][0], yz[1][1], f[1]), f[2]);
}

// The gradient, at object point q, of voxel v's trilinear function (extended past the voxel):
// differences across the voxel's faces, exact for a function linear along each axis.
template <class T>
Vec3<T> voxel_gradient(const SdfGrid& g, const Vec3<T>& q, const glm::ivec3& v) {
  Vec3<T> out;
  for (int a = 0; a < 3; ++a) {
    const float h = 1.f / float(g.res[a] - 1), lo = float(v[a]) * h;
    Vec3<T> q0 = q, q1 = q;
    q0[a] = T(lo);
    q1[a] = T(lo + h);
    out[a] = (eval(g, q1) - eval(g, q0)) * T(1.f / h);
  }
  return out;
}

template <class T>
Vec3<T> mat_mul(const glm::mat3& m, const Vec3<T>& v) {  // glm: m[column][row]
  Vec3<T> r;
  for (int i = 0; i < 3; ++i) r[i] = T(m[0][i]) * v.x + T(m[1][i]) * v.y + T(m[2][i]) * v.z;
  return r;
}

template <class T>
Vec3<T> to_object(const SdfGrid& g, const Vec3<T>& p) {
  return mat_mul(g.inverse, p - Vec3<T>(Vec3<float>(g.offset)));
}

// Hansson-Söderlund et al.'s smooth normal (object space, not unit): the gradients of the eight
// voxels around the grid corner nearest q, each normalized, blended trilinearly. Voxels before the
// grid's first corner take no part (their axis weight moves to the other side), as in Mitsuba.
template <class T>
Vec3<T> smooth_gradient(const SdfGrid& g, const Vec3<T>& q) {
  glm::ivec3 base(0);
  T w[3];
  for (int a = 0; a < 3; ++a) {
    const T s = q[a] * T(float(g.res[a] - 1));
    base[a] = int(std::round(value(s))) - 1;
    w[a] = s - T(float(base[a] + 1)) + T(0.5f);
  }
  Vec3<T> n[8];
  bool ok[8];
  for (int c = 0; c < 8; ++c) {
    const glm::ivec3 v = base + glm::ivec3(c & 1, (c >> 1) & 1, (c >> 2) & 1);
    ok[c] = v.x >= 0 && v.y >= 0 && v.z >= 0;
    if (!ok[c]) continue;
    const Vec3<T> d = voxel_gradient(g, q, v);
    const T len = length(d);
    n[c] = value(len) > 0.f ? d / len : Vec3<T>(T(0.f));
  }
  for (int a = 0; a < 3; ++a) {
    bool side[2] = {false, false};  // any voxel below / above the corner along axis a
    for (int c = 0; c < 8; ++c) side[(c >> a) & 1] = side[(c >> a) & 1] || ok[c];
    if (!side[0]) w[a] = T(1.f);
    if (!side[1]) w[a] = T(0.f);
  }
  Vec3<T> out(T(0.f));
  for (int c = 0; c < 8; ++c) {
    if (!ok[c]) continue;
    T k = T(1.f);
    for (int a = 0; a < 3; ++a) k = k * (((c >> a) & 1) ? w[a] : T(1.f) - w[a]);
    out += n[c] * k;
  }
  return out;
}

template <class T>
Vec3<T> world_normal(const SdfGrid& g, const Vec3<T>& local_gradient) {
  const Vec3<T> n = mat_mul(g.normal, local_gradient);
  const T len = length(n);
  return value(len) > 0.f ? n / len : Vec3<T>(T(0.f), T(0.f), T(1.f));
}

}  // namespace sdf_detail

// The voxel holding object point q (clamped to the grid).
template <class T>
glm::ivec3 sdf_voxel_at(const SdfGrid& g, const Vec3<T>& q) {
  glm::ivec3 v;
  for (int a = 0; a < 3; ++a) v[a] = std::clamp(int(std::floor(value(q[a]) * float(g.res[a] - 1))), 0, g.res[a] - 2);
  return v;
}

// The geometric normal at world point p: the gradient of the voxel holding p, outward (toward
// positive distances), unit.
template <class T>
Vec3<T> sdf_normal(const SdfGrid& g, const Vec3<T>& p) {
  const Vec3<T> q = sdf_detail::to_object(g, p);
  return sdf_detail::world_normal(g, sdf_detail::voxel_gradient(g, q, sdf_voxel_at(g, q)));
}

// The shading normal at world point p: smooth, or the geometric normal ng.
template <class T>
Vec3<T> sdf_shading_normal(const SdfGrid& g, const Vec3<T>& p, const Vec3<T>& ng) {
  if (!g.smooth) return ng;
  return sdf_detail::world_normal(g, sdf_detail::smooth_gradient(g, sdf_detail::to_object(g, p)));
}

}  // namespace dray
