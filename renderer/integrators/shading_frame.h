#pragma once
// The frame a BSDF works in (Mitsuba 3's sh_frame): n the shading normal, s the surface's dp/du
// made orthogonal to n (anisotropic roughness and normal maps follow the texture's u), t = n × s;
// and the frame a material's `normalmap` or `bumpmap` turns it to, with the factor Mitsuba gives
// a light direction there (0 across the two frames' horizons, else its shadow terminator).
#include <algorithm>

#include "renderer/integrators/surface.h"
#include "renderer/textures/texture.h"

namespace dray {

// dp/du and dp/dv at p on BVH primitive `prim`, lifted as pt, of geometric normal ng, as its shape
// plugin computes them (Mitsuba 3's: a sphere's of its UV, a rectangle's edges, a mesh face's from
// its texture coordinates, else the Duff basis of ng).
template <class T>
void surface_derivatives(const Scene& scene, uint32_t prim, const PrimT<T>& pt, const Vec3<T>& p, const Vec3<T>& ng,
                         Vec3<T>& dp_du, Vec3<T>& dp_dv) {
  const PrimRef ref = scene.bvh.prim_ref(prim);
  std::visit([&](const auto& plugin) { plugin.derivatives(scene, ref, pt, p, ng, dp_du, dp_dv); }, scene.shapes[ref.shape].model);
}

// The frame of unit normal n whose s is dp_du made orthogonal to n (Gram–Schmidt); the Duff basis
// of n where dp_du has no part off n.
template <class T>
Frame<T> tangent_frame(const Vec3<T>& n, const Vec3<T>& dp_du) {
  Frame<T> f(n);
  const Vec3<T> s = dp_du - n * dot(n, dp_du);
  const T len = length(s);
  if (value(len) > 0.f) {
    f.s = s / len;
    f.t = cross(n, f.s);
  }
  return f;
}

// tan² θ of a local direction.
template <class T>
T tan_theta2(const Vec3<T>& v) {
  const T z2 = v.z * v.z, sin2 = T(1.f) - z2;
  return (value(sin2) > 0.f ? sin2 : T(0.f)) / z2;
}

// The shading frame at a surface point: the surface's, and the BSDF's.
template <class T>
struct ShadingFrame {
  Frame<T> base;       // the surface's (n: the shading normal, facing the side the BSDF sees)
  Frame<T> frame;      // the BSDF's: base, or base turned by a normal or bump map
  Vec3<T> n_rel{T(0.f), T(0.f), T(1.f)};  // frame's normal in base's coordinates
  bool perturbed = false, shadowing = false;

  explicit ShadingFrame(const Frame<T>& f) : base(f), frame(f) {}

  // Where a perturbed frame takes light direction d (world): 0 when d lies on different sides of
  // the two frames; else, with `shadowing`, Estevez et al.'s shadow terminator of the tilt
  // (Ray Tracing Gems 2019, as Mitsuba's normalmap_helpers.h applies it); else 1.
  T light_factor(const Vec3<T>& d) const {
    if (!perturbed) return T(1.f);
    const Vec3<T> wb = base.to_local(d);
    if (!(value(wb.z) * value(dot(frame.n, d)) > 0.f)) return T(0.f);
    if (!shadowing) return T(1.f);
    T alpha2 = T(0.125f) * tan_theta2(n_rel);
    if (!(value(alpha2) < 1.f)) alpha2 = T(1.f);
    return T(2.f) / (T(1.f) + sqrt(T(1.f) + alpha2 * tan_theta2(wb)));
  }
  // The side of the surface's frame d lies on (its local z, in float): for the geometric test.
  float base_z(const glm::vec3& d) const { return glm::dot(glm::vec3(value(base.n)), d); }

