#pragma once
// The contour of an sdfgrid's surface seen from a point or a direction, voxel by voxel: where the
// trilinear function f of the voxel's corners is 0 and its gradient is normal to the line of
// sight, G(u) = ∇f(u) · (w u − e) = 0 for `from` = (e, w) (a point: w = 1; a direction toward
// the viewer: w = 0, e that direction). The condition is the same in the voxel's coordinates
// u ∈ [0, 1]³ as in world space (affine maps keep it), so everything here is in voxel units.
//
// Points on the contour are drawn by random planes (Crofton): an axis a uniform among three, a
// plane u_a = c with c uniform in [0, 1], the contour's crossings of it found and one taken
// uniformly. Weighted by the balance heuristic over the three axes, 1 / pdf per unit length is
// count · 3 / ‖τ‖₁ (τ the contour's unit tangent, ∇f × ∇G): bounded, and unbiased for the
// contour's length measure without knowing the contour in advance (a different viewpoint per
// sample costs nothing extra). These are the silhouettes the boundary term needs of an sdfgrid.
//
// The trilinear surface is only C0: its gradient jumps across voxel faces, so most of its
// silhouette lies on the faces (creases, as a mesh's silhouette edges: where the two voxels'
// G differ in sign) rather than inside voxels. A voxel owns its three upper faces (and its lower
// ones on the grid's boundary, where the surface ends: an open edge, always a candidate); the
// same random plane meets their creases, so both kinds are drawn alike.
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace dray {

struct ContourPoint {
  glm::vec3 u{0.f};        // the point, in voxel coordinates
  glm::vec3 tangent{0.f};  // the contour's unit tangent there (voxel coordinates)
  float weight = 0;        // 1 / pdf per unit contour length in voxel units
  bool crease = false;     // a shading edge on a face that is no silhouette (VoxelNeighbourhood::creases)
};

// A voxel's corner values and those of its neighbours across its faces: nb[a][0] below along
// axis a, nb[a][1] above (present where `has`); `owns` the faces whose creases it answers for.
// `creases`: every crease facing the viewer counts, not only silhouettes (analytic normals, which
// jump at every voxel face: each crease is a shading edge of the image).
struct VoxelNeighbourhood {
  float f[8];
  float nb[3][2][8];
  bool has[3][2];
  bool owns[3][2];
  bool creases = false;
};

// The trilinear function of corners f (corner c at (c & 1, c >> 1 & 1, c >> 2 & 1)), its gradient
// and its Hessian (zero on the diagonal) at u.
float trilinear(const float f[8], const glm::vec3& u);
glm::vec3 trilinear_gradient(const float f[8], const glm::vec3& u);
glm::vec3 contour_function_gradient(const float f[8], const glm::vec3& u, const glm::vec4& from);

// G(u) = ∇f(u) · (w u − e).
float contour_function(const float f[8], const glm::vec3& u, const glm::vec4& from);

// False only when G surely keeps one sign over the voxel (an interval bound), so that the voxel
// holds no contour point seen from `from`.
bool may_hold_contour(const float f[8], const glm::vec4& from);
// The same for the voxel's contour and its faces' creases.
bool may_hold_silhouette(const VoxelNeighbourhood& n, const glm::vec4& from);

// The contour's crossings of the plane u[axis] = c within the voxel (at most `max`); their count.
int contour_in_plane(const float f[8], const glm::vec4& from, int axis, float c, glm::vec3* out, int max);

// One silhouette point of the voxel (its contour or a crease of a face it owns) from three
// numbers in [0, 1) (the axis, the plane, the crossing). False when the plane meets none (the
// estimate is then 0) or the tangent is degenerate.
bool sample_silhouette(const VoxelNeighbourhood& n, const glm::vec4& from, float u1, float u2, float u3, ContourPoint& out);

}  // namespace dray
