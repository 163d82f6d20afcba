// An sdfgrid's silhouette points for the boundary terms (renderer/shapes/sdf_contour.h): drawn
// per sample in the voxel an element names, seen from the camera, a light point or a path vertex.
#include "renderer/integrators/boundary.h"

namespace dray {

bool voxel_point_from(const Scene& scene, const SilhouetteElement& e, const glm::vec4& from, bool shading_edges,
                      float u, Sampler& sampler, BoundarySample& b, Vec3<ad::Dual<1>>& p) {
  const SdfGrid& g = scene.world_grid(e.shape);  // an instance's copy shares its group's samples
  const glm::ivec3 v = g.voxel_position(e.v0);
  // u picks the axis and the plane across it (so that a density binned in u, as a path vertex's
  // choice of points, follows the planes); the sampler the crossing.
  const float axis = std::min(std::floor(u * 3.f), 2.f), u3 = sampler.next();
  ContourPoint c;
  if (!sample_silhouette(sdf_neighbourhood(g, v, shading_edges), sdf_voxel_view(g, v, from), u, u * 3.f - axis, u3, c))
    return false;
  b.crease = c.crease;
  const glm::vec3 h = 1.f / glm::vec3(g.res - 1);
  const glm::vec3 q = (glm::vec3(v) + c.u) * h;  // the grid point: the material point the motion follows
  const glm::vec3 x = g.linear * q + g.offset;
  // Per unit of the pick: the world tangent per unit voxel length over the pdf per unit voxel
  // length, so that |dp/du| du is the length measure (as a segment's p1 − p0).
  const glm::vec3 dx = g.linear * (c.tangent * h) * c.weight;
  b.omega = q;
  for (int a = 0; a < 3; ++a) {
    p[a] = ad::Dual<1>(x[a]);
    p[a].d[0] = dx[a];
  }
  return true;
}

bool crease_seen(const Scene& scene, const BoundarySample& b, const Ray& minus, const Ray& plus) {
  const SdfGrid& g = scene.world_grid(b.element->shape);
  const glm::vec3 p = g.linear * b.omega + g.offset;
  const float reach = glm::length(g.linear * (1.f / glm::vec3(g.res - 1)));
  for (const Ray& ray : {minus, plus}) {
    Hit hit;
    if (!scene.bvh.intersect(ray, hit) || scene.bvh.prim_ref(hit.prim).shape != b.element->shape) return false;
    if (glm::length(ray.o + ray.d * hit.t - p) > reach) return false;
  }
  return true;
}

bool sample_voxel(const Scene& scene, const Shot& shot, const CameraFrame<float>& f, const SilhouetteElement& e, float u,
                  Sampler& sampler, BoundarySample& b, float& jacobian, glm::vec2& x) {
  using D1 = ad::Dual<1>;
  Vec3<D1> p;
  if (!voxel_point_from(scene, e, seen_from_camera(f), true, u, sampler, b, p)) return false;
  const FilmPoint<D1> q = project(camera_frame(scene.camera(shot), ParamView<D1>(scene.params)), p);
  if (!(q.depth.v > 0.f)) return false;
  const glm::vec2 dx(q.x.d[0], q.y.d[0]);
  const float speed = glm::length(dx);
  if (!(speed > 0.f)) return false;
  x = {q.x.v, q.y.v};
  b.normal = glm::vec2(-dx.y, dx.x) / speed;
  jacobian = speed;  // 1 / pdf per unit film length: the film's speed per unit of the pick
  return true;
}

}  // namespace dray
