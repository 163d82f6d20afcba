#pragma once
// One light path of the particle tracer (renderer/integrators/ptracer.h), written once for every
// scalar type T: float for images, Dual<k> for derivative images, Var for reverse mode. As in the
// path kernel, discrete choices (traversal, visibility, which lobe, which direction) are made in
// float and the hit is re-evaluated in T, so a moving surface moves the path's later vertices, the
// directions it refracts into and the film point each connection lands on. The emission and the
// camera connection's visibility are float; the connection's direction, its pinhole Jacobian and
// its film point are in T.
#include <algorithm>
#include <cmath>
#include <optional>

#include <omp.h>

#include <glm/geometric.hpp>

#include "renderer/integrators/integrator.h"
#include "renderer/core/parallel.h"
#include "renderer/integrators/light_sample.h"
#include "renderer/integrators/masks.h"
#include "renderer/sensors/pixel_filter.h"

namespace dray {

// The film's geometry for a pass over a window (no accumulators): where connections land, whether
// they are seen.
struct ParticleFilm {
  const Scene& scene;
  const Shot shot;  // the sensor the paths connect to, and the seed they are drawn with
  const CameraFrame<float> frame;
  const Tile window, reach;
  const std::optional<Tile> film;  // the film pixel filters are cut to (filter_film)
  const FootprintMasses masses;    // the filter's mass within it per column and row of the window
  const double scale;              // 1 / n

  ParticleFilm(const Scene& s, const Shot& sh, const Tile& w, long n)
      : scene(s), shot(sh), frame(camera_frame(s.camera(sh), ParamView<float>(s.params))), window(w), reach(widened(w, s.render.filter)),
        film(filter_film(s, sh)), masses(s.render.filter, film, w), scale(1.0 / double(n)) {}

  // An aperture point for a connection through a lens (uniform on the unit disk, as the
  // camera's rays draw theirs); nothing drawn for other cameras.
  glm::vec2 lens(Sampler& s) const {
    if (!draws_aperture(frame.model)) return glm::vec2(0.f);
    const float u = s.next();
    return concentric_disk(u, s.next());
  }

  // p's link to the camera (its sensor's link: sensors/camera.h, aperture point `lens`) if it lands
  // within the window's reach.
  bool link(const glm::vec3& p, glm::vec2 lens_point, CameraLink& out) const {
    if (!camera_link(frame, p, lens_point, out)) return false;
    const glm::vec2 q = out.film;
    return q.x >= float(reach.x0) && q.x < float(reach.x1) && q.y >= float(reach.y0) && q.y < float(reach.y1);
  }
  bool link(const glm::vec3& p, Sampler& s, CameraLink& out) const { return link(p, lens(s), out); }

  // A window pixel's place, row by row.
  size_t pixel_index(int px, int py) const {
    return size_t(py - window.y0) * size_t(window.x1 - window.x0) + size_t(px - window.x0);
  }