  // Turns the BSDF's frame to the local normal nl (relative to base) with local tangent sl.
  void turn(const Vec3<T>& nl, const Vec3<T>& sl) {
    n_rel = nl;
    const Vec3<T> tl = cross(nl, sl);
    frame.s = base.to_world(sl);
    frame.t = base.to_world(tl);
    frame.n = base.to_world(nl);
    perturbed = true;
  }
};

// Mitsuba's flip_invalid_normals: a tilted normal turned about the base normal to face wo (local).
template <class T>
Vec3<T> face_viewer(Vec3<T> n, const Vec3<T>& wo) {
  if (!(value(wo.z) * value(dot(wo, n)) > 0.f)) n = Vec3<T>(-n.x, -n.y, n.z);
  return n;
}

// Mitsuba's `normalmap` (src/bsdfs/normalmap.cpp): the texture's RGB, 2 c - 1, is the normal in
// the base frame; s follows the base's s.
template <class T>
void apply_normal_map(ShadingFrame<T>& shading, const Vec3<T>& rgb, const Vec3<T>& wo, bool flip_invalid) {
  Vec3<T> n = rgb * T(2.f) - Vec3<T>(T(1.f));
  if (flip_invalid) n = face_viewer(n, wo);
  n = normalize(n);
  shading.turn(n, normalize(Vec3<T>(T(1.f), T(0.f), T(0.f)) - n * n.x));
}

// Mitsuba's `bumpmap` (src/bsdfs/bumpmap.cpp): the height's gradient grad (d/du, d/dv, times
// `scale`) displaces dp/du and dp/dv along the shading normal; their cross product, turned to the
// geometric side ng, is the normal. Its s is dp/du (world) made orthogonal to the local normal, as
// Mitsuba computes it (s only orients anisotropic BSDFs).
template <class T>
void apply_bump_map(ShadingFrame<T>& shading, const Vec3<T>& dp_du, const Vec3<T>& dp_dv, const T& grad_u, const T& grad_v,
                    const Vec3<T>& ng, const Vec3<T>& wo, bool flip_invalid) {
  const Vec3<T>& ns = shading.base.n;
  const Vec3<T> du = dp_du + ns * (grad_u - dot(ns, dp_du)), dv = dp_dv + ns * (grad_v - dot(ns, dp_dv));
  Vec3<T> n = normalize(cross(du, dv));
  if (value(dot(ng, n)) < 0.f) n = -n;
  n = shading.base.to_local(n);
  if (flip_invalid) n = face_viewer(n, wo);
  shading.turn(n, normalize(dp_du - n * dot(n, dp_du)));
}

// The shading frame at surface point sp of BVH primitive `prim` (lifted as pt) under material
// mat: ns the shading normal (outward); `flip` on a reflecting BSDF's back side (the local z
// mirrored, s and t kept, as Mitsuba's twosided); wo (world) toward the viewer; uv the point's
// surface coordinates.
template <class T>
ShadingFrame<T> shading_frame(const Scene& scene, const ParamView<T>& P, const Material& mat, uint32_t prim,
                              const PrimT<T>& pt, const SurfacePoint<T>& sp, const Vec3<T>& ns, bool flip,
                              const Vec3<T>& wo, glm::vec2 uv) {
  Vec3<T> dp_du, dp_dv;
  surface_derivatives(scene, prim, pt, sp.p, sp.n, dp_du, dp_dv);
  Frame<T> f = tangent_frame(ns, dp_du);
  if (flip) f.n = -f.n;
  ShadingFrame<T> shading(f);
  if (mat.normal_map < 0 && mat.bump_map < 0) return shading;
  const Vec3<T> wo_local = f.to_local(wo);
  if (mat.normal_map >= 0) {
    apply_normal_map(shading, eval_texture(scene.textures[size_t(mat.normal_map)], P, uv), wo_local, mat.flip_invalid_normals);
  } else {
    T du, dv;
    texture_gradient(scene.textures[size_t(mat.bump_map)], P, uv, du, dv);
    apply_bump_map(shading, dp_du, dp_dv, du * T(mat.bump_scale), dv * T(mat.bump_scale), flip ? -sp.n : sp.n, wo_local,
                   mat.flip_invalid_normals);
  }
  shading.shadowing = mat.shadowing;
  return shading;
}

}  // namespace dray
