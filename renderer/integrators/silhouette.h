#pragma once
// The edges across which the image is discontinuous as seen from the camera, for boundary
// sampling (Li et al. 2018, "Differentiable Monte Carlo Ray Tracing through Edge Sampling"):
// for a flat-shaded mesh every edge whose faces meet at an angle (even an edge between two
// visible faces separates two radiances), for a smooth-shaded one its silhouettes from the eye;
// open mesh edges, the four edges of a quad, the tangent circle of a sphere, and the voxels of an
// sdfgrid whose contour or face creases may be silhouettes from the eye (with analytic normals,
// whose face creases may face it: shading edges). Each is clipped to the film window and weighted
// by its length there, in pixels. Found in float, once per pass; whether an edge is hidden behind
// another surface is left to the samples (both sides then see the same radiance).
#include <cstdint>
#include <functional>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/mat3x3.hpp>
#include <glm/vec4.hpp>

#include "renderer/sensors/camera.h"
#include "renderer/core/tile.h"
#include "renderer/scene.h"

namespace dray {

struct SilhouetteElement {
  // voxel: an sdfgrid's voxel that may hold silhouette points (renderer/shapes/sdf_contour.h),
  // drawn per sample from whatever point it is seen from.
  enum class Kind : uint8_t { segment, circle, voxel };
  Kind kind = Kind::segment;
  uint32_t shape = 0;
  // segment: the endpoints, as mesh vertex indices or quad corners (0 a, 1 a+b, 2 a+b+c, 3 a+c);
  // voxel: v0 its index in the grid.
  uint32_t v0 = 0, v1 = 0;
  // segment: the part in front of the camera, as parameters s of v0 + s (v1 - v0), and of that
  // part the piece on the film window, as parameters t of its projection (linear on the film).
  float s0 = 0, s1 = 1, t0 = 0, t1 = 1;
  float weight = 0;  // selection weight: the length on the film window in pixels (circle: approximate);
                     // for occluder edges, the length in space
  uint32_t mesh_edge = UINT32_MAX;  // mesh segments: index into Mesh::edges
};

struct Silhouettes {
  std::vector<SilhouetteElement> elements;
  std::vector<double> cdf;  // running sum of the weights
  double total() const { return cdf.empty() ? 0.0 : cdf.back(); }
  // Recomputes cdf from the elements' weights.
  void sum_weights() {
    cdf.clear();
    double sum = 0;
    for (const auto& e : elements) cdf.push_back(sum += double(e.weight));
  }
};

// The candidate edges of the scene for the shot's camera at its current parameters, over `window`.
Silhouettes find_silhouettes(const Scene& scene, const Shot& shot, const Tile& window);

// The edges that can cast a shadow edge, seen from `from` (a point light, or a directional one's
// direction: homogeneous, as for silhouette_from): mesh edges whose faces
// face opposite ways from it, open mesh edges, quad edges and spheres; without `from` (area
// lights, whose points vary) every mesh edge whose faces meet at an angle, to be tested per
// sample with silhouette_from. Weighted by length in space (a sphere: its circumference). Shape
// `skip` (a lamp that cannot shadow itself) is left out. With `ball` (an area light's bounding
// sphere: centre xyz, radius w) a mesh edge whose two faces both face toward, or both away
// from, every point of the ball is left out: no light point sees it as a silhouette.
Silhouettes occluder_edges(const Scene& scene, const glm::vec4* from, uint32_t skip = UINT32_MAX,
                           const glm::vec4* ball = nullptr);
// Whether some point of the ball (centre xyz, radius w) sees mesh edge e as a silhouette (true
// for anything but a mesh edge between two faces).
bool silhouette_from_ball(const Scene& scene, const SilhouetteElement& e, const glm::vec4& ball);

// Where edges are seen from, in homogeneous coordinates: a point (w = 1), or for light from
// infinitely far away (an environment) the direction toward it (w = 0).
inline glm::vec4 seen_from_point(const glm::vec3& p) { return glm::vec4(p, 1.f); }
inline glm::vec4 seen_from_direction(const glm::vec3& d) { return glm::vec4(d, 0.f); }

// An sdfgrid voxel element's silhouette voxels seen from `from` (nullptr: from anywhere), weighted by
// `weight` of the voxel (its centre and its edge vectors in world space): voxel elements of
// shape si appended to out. `shading_edges`: an analytic-normal grid's voxels with creases facing
// `from` too (renderer/shapes/sdf_contour.h).
void sdf_elements(const Scene& scene, uint32_t si, const glm::vec4* from, bool shading_edges, Silhouettes& out,
                  const std::function<float(const glm::vec3&, const glm::mat3&)>& weight);

// A circle element's circle seen from `from` (its shape's tangent circle: shapes/sphere.h), false
// when there is none (from inside); and the material point (direction from the centre) of a
// point p on it.
bool element_circle(const Scene& scene, const SilhouetteElement& e, const glm::vec4& from, Circle& out);
glm::vec3 circle_direction(const Scene& scene, const SilhouetteElement& e, const glm::vec3& p);

// Whether a mesh segment is a silhouette seen from `from` (true for open edges and non-meshes).
bool silhouette_from(const Scene& scene, const SilhouetteElement& e, const glm::vec4& from);

// The directions from infinitely far from which element e is a silhouette form a lune between
// the great circles normal to its two faces' normals n0 and n1: returns its half-width α, the
// angle between the normals (the lune's solid angle is 4α), with the normals. Open mesh edges,
// quad edges and spheres are silhouettes from every direction: π.
float silhouette_lune(const Scene& scene, const SilhouetteElement& e, glm::vec3& n0, glm::vec3& n1);

// The world-space endpoints of a segment element (float, current parameters).
void segment_endpoints(const Scene& scene, const SilhouetteElement& e, glm::vec3& p0, glm::vec3& p1);

}  // namespace dray
