#pragma once
// Next-event estimation asks the light (emitters/light.h) for a direction toward it from a shading
// point, with the radiance it sends divided by the sampling density. Here: an emissive material's
// radiance at a surface point (an area light's), and whether a pass differentiates a light.
// Positions and directions are in the geometry type G, radiance in the shading type S
// (renderer/integrators/two_types.h); choices (which primitive, which direction on the sphere) are
// made in float.
#include <algorithm>
#include <cmath>

#include "renderer/emitters/light.h"
#include "renderer/integrators/surface.h"
#include "renderer/integrators/two_types.h"

namespace dray {

// The radiance an emissive material sends from point p of BVH primitive `prim` (lifted as pt):
// its emission, a colour, or a texture at the point's UV. That UV moves with p over the surface
// (as any texture's), unless `material_point`: p is then the light's own material point (sampled
// on it, or a path's hit taken there, as next-event estimation takes it), whose UV is fixed.
template <class S, class G>
Vec3<S> emitted(const Scene& scene, const ParamView<S>& P, const Material& m, uint32_t prim, const PrimT<G>& pt,
                const Vec3<G>& p, bool material_point) {
  if (m.emission.texture < 0) return P.vec3(m.emission.slot);
  const TexCoord<S> at = material_point ? surface_texcoord<S>(scene, prim, value(pt), value(p))
                                        : to_shading<S>(surface_coord(scene, prim, pt, p));
  return eval_texture(scene.textures[size_t(m.emission.texture)], P, at);
}

// Whether the pass seeds a parameter of the radiance `light` sends (or of where it is): an area
// light's radiance is its material's emission.
template <class T>
bool light_seeded(const Scene& scene, const ParamView<T>& P, const Light& l) {
  auto texture = [&](int t) { return detail::texture_seeded_any(scene, t, P); };
  if (const AreaEmitter* area = area_emitter(l)) {
    const Material& m = scene.materials[scene.material_of(area->prims.front())];
    return P.active(m.emission.slot, 3) || texture(m.emission.texture);
  }
  const EmitterParams params = emitter_params(l);
  for (const ParamBlock& b : params.where)
    if (P.active(b.first, b.n)) return true;
  for (const ParamBlock& b : params.what)
    if (P.active(b.first, b.n)) return true;
  return texture(params.texture);
}

// Path replay in float geometry (nothing geometric seeded): next-event estimation's sample of
// `light` as the float pass drew it (`drawn`), in S. Where the light's radiance is not
// differentiated, a constant; where it is an area light's untextured emission, that emission in S
// over the sample's density (AreaEmitter::sample's weight, the same float value), without
// drawing the point again. False otherwise (draw it again).
template <class S>
bool replayed_light_sample(const Scene& scene, const ParamView<S>& P, const Light& light, const LightSample<float>& drawn,
                           LightSample<float, S>& out) {
  const bool seeded = light_seeded(scene, P, light);
  if (seeded && !area_emitter(light)) return false;
  out = constant_light_sample<S>(drawn);
  if (!seeded || !drawn.valid) return true;
  const Material& m = scene.materials[scene.material_of(drawn.prim)];
  if (m.emission.texture >= 0) return false;
  out.weight = P.vec3(m.emission.slot) / S(drawn.pdf);
  return true;
}

// With G = float (nothing geometric seeded), the light's position and the point x are constants:
// a radiance that depends on the direction, evaluated in S, sees them as such.
template <class G, class S>
LightSample<G, S> sample_light(const Scene& scene, const ParamView<S>& P, const Light& light, const Vec3<G>& x,
                               float pick, float u1, float u2, float u3) {
  return std::visit([&](const auto& e) { return e.template sample<G, S>(scene, P, x, pick, u1, u2, u3); }, light.model);
}

}  // namespace dray
