// An sdfgrid's silhouette points for the boundary terms (renderer/shapes/sdf_contour.h): drawn
// per sample in the voxel an element names, seen from the camera, a light point or a path vertex.
#include "renderer/integrators/boundary.h"

namespace dray {

bool voxel_point_from(const Scene& scene, const SilhouetteElement& e, const glm::vec4& from, float u, Sampler& sampler,
                      BoundarySample& b, Vec3<ad::Dual<1>>& p) {
  const SdfGrid& g = scene.world_grid(e.shape);  // an instance's copy shares its group's samples
  const glm::ivec3 v = g.voxel_position(e.v0);
  const float u2 = sampler.next(), u3 = sampler.next();
  ContourPoint c;
  if (!sample_silhouette(sdf_neighbourhood(g, v), sdf_voxel_view(g, v, from), u, u2, u3, c)) return false;
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

bool sample_voxel(const Scene& scene, const CameraFrame<float>& f, const SilhouetteElement& e, float u,
                  Sampler& sampler, BoundarySample& b, float& jacobian, glm::vec2& x) {
  using D1 = ad::Dual<1>;
  Vec3<D1> p;
  if (!voxel_point_from(scene, e, seen_from_camera(f), u, sampler, b, p)) return false;
  const FilmPoint<D1> q = project(camera_frame(scene.camera(), ParamView<D1>(scene.params)), p);
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
