#pragma once
// Masks (`mask`, and `null` as a mask of opacity 0) as the kernel sees them: their opacity at a
// point, and the transmittance of a shadow ray that crosses them.
#include "renderer/core/ray_offset.h"
#include "renderer/integrators/surface.h"
#include "renderer/scene.h"

namespace dray {

inline bool is_mask(const Material& m) { return m.opacity != kNoSlot || m.opacity_texture >= 0; }

// A mask's opacity at a point with surface coordinates c: its parameter, or its texture's
// luminance (Mitsuba's eval_1 of an RGB bitmap) clamped to [0, 1].
template <class T>
T mask_opacity(const Scene& scene, const ParamView<T>& P, const Material& m, const TexCoord<float>& c) {
  if (m.opacity_texture < 0) return P.scalar(m.opacity);
  const T y = eval_texture_1(scene.textures[size_t(m.opacity_texture)], P, as_fixed<T>(c));
  return value(y) <= 0.f ? T(0.f) : value(y) >= 1.f ? T(1.f) : y;
}

// The UV of the float point p on BVH primitive `prim`, for a textured mask only (else unused).
inline TexCoord<float> mask_uv(const Scene& scene, const Material& m, uint32_t prim, const glm::vec3& p) {
  if (m.opacity_texture < 0) return TexCoord<float>();
  return surface_texcoord<float>(scene, prim, lift_prim(scene, ParamView<float>(scene.params), prim), p);
}

// The fraction of light that passes along a shadow ray: 0 past an opaque surface, else the
// product of (1 - opacity) over the masks crossed (in T: opacity is a parameter). *masked (when
// given) says whether it crossed any mask: if not, the value is a constant.
template <class T>
T transmittance(const Scene& scene, const ParamView<T>& P, Ray ray, bool* masked = nullptr) {
  if (!scene.has_masks) return T(scene.bvh.occluded(ray) ? 0.f : 1.f);
  T passed(1.f);
  for (int crossed = 0; crossed < 64; ++crossed) {
    Hit hit;
    if (!scene.bvh.intersect(ray, hit)) return passed;
    const Material& m = scene.materials[scene.material_of(hit.prim)];
    if (!is_mask(m)) return T(0.f);
    if (masked) *masked = true;
    const glm::vec3 p = ray.o + ray.d * hit.t;
    passed *= T(1.f) - mask_opacity(scene, P, m, mask_uv(scene, m, hit.prim, p));
    const float step = hit.t + detail::ray_epsilon(p, ray.o, hit.t);
    ray.o += ray.d * step;
    ray.t_max -= step;
    if (!(ray.t_max > 0.f)) return passed;
  }
  return T(0.f);
}

}  // namespace dray
