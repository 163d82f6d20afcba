#pragma once
// The benchmarks' rays: one primary ray per pixel and one cosine-distributed bounce from each
// hit, traced in float as the kernel's search does.
#include <vector>

#include <glm/geometric.hpp>

#include "renderer/samplers/sampler.h"
#include "renderer/scene.h"
#include "renderer/sensors/camera.h"

namespace dray {

// Closest-hit rays, and shadow rays from each primary hit to the scene's first point light (the
// bunny's "sun"), stopping just short of it.
inline std::vector<Ray> make_rays(const Scene& scene, std::vector<Ray>& shadow) {
  ParamView<float> P(scene.params);
  std::vector<Ray> rays;
  Slot sun = kNoSlot;  // the first point light's position
  for (const Light& l : scene.lights)
    if (sun == kNoSlot && placement(l) == EmitterPlacement::point) sun = light_place(l);
  const int w = scene.own_camera().width, h = scene.own_camera().height;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      Sampler s(1, uint64_t(y) * w + x, 0);
      Ray r = camera_ray(scene.own_camera(), P, x + s.next(), y + s.next()).detached();
      rays.push_back(r);
      Hit hit;
      if (!scene.bvh.intersect(r, hit)) continue;
      glm::vec3 p = r.o + hit.t * r.d;
      glm::vec3 n = glm::normalize(glm::cross(to_glm(scene.bvh.prim_geom(hit.prim).b),
                                              to_glm(scene.bvh.prim_geom(hit.prim).c)));
      if (glm::dot(n, r.d) > 0) n = -n;
      if (sun != kNoSlot) {
        const glm::vec3 q = p + n * 1e-4f, to = scene.params.get_vec3(sun) - q;
        const float dist = glm::length(to);
        shadow.push_back(Ray{q, to / dist, dist * (1.f - 1e-4f)});
      }
      // A cosine-weighted direction around n (rejection in the unit ball, then normalised).
      glm::vec3 d;
      do d = glm::vec3(s.next(), s.next(), s.next()) * 2.f - 1.f; while (glm::dot(d, d) > 1.f);
      rays.push_back(Ray{p + n * 1e-4f, glm::normalize(n + glm::normalize(d))});
    }
  return rays;
}

}  // namespace dray
