#pragma once
// The kernel on two scalar types (DESIGN.md v3): G for geometry (rays, points, normals, frames,
// directions: what moves only when the camera, a shape, a light's position or direction, a normal
// or bump map, or a refracting IOR is differentiated) and S for shading (BSDF values, emission,
// textures, opacity, the throughput and the radiance). G is S, or float when the pass seeds no
// geometry (geometry_seeded): the appearance mode, where no work in S is spent on geometry. The
// helpers (core/type_crossing.h, and below for texture coordinates) cross from one type to the other;
// with G = S they are the identity, so the one-type kernel is the same statements as before.
#include <type_traits>

#include "renderer/bsdfs/bsdf.h"
#include "renderer/core/param_table.h"
#include "renderer/core/type_crossing.h"
#include "renderer/core/vec.h"
#include "renderer/integrators/surface.h"
#include "renderer/scene.h"
#include "renderer/textures/texture.h"

namespace dray {

// Texture coordinates where shading needs them.
template <class S, class G>
TexCoord<S> to_shading(const TexCoord<G>& c) {
  if constexpr (std::is_same_v<S, G>) return c;
  else return as_fixed<S>(c);  // float coordinates do not move
}

namespace detail {

// Whether a Dirac lobe of b bends its direction by a seeded IOR (a dielectric's refraction,
// alone or in a blend).
template <class T>
bool ior_seeded(const Bsdf& b, const ParamView<T>& P) {
  if (const auto* d = std::get_if<DielectricBsdf>(&b)) return P.active(d->int_ior, 1) || P.active(d->ext_ior, 1);
  if (const auto* m = std::get_if<BlendBsdf>(&b)) return ior_seeded(*m->a.p, P) || ior_seeded(*m->b.p, P);
  return false;
}

inline bool texture_seeded_any(const Scene& scene, int t, const auto& P) {
  if (t < 0) return false;
  return texture_seeded(scene.textures[size_t(t)], P);
}

}  // namespace detail

// Whether the pass seeds anything that moves geometry: the shot's camera, a shape (its points, radius,
// transform, vertices or shading normals), a light's position, target or direction, a normal or
// bump map's texture, or the IOR of a refracting Dirac lobe. O(objects), not O(parameters).
template <class T>
bool geometry_seeded(const Scene& scene, const Shot& shot, const ParamView<T>& P) {
  if (!P.seeds) return false;
  if (P.lifted_blocks && !P.lifted_blocks->empty()) return true;
  if (camera_active(scene.camera(shot), P)) return true;
  for (const Shape& s : scene.shapes)
    if (shape_seeded(scene, P, s)) return true;
  for (const Light& l : scene.lights)
    for (const ParamBlock& b : emitter_params(l).where)
      if (P.active(b.first, b.n)) return true;
  for (const Material& m : scene.materials)
    if (detail::texture_seeded_any(scene, m.normal_map, P) || detail::texture_seeded_any(scene, m.bump_map, P)) return true;
  for (const Bsdf& b : scene.bsdfs)
    if (detail::ior_seeded(b, P)) return true;
  return false;
}

}  // namespace dray
