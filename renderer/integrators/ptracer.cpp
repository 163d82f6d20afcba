#include "renderer/integrators/ptracer.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <omp.h>

#include "renderer/core/parallel.h"
#include "renderer/integrators/integrator.h"
#include "renderer/integrators/light_sample.h"
#include "renderer/integrators/masks.h"
#include "renderer/integrators/pixel_estimate.h"
#include "renderer/sensors/pixel_filter.h"

namespace dray {

namespace {

// The particles' own random stream: (seed, path index), apart from the pixels' and the edges'.
constexpr uint64_t kParticleStream = 0x7074726163657273ull;  // "ptracers"

// A point's link to the camera (its sensor's link: sensors/camera.h, aperture point `lens`) if it
// lands within `reach`.
bool link_camera(const CameraFrame<float>& f, const Tile& reach, const glm::vec3& p, glm::vec2 lens, CameraLink& out) {
  if (!camera_link(f, p, lens, out)) return false;
  const glm::vec2 q = out.film;
  return q.x >= float(reach.x0) && q.x < float(reach.x1) && q.y >= float(reach.y0) && q.y < float(reach.y1);
}

// One rank's accumulators for the window, shared by the threads: each thread adds into its own
// copy (exact integer sums, so the merge order does not matter).
struct Film {
  const Scene& scene;
  const CameraFrame<float> frame;
  const Tile window, reach;
  const std::optional<Tile> film;  // the film pixel filters are cut to (filter_film)
  const double scale;  // 1 / n
  std::vector<std::vector<ad::FixedSum>> per_thread;
  std::vector<long> dropped;

  Film(const Scene& s, const Tile& w, long n, int threads)
      : scene(s), frame(camera_frame(s.camera(), ParamView<float>(s.params))), window(w), reach(widened(w, s.render.filter)),
        film(filter_film(s)),
        scale(1.0 / double(n)),
        per_thread(size_t(threads), std::vector<ad::FixedSum>(size_t(w.x1 - w.x0) * size_t(w.y1 - w.y0) * 3)),
        dropped(size_t(threads), 0) {}

  // Radiance-like `value` (already times the point's cosine) arriving at the camera from p: the
  // pixels of its film point's footprint get value × importance × filter weight / n.
  void splat(int thread, const CameraLink& link, const glm::vec3& value) {
    const glm::dvec3 v = glm::dvec3(value) * (double(link.importance) * scale);
    for_each_footprint_pixel(scene.render.filter, link.film, window, film ? &*film : nullptr, [&](int px, int py, double w) {
      const size_t at = (size_t(py - window.y0) * size_t(window.x1 - window.x0) + size_t(px - window.x0)) * 3;
      for (int c = 0; c < 3; ++c)
        if (!per_thread[size_t(thread)][at + size_t(c)].add(v[c] * w)) ++dropped[size_t(thread)];
    });
  }

  // An aperture point for a connection through a lens (uniform on the unit disk, as the
  // camera's rays draw theirs); nothing drawn for other cameras.
  glm::vec2 lens(Sampler& s) const {
    if (!draws_aperture(frame.model)) return glm::vec2(0.f);
    const float u = s.next();
    return concentric_disk(u, s.next());
  }

  // p's link to the camera through an aperture point drawn from s.
  bool link(const glm::vec3& p, Sampler& s, CameraLink& out) const { return link_camera(frame, reach, p, lens(s), out); }

