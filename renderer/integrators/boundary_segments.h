#pragma once
// The shadow edges' pieces that the camera's shadow samples (boundary_shadow.cpp) and the shadow
// edges seen from path vertices (boundary_indirect.cpp) share.
#include "ad/dual.h"
#include "renderer/integrators/boundary.h"

namespace dray {

// A shadow segment: a light point q, an occluder edge point p seen from it and the receiver y
// behind p (as a dual in the edge parameter; the sample's shadow fields are filled in b).
struct ShadowSegment {
  const Light* light = nullptr;
  glm::vec3 q{0.f}, nq{0.f};
  double weight = 0;  // 1 / pdf of the light, q, the edge and the point on it (per sample of n)
  Vec3<ad::Dual<1>> y;
};
// Shadow sample k of n, drawn with `sampler`: false when there is none.
bool shadow_segment(const Scene& scene, const ShadowEdges& edges, Sampler& sampler, uint64_t k, uint64_t n,
                    BoundarySample& b, ShadowSegment& seg);

// The direct light that the light point q (normal nq for an area light; 0 for a point light; for
// an environment, `q` is the direction ω toward it) sends back along `ray` from the surface it
// hits, per unit of the light's pick: 0 where q is hidden.
glm::vec3 direct_from(const Scene& scene, const Light& light, const glm::vec3& q, const glm::vec3& nq, uint32_t q_prim,
                      const Ray& ray);

}  // namespace dray
