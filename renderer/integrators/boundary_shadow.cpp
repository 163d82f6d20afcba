// Shadow edges of direct lighting (Zhang et al. 2020, "Path-Space Differentiable Rendering",
// boundary segments for direct light): direct light is an integral over light points q; for a
// point p on an occluder's edge seen from q, the ray q -> p continues to the receiver y, where the
// shadow edge lies. Its film position is y's projection, its radiance step the unoccluded direct
// light from q at y, known in closed form. An environment's "points" are directions ω (uniform
// on the sphere): the edge is seen from infinitely far along ω, the line through p runs along -ω.
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "ad/dual.h"
#include "renderer/integrators/boundary.h"
#include "renderer/integrators/boundary_segments.h"
#include "renderer/integrators/integrator.h"
#include "renderer/integrators/pixel_estimate.h"

namespace dray {

namespace {

// A ball holding shape s (centre xyz, radius w), as its plugin bounds it.
glm::vec4 bounding_ball(const Scene& scene, const Shape& s) {
  return std::visit([&](const auto& plugin) { return plugin.bounding_ball(scene); }, s.model);
}

}  // namespace

ShadowEdges find_shadow_edges(const Scene& scene) {
  ShadowEdges out;
  for (uint32_t i = 0; i < scene.lights.size(); ++i) {
    const Light& l = scene.lights[i];
    // Seen from a point light's position or a directional light's direction: silhouettes now.
    const EmitterPlacement at = placement(l);
    const bool positioned = at == EmitterPlacement::point;
    const glm::vec4 from = positioned                            ? seen_from_point(scene.params.get_vec3(light_place(l)))
                           : at == EmitterPlacement::direction ? seen_from_direction(-scene.params.get_vec3(light_place(l)))
                                                                 : glm::vec4(0.f);
    const bool fixed = positioned || at == EmitterPlacement::direction;
    // A convex lamp cannot shadow its own light.
    const AreaEmitter* area = area_emitter(l);
    const bool convex_lamp = area && !scene.shapes[area->shape].is<MeshShape>();
    // An area light's points lie in its shape's bounding ball: edges no point of it sees as a
    // silhouette cast no shadow edge (most of a smooth mesh's, under a small lamp).
    const glm::vec4 ball = area ? bounding_ball(scene, scene.shapes[area->shape]) : glm::vec4(0.f);
    Silhouettes e = occluder_edges(scene, fixed ? &from : nullptr, convex_lamp ? area->shape : UINT32_MAX,
                                   area ? &ball : nullptr);
    if (e.elements.empty()) continue;
    if (at == EmitterPlacement::sky) {
      // Seen from a direction drawn within its lune, an edge is always a silhouette: weigh it
      // by the lune's share of the sphere (a smooth mesh's nearly flat edges: small).
      for (SilhouetteElement& el : e.elements) {
        glm::vec3 n0, n1;
        el.weight *= silhouette_lune(scene, el, n0, n1) / kPi;
      }
      e.sum_weights();
    }
    out.lights.push_back(i);
    out.edges.push_back(std::move(e));
  }
  return out;
}

namespace {

constexpr uint64_t kShadowStream = 0x736861646f777321ull;  // "shadows!"

// The first surface along the ray from p in direction d that is not the graze of edge e's own
// shape at p (the line touches the occluder there; rounded, it may enter and leave it right after
// p, and a sphere's tangent cannot meet it again at all): such hits are skipped. `scale` sets
// "right after".
bool hit_past_edge(const Scene& scene, const SilhouetteElement& e, const glm::vec3& p, const glm::vec3& d,
                   const glm::vec3& from, float scale, Hit& hit, float& t) {
  t = detail::ray_epsilon(p, from, scale);
  for (int skips = 0;; ++skips) {
    if (!scene.bvh.intersect(Ray{p + d * t, d}, hit)) return false;
    const bool graze = scene.bvh.prim_ref(hit.prim).shape == e.shape &&
                       (e.kind == SilhouetteElement::Kind::circle || t + hit.t < 1e-3f * scale);
    if (!graze || skips == 2) break;
    t += hit.t + detail::ray_epsilon(p + d * (t + hit.t), from, scale);
  }
  t += hit.t;
  return true;
}

}  // namespace

bool shade_hit(const Scene& scene, const Ray& ray, const Hit& hit, ShadedHit& out) {
  const Material& mat = scene.materials[scene.material_of(hit.prim)];
  const ParamView<float> P(scene.params);
  const PrimT<float> prim = lift_prim(scene, P, hit.prim);
  const SurfacePoint<float> sp = eval_hit(prim, RayT<float>{Vec3<float>(ray.o), Vec3<float>(ray.d)}, hit, 0.f);
  out.y = to_glm(sp.p);
  out.n = to_glm(sp.n);
  out.eps = detail::ray_epsilon(out.y, ray.o, hit.t);
  // The BSDF of the side seen, its frame facing the ray unless it transmits; Dirac lobes see no
  // single direction.
  const bool back = glm::dot(out.n, ray.d) > 0.f;
  out.bsdf = &scene.bsdfs[back ? mat.back : mat.front];
  const uint32_t flags = bsdf_flags(*out.bsdf);
  if (!has_smooth_lobe(flags)) return false;
  const bool flip = back && !(flags & kLobeTransmission);
  if (flip && mat.one_sided) return false;  // black from the back: no light reaches the camera
  if (flip) out.n = -out.n;
  const TexCoord<float> coord = scene.textures.empty() ? TexCoord<float>() : surface_texcoord<float>(scene, hit.prim, prim, out.y);
  out.shading.emplace(shading_frame(scene, P, mat, hit.prim, prim, sp, shading_normal(scene, P, hit.prim, prim, sp.p, sp.n), flip,
                               Vec3<float>(-ray.d), coord.at));
  out.in.emplace(P, scene.textures.data(), coord);
  out.wo = out.shading->frame.to_local(Vec3<float>(-ray.d));
  out.opacity = is_mask(mat) ? mask_opacity(scene, P, mat, coord) : 1.f;
  return true;
}

glm::vec3 ShadedHit::f_cos(const glm::vec3& d, float* pdf) const {
  const Vec3<float> wi = shading->frame.to_local(Vec3<float>(d));
  if (!same_side(n, d, shading->base_z(d))) return glm::vec3(0.f);
  if (pdf) *pdf = bsdf_pdf(*bsdf, *in, to_glm(wo), to_glm(wi));
  return to_glm(bsdf_f(*bsdf, *in, wo, wi)) * (shading->light_factor(Vec3<float>(d)) * opacity * std::fabs(wi.z));
}

glm::vec3 direct_from(const Scene& scene, const Light& light, const glm::vec3& q, const glm::vec3& nq, uint32_t q_prim,
                      const Ray& ray) {
  Hit hit;
  ShadedHit at;
  if (!scene.bvh.intersect(ray, hit) || !shade_hit(scene, ray, hit, at)) return glm::vec3(0.f);
  const ParamView<float> P(scene.params);
  const glm::vec3 y = at.y;
  // From infinitely far (the environment, a directional light), q is the direction toward it.
  const EmitterPlacement at_light = placement(light);
  const bool env = at_light == EmitterPlacement::sky || at_light == EmitterPlacement::direction;
  const glm::vec3 to = env ? q : q - y;
  const float d2 = env ? 1.f : glm::dot(to, to), d = std::sqrt(d2);
  const glm::vec3 f = at.f_cos(to / d);
  if (!(f.x > 0.f || f.y > 0.f || f.z > 0.f)) return glm::vec3(0.f);
  const float cos_y = std::fabs(glm::dot(to_glm(at.shading->frame.n), to / d));
  glm::vec3 radiance;
  float cos_q = 1.f;
  if (at_light != EmitterPlacement::surface) {
    // W/sr, the environment's radiance (q: the direction toward it), or irradiance
    radiance = std::visit([&](const auto& e) {
      if constexpr (std::decay_t<decltype(e)>::kPlacement == EmitterPlacement::surface) return glm::vec3(0.f);
      else return e.toward(scene, P, y, to / d);
    }, light.model);
  } else {
    const Material& lm = scene.materials[scene.material_of(q_prim)];
    if (lm.directional) return glm::vec3(0.f);  // it lights no point by a sample of its area
    cos_q = -glm::dot(nq, to) / d;
    if (lm.two_sided) cos_q = std::fabs(cos_q);
    if (cos_q <= 0.f) return glm::vec3(0.f);
    radiance = to_glm(emitted(scene, P, lm, q_prim, lift_prim(scene, P, q_prim), Vec3<float>(q), true));
  }
  // Off the surface along the line to the light, not along the normal: the line through y
  // stays, so the step is seen where the shadow point is, whatever the offset (along the normal,
  // a grazing light's shadow edge moved by offset / tan(elevation), past the ±kEdgeOffset rays).
  const glm::vec3 origin = y + to * (at.eps / (d * std::max(cos_y, 1e-2f)));
  if (env) {
    if (scene.bvh.occluded(Ray{origin, q, INFINITY})) return glm::vec3(0.f);
  } else {
    // An area light's point is moved off its surface along the line toward y, not along its
    // normal: shifted sideways by the offset, the line missed the edge on both sides of the step
    // when the lamp's normal was oblique to it (a sphere lamp's: 0.85x of differences).
    const glm::vec3 target = at_light != EmitterPlacement::surface ? q : q - to * (detail::ray_epsilon(q) / (d * std::max(cos_q, 1e-2f)));
    if (scene.bvh.occluded(detail::shadow_ray(origin, target))) return glm::vec3(0.f);
  }
  return f * radiance * (cos_q / d2);
}

namespace {

// The light point of a shadow sample: a point light's position, a point uniform in an area
// light's area, or a directional light's direction (a sky's is drawn once the edge is known:
// sky_direction); `weight` gains 1 / its pdf.
void draw_light_point(const Scene& scene, const Light& light, Sampler& sampler, BoundarySample& b, glm::vec3& q,
                      glm::vec3& nq, double& weight) {
  const EmitterPlacement at_light = placement(light);
  if (at_light == EmitterPlacement::point) {
    q = scene.params.get_vec3(light_place(light));
  } else if (at_light == EmitterPlacement::direction) {
    q = b.light_dir = -glm::normalize(scene.params.get_vec3(light_place(light)));
  } else if (at_light != EmitterPlacement::sky) {
    const AreaEmitter& area = std::get<AreaEmitter>(light.model);
    const float u3 = sampler.next();
    b.lu = sampler.next();
    b.lv = sampler.next();
    b.light_prim = area.pick_prim(u3);
    const SurfacePoint<float> s = sample_prim(lift_prim(scene, ParamView<float>(scene.params), b.light_prim), b.lu, b.lv);
    q = to_glm(s.p);
    nq = to_glm(s.n);
    weight *= double(area.area);
  }
}

// A sky's direction uniform in the edge's lune (silhouette_lune): z along the edge uniform, the
// azimuth about it in the two arcs where the faces' normals disagree on the side.
bool sky_direction(const Scene& scene, const SilhouetteElement& e, Sampler& sampler, glm::vec3& q, double& weight) {
  glm::vec3 n0, n1;
  const float alpha = silhouette_lune(scene, e, n0, n1);
  const float z = 1.f - 2.f * sampler.next(), rxy = std::sqrt(std::max(0.f, 1.f - z * z));
  const float t = 2.f * sampler.next();
  if (alpha < kPi) {
    const glm::vec3 c = glm::cross(n0, n1);
    if (!(glm::length(c) > 0.f)) return false;
    const glm::vec3 axis = glm::normalize(c), side = glm::cross(axis, n0);  // n1 = cos α n0 + sin α side
    const float psi = 0.5f * kPi + alpha * (t - std::floor(t)) + (t >= 1.f ? kPi : 0.f);
    q = (n0 * std::cos(psi) + side * std::sin(psi)) * rxy + axis * z;
    weight *= 4.0 * double(alpha);
  } else {
    const float phi = kPi * t;
    q = glm::vec3(rxy * std::cos(phi), rxy * std::sin(phi), z);
    weight *= 4.0 * kPi;
  }
  return true;
}

// An occluder edge point p seen from `from` at edge parameter u, as a function of it (a dual: its
// tangent is the derivative along the edge).
bool occluder_point(const Scene& scene, const SilhouetteElement& e, const glm::vec4& from, float u, Sampler& sampler,
                    BoundarySample& b, Vec3<ad::Dual<1>>& p, double& weight) {
  if (e.kind == SilhouetteElement::Kind::voxel) return voxel_point_from(scene, e, from, false, u, sampler, b, p);
  if (e.kind == SilhouetteElement::Kind::segment) {
    if (!silhouette_from(scene, e, from)) return false;  // for point and directional lights, true
    b.s = u;
    p = segment_point(scene, e, u);
    return true;
  }
  Circle c;
  if (!element_circle(scene, e, from, c)) return false;
  p = circle_point(c, u);
  b.omega = circle_direction(scene, e, value(p));
  weight *= 2.0 * kPi;  // pdf of phi
  return true;
}

// q must see p, and the ray q -> p goes on to the receiver: its hit at distance t past p along d.
bool receiver_past_edge(const Scene& scene, const SilhouetteElement& e, const glm::vec3& p_f, const glm::vec3& q,
                        const glm::vec3& nq, bool at_infinity, Hit& hit, float& t, glm::vec3& d) {
  if (at_infinity) {
    const float scale = glm::length(scene.bvh.bounds().hi - scene.bvh.bounds().lo);
    if (hit_past_edge(scene, e, p_f, q, p_f, scale, hit, t)) return false;
    d = -q;
    return hit_past_edge(scene, e, p_f, d, p_f, scale, hit, t);
  }
  const glm::vec3 dir = p_f - q;
  const float dist = glm::length(dir);
  if (!(dist > 0.f)) return false;
  d = dir / dist;
  // Off the light along the ray (which leaves by either side: a two-sided lamp lights from its
  // back too), so that it still runs through p. The ray touches the occluder at p: a hit of the
  // edge's own shape there is the graze (in float the tangent ray may enter a sphere ~1e-4
  // before p), not an occlusion.
  const float cos_q = std::fabs(glm::dot(nq, d));
  const float lift = nq == glm::vec3(0.f) ? 0.f : detail::ray_epsilon(q) / std::max(cos_q, 1e-2f);
  Hit block;
  if (scene.bvh.intersect(Ray{q + d * lift, d, dist * (1.f - 1e-4f) - lift}, block)) {
    const bool own = scene.bvh.prim_ref(block.prim).shape == e.shape;
    if (!(own && (e.kind == SilhouetteElement::Kind::circle || dist - block.t < 1e-3f * dist))) return false;
  }
  return hit_past_edge(scene, e, p_f, d, q, dist, hit, t);
}

}  // namespace

bool shadow_segment(const Scene& scene, const ShadowEdges& edges, Sampler& sampler, uint64_t k, uint64_t n,
                    BoundarySample& b, ShadowSegment& seg) {
  if (edges.lights.empty()) return false;
  // Stratified by sample index: lights in turn, and each light's edges by length in its share.
  const uint64_t n_lights = edges.lights.size(), share = (n + n_lights - 1) / n_lights;
  const size_t li = size_t(k % n_lights);
  const Light& light = scene.lights[edges.lights[li]];
  const Silhouettes& list = edges.edges[li];
  b.shadow = true;
  b.light = edges.lights[li];
  glm::vec3 q, nq(0.f);
  double weight = double(n_lights);  // 1 / (pdf of the light and of q)
  draw_light_point(scene, light, sampler, b, q, nq, weight);
  const EmitterPlacement at_light = placement(light);
  const bool env = at_light == EmitterPlacement::sky;
  const bool at_infinity = env || at_light == EmitterPlacement::direction;
  const double pick = (double(k / n_lights) + double(sampler.next())) / double(share) * list.total();
  const size_t ei = std::min(size_t(std::upper_bound(list.cdf.begin(), list.cdf.end(), pick) - list.cdf.begin()),
                             list.elements.size() - 1);
  const SilhouetteElement& e = list.elements[ei];
  b.element = &e;
  weight *= list.total() / double(e.weight);
  if (env) {
    if (!sky_direction(scene, e, sampler, q, weight)) return false;
    b.light_dir = q;
  }
  const glm::vec4 from = at_infinity ? seen_from_direction(q) : seen_from_point(q);
  const float u = sampler.next();
  Vec3<ad::Dual<1>> p;
  if (!occluder_point(scene, e, from, u, sampler, b, p, weight)) return false;
  const glm::vec3 p_f = value(p);
  Hit hit;
  float t;
  glm::vec3 d;
  if (!receiver_past_edge(scene, e, p_f, q, nq, at_infinity, hit, t, d)) return false;
  const glm::vec3 y = p_f + d * t;
  const PrimT<float> rp = lift_prim(scene, ParamView<float>(scene.params), hit.prim);
  b.receiver = hit.prim;
  b.receiver_normal = to_glm(prim_normal(rp, Vec3<float>(y)));
  if (!prim_coords(rp, y, b.receiver_at)) return false;
  seg.light = &light;
  seg.q = q;
  seg.nq = nq;
  seg.weight = weight;
  seg.y = shadow_point(scene, ParamView<ad::Dual<1>>(scene.params), b, p);
  return true;
}

bool shadow_sample(const Scene& scene, const Shot& shot, const ShadowEdges& edges, const CameraFrame<float>& f, const Tile& w,
                   uint64_t k, uint64_t n, BoundarySample& b, long* nonfinite) {
  using D1 = ad::Dual<1>;
  Sampler sampler(mix64(shot.seed ^ kShadowStream), k, 0);
  ShadowSegment seg;
  if (!shadow_segment(scene, edges, sampler, k, n, b, seg)) return false;
  const Light& light = *seg.light;
  const glm::vec3 q = seg.q, nq = seg.nq;
  const double weight = seg.weight;
  const Vec3<D1>& yd = seg.y;
  // The shadow point on the film, and its speed along the edge parameter.
  const CameraFrame<D1> fd = camera_frame(scene.camera(shot), ParamView<D1>(scene.params));
  const FilmPoint<D1> x = project(fd, yd);
  if (!(x.depth.v > 0.f)) return false;
  const glm::vec2 xf(x.x.v, x.y.v), dx(x.x.d[0], x.y.d[0]);
  if (!(xf.x >= float(w.x0) && xf.x < float(w.x1) && xf.y >= float(w.y0) && xf.y < float(w.y1))) return false;
  const float speed = glm::length(dx);
  if (!(speed > 0.f)) return false;
  b.film = xf;
  b.normal = glm::vec2(-dx.y, dx.x) / speed;
  // The step: q's direct light on either side of the shadow edge.
  const glm::vec2 off = b.normal * kEdgeOffset;
  const glm::vec3 minus = direct_from(scene, light, q, nq, b.light_prim, camera_ray(f, xf.x - off.x, xf.y - off.y).detached());
  const glm::vec3 plus = direct_from(scene, light, q, nq, b.light_prim, camera_ray(f, xf.x + off.x, xf.y + off.y).detached());
  b.delta = glm::vec3(glm::dvec3(minus - plus) * (weight * double(speed) / double(n)));
  if (!all_finite(glm::dvec3(b.delta))) {
    if (nonfinite) ++*nonfinite;
    return false;
  }
  return b.delta != glm::vec3(0.f);
}

}  // namespace dray