  // Whether nothing blocks the segment from p (offset along n toward the camera) to the camera.
  bool visible(const glm::vec3& p, const glm::vec3& n, const CameraLink& to) const {
    const float eps = detail::ray_epsilon(p);
    const glm::vec3 o = p + n * (glm::dot(n, to.to_camera) > 0.f ? eps : -eps);
    const Ray r{o, to.to_camera, to.distance * (1.f - 1e-4f)};
    return transmittance(scene, ParamView<float>(scene.params), r) > 0.f;
  }
};

// A connection in T: its direction toward the camera, the pinhole's Jacobian 1 / (d² cos³θ a)
// (1 / a for a parallel camera) and its film point. In float, the link's own values.
template <class T>
struct LinkT {
  Vec3<T> to_camera;
  T importance, film_x, film_y;
};

template <class T>
LinkT<T> link_in(const CameraFrame<T>& f, const CameraLink& link, const Vec3<T>& p, bool eye) {
  if constexpr (!ad::is_differentiable_v<T>) {
    return {Vec3<float>(link.to_camera), link.importance, link.film.x, link.film.y};
  } else {
    const FilmPoint<T> q = project(f, p);
    const T area = T(2.f) * f.half_w / T(f.width) * (T(2.f) * f.half_h / T(f.height));
    if (!eye) return {-f.forward, T(1.f) / area, q.x, q.y};
    const Vec3<T> d = f.origin - p;
    const T dist = length(d), depth = dot(p - f.origin, f.forward);
    const T cos_c = depth / dist;
    return {d / dist, T(1.f) / (dist * dist * cos_c * cos_c * cos_c * area), q.x, q.y};
  }
}

// One light path from its emission on: at each surface vertex the connection to the camera,
// splat(link, link in T, value) with the radiance-like value arriving at the camera (already times
// the point's cosine), then the BSDF's next direction, for at most max_depth vertices (dray's
// bounces; Mitsuba's max_depth - 1), with path's Russian roulette.
template <class T, class Splat>
void trace_light_path(const ParticleFilm& film, const ParamView<T>& P, const CameraFrame<T>& frame, const Emission& e,
                      Sampler& s, Splat&& splat) {
  const Scene& scene = film.scene;
  const ParamView<float> Pf(scene.params);
  const bool eye = camera_eye(film.frame, glm::vec2(0.f)).has_value();
  Vec3<T> beta(e.beta);
  const float eps0 = detail::ray_epsilon(e.p);
  RayT<T> ray{Vec3<T>(e.p + e.n * eps0), Vec3<T>(e.d)};
  for (int vertex = 1; vertex <= scene.render.max_depth;) {
    Hit hit;
    const Ray ray_f = ray.detached();
    if (!scene.bvh.intersect(ray_f, hit)) return;
    const PrimT<T> prim = lift_prim(scene, P, hit.prim);
    const SurfacePoint<T> sp = eval_hit(prim, ray, hit, 0.f);
    const glm::vec3 p = value(sp.p), ng = value(sp.n), wl = -ray_f.d;  // wl: toward where the light came from
    const Material& mat = scene.materials[scene.material_of(hit.prim)];
    const float eps = detail::ray_epsilon(p, ray_f.o, hit.t);
    if (is_mask(mat)) {  // through with probability 1 - opacity (no vertex), as path's
      const float opacity = mask_opacity(scene, Pf, mat, mask_uv(scene, mat, hit.prim, p));
      if (s.next() >= opacity) {
        ray = {sp.p + ray.d * T(eps), ray.d};
        continue;
      }
    }
    // The frame as path_vertex builds it, seen from where the particle came.
    const bool back = glm::dot(ng, ray_f.d) > 0.f;
    const Bsdf& bsdf = scene.bsdfs[back ? mat.back : mat.front];
    const uint32_t flags = bsdf_flags(bsdf);
    if (back && mat.one_sided && !(flags & kLobeTransmission)) return;  // black from the back
    const bool flip = back && !(flags & kLobeTransmission);
    const glm::vec3 n = flip ? -ng : ng;
    const Vec3<T> n_t = flip ? -sp.n : sp.n, wl_t = -ray.d;
    const TexCoord<T> coord = scene.textures.empty() ? TexCoord<T>() : surface_coord(scene, hit.prim, prim, sp.p);
    const Inputs<T> in(P, scene.textures.data(), coord);
    const ShadingFrame<T> shading = shading_frame(scene, P, mat, hit.prim, prim, sp, shading_normal(scene, P, hit.prim, prim, sp.p, sp.n),
                                             flip, wl_t, coord.at);
    const Vec3<T> wl_local = shading.frame.to_local(wl_t);
    if (!same_side(n, wl, shading.base_z(wl))) return;
    // The incident side's factor: |cos_s ω_l| / |cos_g ω_l| and a perturbed frame's light factor.
    const T incident = abs(wl_local.z) / abs(dot(sp.n, wl_t)) * shading.light_factor(wl_t);
    CameraLink link;
    if (has_smooth_lobe(flags) && film.link(p, s, link) && same_side(n, link.to_camera, shading.base_z(link.to_camera))) {
      const LinkT<T> to = link_in(frame, link, sp.p, eye);
      const Vec3<T> f = bsdf_f(bsdf, in, shading.frame.to_local(to.to_camera), wl_local);
      if (value(f) != glm::vec3(0.f) && film.visible(p, n, link)) splat(link, to, beta * f * (incident * abs(dot(sp.n, to.to_camera))));
    }
    if (vertex == scene.render.max_depth) return;
    // The next direction, drawn from the BSDF seen from ω_l: β f(ω ← ω_l) incident |cos_g ω| / pdf.
    const float u1 = s.next(), u2 = s.next(), uc = s.next();
    const BsdfSample bs = bsdf_sample(bsdf, in.values_only(), value(wl_local), uc, {u1, u2});
    if (!bs.lobe) return;
    Vec3<T> w;
    if (bs.lobe & kLobeDelta) {
      const DeltaLobe<T> d = bsdf_delta(bsdf, in, wl_local, bs);
      w = shading.frame.to_world(d.wi);
      // The lobe's weight f |cos_s ω| / pdf, without radiance's (η_l / η)² of a refraction (flux
      // has none), with the shading-normal correction |cos_s ω_l| |cos_g ω| / (|cos_g ω_l| |cos_s ω|).
      const float eta2 = (bs.lobe & kLobeTransmission) ? bs.eta * bs.eta : 1.f;
      beta *= d.weight * (T(eta2) * incident * abs(dot(sp.n, w)) / abs(d.wi.z));
    } else {
      w = shading.frame.to_world(Vec3<T>(bs.wi));
      const Vec3<T> f = bsdf_f(bsdf, in, Vec3<T>(bs.wi), wl_local);
      beta *= f * (incident * abs(dot(sp.n, w)) / T(bs.pdf));
    }
    const glm::vec3 w_f = value(w);
    if (!same_side(n, w_f, shading.base_z(w_f)) || !any_light(beta)) return;
    if (vertex - 1 >= scene.render.rr_depth) {  // path's roulette: from the same bounce, the same survival
      if (s.next() >= detail::kRouletteSurvival) return;
      beta /= T(detail::kRouletteSurvival);
    }
    ray = {sp.p + n_t * T(glm::dot(n, w_f) > 0.f ? eps : -eps), w};
    ++vertex;
  }
}

// The sky the camera sees (Mitsuba's sample_visible_emitters for infinite emitters): a direction
// drawn as next-event estimation draws it, where it lands on the film, L / (pdf pick) times the
// pinhole's importance per solid angle 1 / (cos³θ a), if nothing blocks it. A camera without an eye
// (orthographic) looks along one direction only: it never meets the sky this way (nor in Mitsuba).
template <class Splat>
void splat_visible_sky(const ParticleFilm& film, const Light& light, float pick, Sampler& s, Splat&& splat) {
  const CameraFrame<float>& f = film.frame;
  float pdf = 0.f;
  const glm::vec3 wi = sample_environment(light, s.next(), s.next(), pdf);
  if (!camera_eye(f, glm::vec2(0.f)) || !(pdf > 0.f)) return;  // no eye (a parallel camera): it never meets the sky
  const glm::vec2 lens = film.lens(s);
  const glm::vec3 o = *camera_eye(f, lens);
  CameraLink link;
  if (!film.link(o + wi * ((2.f * f.near_clip + 1.f) / std::max(glm::dot(wi, to_glm(f.forward)), 1e-6f)), lens, link)) return;
  const float cos_c = glm::dot(wi, to_glm(f.forward));
  const float start = f.near_clip / cos_c;  // camera rays start at the near plane
  if (transmittance(film.scene, ParamView<float>(film.scene.params), Ray{o + wi * start, wi, INFINITY}) <= 0.f) return;
  link.importance = 1.f / (cos_c * cos_c * cos_c * pixel_area(f));
  splat(link, value(environment_radiance(light, ParamView<float>(film.scene.params), wi)) / (pdf * pick));
}

// An emitter the camera sees: a point on an area light connected straight to the camera, or the
// sky; splat(link, value) in float (no derivatives: ptracer's are the surfaces' it meets).
template <class Splat>
void splat_visible_emitter(const ParticleFilm& film, const Light& light, float pick, Sampler& s, Splat&& splat) {
  if (placement(light) == EmitterPlacement::sky) return splat_visible_sky(film, light, pick, s, splat);
  const AreaEmitter* area = area_emitter(light);
  if (!area) return;
  uint32_t prim;
  const SurfacePoint<float> q = area->surface_point(film.scene, s, prim);
  if (film.scene.materials[film.scene.material_of(prim)].directional) return;  // no camera sees along its normal
  const glm::vec3 p = to_glm(q.p), n = to_glm(q.n);
  CameraLink link;
  if (!film.link(p, s, link)) return;
  const float cos_l = glm::dot(n, link.to_camera);
  if (!(cos_l > 0.f || (film.scene.materials[film.scene.material_of(prim)].two_sided && cos_l < 0.f))) return;
  if (!film.visible(p, n, link)) return;
  splat(link, area->radiance_at(film.scene, prim, p) * (std::fabs(cos_l) * area->area / pick));
}

// The particles' own random stream: (seed, path index), apart from the pixels' and the edges'.
inline constexpr uint64_t kParticleStream = 0x7074726163657273ull;  // "ptracers"

// Light paths first, first + stride, ... of n: body(thread, sampler, light, pick) with path k's
// sampler (its numbers depend on (seed, k) alone) after it picked the light.
template <class Body>
void for_each_light_path(const Scene& scene, uint64_t seed, long n, int first, int stride, int threads, Body&& body) {
  const int n_lights = int(scene.lights.size());
  if (n_lights == 0) return;
  for_each_sample(n, first, stride, threads, [&](int, uint64_t k) {
    Sampler s(mix64(seed ^ kParticleStream), k, 0);
    const float pick = 1.f / float(n_lights);
    const Light& light = scene.lights[size_t(std::min(int(s.next() * float(n_lights)), n_lights - 1))];
    body(omp_get_thread_num(), s, light, pick);
  });
}

// One particle: the emitter the camera sees (visible(link, float value)), then its light path
// (splat(link, link in T, value in T)).
template <class T, class Visible, class Splat>
void trace_particle(const ParticleFilm& film, const ParamView<T>& P, const CameraFrame<T>& frame, const Light& light,
                    float pick, Sampler& s, Visible&& visible, Splat&& splat) {
  const Scene& scene = film.scene;
  if (!scene.render.hide_emitters) splat_visible_emitter(film, light, pick, s, visible);
  Emission e;
  if (scene.render.max_depth >= 1 && std::visit([&](const auto& emitter) { return emitter.emit(scene, pick, s, e); }, light.model))
    trace_light_path(film, P, frame, e, s, splat);
}

}  // namespace dray