  // Whether nothing blocks the segment from p (offset along n toward the camera) to the camera.
  bool visible(const glm::vec3& p, const glm::vec3& n, const CameraLink& link) const {
    const float eps = detail::ray_epsilon(p);
    const glm::vec3 o = p + n * (glm::dot(n, link.to_camera) > 0.f ? eps : -eps);
    const Ray r{o, link.to_camera, link.distance * (1.f - 1e-4f)};
    return transmittance(scene, ParamView<float>(scene.params), r) > 0.f;
  }
};

bool sample_emission(const Scene& scene, const Light& light, float pick, Sampler& s, Emission& e) {
  return std::visit([&](const auto& emitter) { return emitter.emit(scene, pick, s, e); }, light.model);
}

// The sky the camera sees (Mitsuba's sample_visible_emitters for infinite emitters): a direction
// drawn as next-event estimation draws it, where it lands on the film, L / (pdf pick) times the
// pinhole's importance per solid angle 1 / (cos³θ a), if nothing blocks it. A camera without an eye
// (orthographic) looks along one direction only: it never meets the sky this way (nor in Mitsuba).
void splat_visible_sky(Film& film, int thread, const Light& light, float pick, Sampler& s) {
  const CameraFrame<float>& f = film.frame;
  float pdf = 0.f;
  const glm::vec3 wi = sample_environment(light, s.next(), s.next(), pdf);
  if (!camera_eye(f, glm::vec2(0.f)) || !(pdf > 0.f)) return;  // no eye (a parallel camera): it never meets the sky
  const glm::vec2 lens = film.lens(s);
  const glm::vec3 o = *camera_eye(f, lens);
  CameraLink link;
  if (!link_camera(f, film.reach, o + wi * ((2.f * f.near_clip + 1.f) / std::max(glm::dot(wi, to_glm(f.forward)), 1e-6f)), lens, link)) return;
  const float cos_c = glm::dot(wi, to_glm(f.forward));
  const float start = f.near_clip / cos_c;  // camera rays start at the near plane
  if (transmittance(film.scene, ParamView<float>(film.scene.params), Ray{o + wi * start, wi, INFINITY}) <= 0.f) return;
  link.importance = 1.f / (cos_c * cos_c * cos_c * pixel_area(f));
  film.splat(thread, link, value(environment_radiance(light, ParamView<float>(film.scene.params), wi)) / (pdf * pick));
}

// An emitter the camera sees: a point on an area light connected straight to the camera, or the sky.
void splat_visible_emitter(Film& film, int thread, const Light& light, float pick, Sampler& s) {
  if (placement(light) == EmitterPlacement::sky) return splat_visible_sky(film, thread, light, pick, s);
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
  film.splat(thread, link, area->radiance_at(film.scene, prim, p) * (std::fabs(cos_l) * area->area / pick));
}

// One light path from its emission on: at each surface vertex the connection to the camera, then
// the BSDF's next direction, for at most max_depth vertices (dray's bounces; Mitsuba's max_depth
// - 1), with path's Russian roulette.
void trace_light_path(Film& film, int thread, Emission e, Sampler& s) {
  const Scene& scene = film.scene;
  const ParamView<float> P(scene.params);
  glm::vec3 beta = e.beta;
  const float eps0 = detail::ray_epsilon(e.p);
  RayT<float> ray{Vec3<float>(e.p + e.n * eps0), Vec3<float>(e.d)};
  for (int vertex = 1; vertex <= scene.render.max_depth;) {
    Hit hit;
    const Ray fray = ray.detached();
    if (!scene.bvh.intersect(fray, hit)) return;
    const PrimT<float> prim = lift_prim(scene, P, hit.prim);
    const SurfacePoint<float> sp = eval_hit(prim, ray, hit, 0.f);
    const glm::vec3 p = to_glm(sp.p), ng = to_glm(sp.n), wl = -fray.d;  // wl: toward where the light came from
    const Material& mat = scene.materials[scene.material_of(hit.prim)];
    const float eps = detail::ray_epsilon(p, fray.o, hit.t);
    if (is_mask(mat)) {  // through with probability 1 - opacity (no vertex), as path's
      const float opacity = mask_opacity(scene, P, mat, mask_uv(scene, mat, hit.prim, p));
      if (s.next() >= opacity) {
        ray = {Vec3<float>(p + fray.d * eps), ray.d};
        continue;
      }
    }
    // The frame as path_vertex builds it, seen from where the particle came.
    const bool back = glm::dot(ng, fray.d) > 0.f;
    const Bsdf& bsdf = scene.bsdfs[back ? mat.back : mat.front];
    const uint32_t flags = bsdf_flags(bsdf);
    if (back && mat.one_sided && !(flags & kLobeTransmission)) return;  // black from the back
    const glm::vec3 n = back && !(flags & kLobeTransmission) ? -ng : ng;
    const TexCoord<float> coord = scene.textures.empty() ? TexCoord<float>() : surface_coord(scene, hit.prim, prim, sp.p);
    const Inputs<float> in(P, scene.textures.data(), coord);
    const ShadingFrame<float> sf = shading_frame(scene, P, mat, hit.prim, prim, sp,
                                                 shading_normal(scene, P, hit.prim, prim, sp.p, sp.n),
                                                 back && !(flags & kLobeTransmission), Vec3<float>(wl), coord.at);
    const Vec3<float> wl_local = sf.frame.to_local(Vec3<float>(wl));
    if (!same_side(n, wl, sf.base_z(wl))) return;
    // The incident side's factor: |cos_s ω_l| / |cos_g ω_l| and a perturbed frame's light factor.
    const float incident = std::fabs(wl_local.z) / std::fabs(glm::dot(ng, wl)) * sf.light_factor(Vec3<float>(wl));
    CameraLink link;
    if (has_smooth_lobe(flags) && film.link(p, s, link) &&
        same_side(n, link.to_camera, sf.base_z(link.to_camera))) {
      const glm::vec3 f = value(bsdf_f(bsdf, in, sf.frame.to_local(Vec3<float>(link.to_camera)), wl_local));
      if (f != glm::vec3(0.f) && film.visible(p, n, link))
        film.splat(thread, link, beta * f * (incident * std::fabs(glm::dot(ng, link.to_camera))));
    }
    if (vertex == scene.render.max_depth) return;
    // The next direction, drawn from the BSDF seen from ω_l: β f(ω ← ω_l) incident |cos_g ω| / pdf.
    const float u1 = s.next(), u2 = s.next(), uc = s.next();
    const BsdfSample bs = bsdf_sample(bsdf, in, value(wl_local), uc, {u1, u2});
    if (!bs.lobe) return;
    glm::vec3 w;
    if (bs.lobe & kLobeDelta) {
      const DeltaLobe<float> d = bsdf_delta(bsdf, in, wl_local, bs);
      w = to_glm(sf.frame.to_world(d.wi));
      // The lobe's weight f |cos_s ω| / pdf, without radiance's (η_l / η)² of a refraction (flux
      // has none), with the shading-normal correction |cos_s ω_l| |cos_g ω| / (|cos_g ω_l| |cos_s ω|).
      const float eta2 = (bs.lobe & kLobeTransmission) ? bs.eta * bs.eta : 1.f;
      beta *= to_glm(d.weight) * (eta2 * incident * std::fabs(glm::dot(ng, w)) / std::fabs(d.wi.z));
    } else {
      w = to_glm(sf.frame.to_world(Vec3<float>(bs.wi)));
      const glm::vec3 f = value(bsdf_f(bsdf, in, Vec3<float>(bs.wi), wl_local));
      beta *= f * (incident * std::fabs(glm::dot(ng, w)) / bs.pdf);
    }
    if (!same_side(n, w, sf.base_z(w)) || !(beta.x > 0.f || beta.y > 0.f || beta.z > 0.f)) return;
    if (vertex - 1 >= scene.render.rr_depth) {  // path's roulette: from the same bounce, the same survival
      if (s.next() >= detail::kRouletteSurvival) return;
      beta /= detail::kRouletteSurvival;
    }
    ray = {Vec3<float>(p + n * (glm::dot(n, w) > 0.f ? eps : -eps)), Vec3<float>(w)};
    ++vertex;
  }
}

}  // namespace

long particle_count(const Scene& scene, const Tile& w) {
  return long(scene.render.spp) * long(w.x1 - w.x0) * long(w.y1 - w.y0);
}

std::optional<std::string> particle_tracer_refusal(const Scene& scene) {
  if (integrator_traits(scene.render).media || !scene.media.empty()) return "integrator ptracer: media are not supported (as in Mitsuba)";
  return std::nullopt;
}

ParticleSplat trace_particles(const Scene& scene, const Tile& window, long n, int first, int stride, int threads) {
  if (auto why = particle_tracer_refusal(scene)) throw std::runtime_error(*why);
  Film film(scene, window, n, threads);
  const int n_lights = int(scene.lights.size());
  if (n_lights > 0)
    for_each_sample(n, first, stride, threads, [&](int, uint64_t k) {
      const int t = omp_get_thread_num();
      Sampler s(mix64(scene.render.seed ^ kParticleStream), k, 0);
      const float pick = 1.f / float(n_lights);
      const Light& light = scene.lights[size_t(std::min(int(s.next() * float(n_lights)), n_lights - 1))];
      if (!scene.render.hide_emitters) splat_visible_emitter(film, t, light, pick, s);
      Emission e;
      if (scene.render.max_depth >= 1 && sample_emission(scene, light, pick, s, e)) trace_light_path(film, t, e, s);
    });
  ParticleSplat out;
  out.sums = std::move(film.per_thread[0]);
  for (size_t t = 1; t < film.per_thread.size(); ++t)
    for (size_t i = 0; i < out.sums.size(); ++i) out.sums[i] += film.per_thread[t][i];
  for (long d : film.dropped) out.nonfinite += d;
  return out;
}

void write_particle_splat(Image& image, const Tile& w, const ParticleSplat& splat) {
  for (int y = w.y0; y < w.y1; ++y)
    for (int x = w.x0; x < w.x1; ++x)
      for (int c = 0; c < 3; ++c)
        image.pixel(x, y)[c] =
            to_image_float(splat.sums[(size_t(y - w.y0) * size_t(w.x1 - w.x0) + size_t(x - w.x0)) * 3 + size_t(c)].value());
}

Image particle_image(const Scene& scene, int threads) {
  const Tile window{0, 0, scene.camera().width, scene.camera().height};
  Image image(window.x1, window.y1, 3);
  image.spp = scene.render.spp;
  write_particle_splat(image, window, trace_particles(scene, window, particle_count(scene, window), 0, 1, threads));
  return image;
}

}  // namespace dray
