// Visibility seen indirectly (Li et al. 2018, "Differentiable Monte Carlo Ray Tracing through Edge
// Sampling", secondary edges; Mitsuba 3's prb_projective samples the same boundary from the middle
// of a path): at a vertex x of a camera path with a smooth BSDF, the reflected light is an
// integral over directions ω of f·|cos|·L(x, ω), and L jumps where an edge is seen from x. A
// sample draws the camera path, one of its vertices x, an edge point p seen from x (by length,
// tested per sample as for an area light's shadows) and two paths from x at ±kIndirectOffset
// across the edge with the same random numbers. The edge's normal velocity on the sphere of
// directions at x, per unit of the edge parameter u, is (ω × dp/du) · (∂p/∂θ − ∂x/∂θ) / |p − x|²,
// with x moving as the interior term moves it (its path replayed in T: boundary.h).
//
// What the other terms already count is left out: from the camera's first hit, the light that
// the paths meet first (shadow edges of direct light: boundary_shadow.cpp; a lamp there is taken
// at its material point), and further on a lamp's own silhouette counts with its BSDF-sampling
// share only (next-event estimation takes lamps at their material points: no edge there).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <glm/geometric.hpp>

#include "ad/dual.h"
#include "renderer/integrators/boundary.h"
#include "renderer/integrators/boundary_segments.h"
#include "renderer/integrators/masks.h"
#include "renderer/integrators/pixel_estimate.h"
#include "renderer/sensors/pixel_filter.h"

namespace dray {

Silhouettes indirect_edges(const Scene& scene) { return occluder_edges(scene, nullptr); }

namespace {

constexpr uint64_t kIndirectStream = 0x696e646972656374ull;  // "indirect"
constexpr uint64_t kIndirectShadowStream = 0x696e647368616477ull;  // "indshadw"

// The vertices of `path` the term is taken at (indices): a surface, not a mask, from which a
// path at the next depth still sees something: from the first hit what it reflects (its emission
// is counted elsewhere), from the last vertex that scatters only emission, if anything emits; for
// shadow edges, a surface that takes direct light.
int candidate_vertices(const Scene& scene, const std::vector<VertexRecord>& path, bool shadows, int* at) {
  bool emitters = scene.environment >= 0;
  for (const Light& l : scene.lights) emitters = emitters || area_emitter(l);
  const int max_depth = scene.render.max_depth;
  int m = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    const VertexRecord& v = path[i];
    const int depth = v.state.depth;
    if (!v.events.hit || depth >= max_depth) continue;
    // Shadow edges: the vertex at the next depth takes direct light.
    if (shadows ? depth + 1 >= max_depth : depth + 1 == max_depth && (depth == 0 || !emitters)) continue;
    if (is_mask(scene.materials[scene.material_of(v.events.h.prim)])) continue;
    at[m++] = int(i);
  }
  return m;
}

// An edge point p(u) seen from x, as a dual in u (its tangent: dp/du per unit of the pick's u);
// false when the element is no silhouette from x. A voxel's point takes two more numbers of
// `more` (independent of u: the estimate stays unbiased whatever pdf u has).
bool edge_point_from(const Scene& scene, const SilhouetteElement& e, const glm::vec3& x, float u, Sampler& more,
                     BoundarySample& b, Vec3<ad::Dual<1>>& p) {
  using D1 = ad::Dual<1>;
  const glm::vec4 from = seen_from_point(x);
  if (e.kind == SilhouetteElement::Kind::voxel) return voxel_point_from(scene, e, from, true, u, more, b, p);
  if (e.kind == SilhouetteElement::Kind::segment) {
    // A smooth mesh's radiance is continuous across an edge both of whose faces x sees.
    const Shape& s = scene.shapes[e.shape];
    if (e.mesh_edge != UINT32_MAX && s.as<MeshShape>().smooth(scene) && !silhouette_from(scene, e, from))
      return false;
    b.s = u;
    p = segment_point(scene, e, u);
    return true;
  }
  Circle c;
  if (!element_circle(scene, e, from, c)) return false;
  p = circle_point(c, u);
  for (D1* c_ : {&p.x, &p.y, &p.z}) c_->d[0] *= 2.f * kPi;  // per unit of u, not of φ
  b.omega = circle_direction(scene, e, value(p));
  return true;
}

// Whether the ray from `o` reaches the edge point p unblocked (a hit of the edge's own shape right
// at p is its graze, not a block).
bool sees(const Scene& scene, const SilhouetteElement& e, const glm::vec3& o, const glm::vec3& p) {
  const glm::vec3 dir = p - o;
  const float dist = glm::length(dir);
  Hit block;
  if (!scene.bvh.intersect(Ray{o, dir / dist, dist * (1.f - 1e-4f)}, block)) return true;
  const bool own = scene.bvh.prim_ref(block.prim).shape == e.shape;
  return own && (e.kind == SilhouetteElement::Kind::circle || dist - block.t < 1e-3f * dist);
}

// The solid angle an element's point p(u) sweeps from x per unit of u, times x's f·|cos| toward it
// (its luminance): the integrand of the edge integral but for the radiance step and the motion.
float edge_density(const Scene& scene, const SilhouetteElement& e, const ShadedHit& x, float u) {
  BoundarySample scratch;
  Vec3<ad::Dual<1>> p;
  Sampler fixed(0, uint64_t(u * 0x1p24f), 0);  // a voxel's other numbers: fixed by u (a weight only)
  if (!edge_point_from(scene, e, x.y, u, fixed, scratch, p)) return 0.f;
  const glm::vec3 to = value(p) - x.y, dp_du(p.x.d[0], p.y.d[0], p.z.d[0]);
  const float d2 = glm::dot(to, to);
  if (!(d2 > 0.f)) return 0.f;
  const glm::vec3 omega = to / std::sqrt(d2);
  const glm::vec3 fc = x.f_cos(omega);
  const float lum = 0.2126f * fc.x + 0.7152f * fc.y + 0.0722f * fc.z;
  const float w = lum * glm::length(glm::cross(omega, dp_du)) / d2;
  return std::isfinite(w) && w > 0.f ? w : 0.f;
}

// Which edge, and where on it, an indirect sample takes: seen from a glossy vertex most of an
// edge lies outside the BSDF's lobe. Each element's parameter range is cut into kBins bins weighed
// by edge_density at their centres; an element is picked by its bins' sum (every element when
// there are at most kExhaustive, else by length and then its bins), a point by its bins. A
// fifth of each pick is by length and uniform in u (defensive: a lobe narrower than a bin, or
// between two centres, still gets samples), so the estimate stays unbiased.
class EdgeChoice {
 public:
  static constexpr int kBins = 9;  // a multiple of 3: a voxel element's u is three axes' planes
  static constexpr size_t kExhaustive = 64;
  static constexpr double kDefensive = 0.2;

  int element = -1;
  double probability = 0;  // of the element

  EdgeChoice(const Scene& scene, const Silhouettes& edges, const ShadedHit& x, double pick) {
    const size_t count = edges.elements.size();
    const double total = edges.total();
    if (count == 0 || !(total > 0.0)) return;
    auto by_length = [&](double v) {
      return int(std::min(size_t(std::upper_bound(edges.cdf.begin(), edges.cdf.end(), v * total) - edges.cdf.begin()), count - 1));
    };
    if (count > kExhaustive) {
      element = by_length(pick);
      probability = double(edges.elements[size_t(element)].weight) / total;
      weigh(scene, edges.elements[size_t(element)], x, bins_);
      return;
    }
    // Every element's bins; the pick's low part (a fifth) goes by length, the rest by bins.
    std::vector<std::array<float, kBins>> all(count);
    std::vector<double> sums(count);
    double sum = 0;
    for (size_t i = 0; i < count; ++i) sum += sums[i] = weigh(scene, edges.elements[i], x, all[i]);
    if (pick < kDefensive || !(sum > 0.0)) {
      element = by_length(sum > 0.0 ? pick / kDefensive : pick);
    } else {
      double acc = 0, target = (pick - kDefensive) / (1.0 - kDefensive) * sum;
      element = int(count) - 1;
      for (size_t i = 0; i < count; ++i)
        if ((acc += sums[i]) > target) {
          element = int(i);
          break;
        }
    }
    const double by_len = double(edges.elements[size_t(element)].weight) / total;
    probability = sum > 0.0 ? kDefensive * by_len + (1.0 - kDefensive) * sums[size_t(element)] / sum : by_len;
    bins_ = all[size_t(element)];
  }

  // A point u on the element from random number r, with its density pdf in u.
  float point(float r, float& pdf) const {
    double sum = 0;
    for (float w : bins_) sum += double(w);
    if (!(sum > 0.0)) {
      pdf = 1.f;
      return r;
    }
    float u;
    if (r < float(kDefensive)) {
      u = r / float(kDefensive);
    } else {
      const double target = double(r - float(kDefensive)) / (1.0 - kDefensive) * sum;
      double acc = 0;
      int b = kBins - 1;
      for (int i = 0; i < kBins; ++i)
        if (acc + double(bins_[size_t(i)]) > target) {
          b = i;
          break;
        } else {
          acc += double(bins_[size_t(i)]);
        }
      const double within = double(bins_[size_t(b)]) > 0.0 ? (target - acc) / double(bins_[size_t(b)]) : 0.5;
      u = float((double(b) + std::clamp(within, 0.0, 1.0)) / kBins);
    }
    const int b = std::min(int(u * float(kBins)), kBins - 1);
    pdf = float(kDefensive + (1.0 - kDefensive) * double(bins_[size_t(b)]) * kBins / sum);
    return u;
  }

 private:
  std::array<float, kBins> bins_{};

  static double weigh(const Scene& scene, const SilhouetteElement& e, const ShadedHit& x, std::array<float, kBins>& bins) {
    double sum = 0;
    for (int i = 0; i < kBins; ++i) sum += bins[size_t(i)] = edge_density(scene, e, x, (float(i) + 0.5f) / float(kBins));
    return sum / kBins;
  }
};

}  // namespace

bool sample_path_vertex(const Scene& scene, const Shot& shot, const CameraFrame<float>& f, const Tile& w, Sampler& sampler, bool shadows,
                        BoundarySample& b, PathVertex& out) {
  // A pixel uniform in the window, a film point in it as the pixel's samples take it, its path.
  const uint64_t width = uint64_t(w.x1 - w.x0), pixels = width * uint64_t(w.y1 - w.y0);
  const uint64_t pi = std::min(uint64_t(double(sampler.next()) * double(pixels)), pixels - 1);
  b.indirect = true;
  b.pixel = glm::ivec2(w.x0 + int(pi % width), w.y0 + int(pi / width));
  const std::optional<Tile> film = filter_film(scene, shot);
  const glm::vec2 jitter = film_jitter(scene.render.filter, sampler, b.pixel.x, b.pixel.y, film ? &*film : nullptr);
  b.film = glm::vec2(b.pixel) + jitter;
  radiance(scene, ParamView<float>(scene.params), camera_path<float>(scene, shot, camera_ray(f, b.film.x, b.film.y)), sampler, &b.path);
  // One of its vertices, uniformly.
  int at[64];
  if (b.path.size() > 64) b.path.erase(b.path.begin() + 64, b.path.end());
  const int m = candidate_vertices(scene, b.path, shadows, at);
  if (m == 0) return false;
  const int i = at[std::min(int(sampler.next() * float(m)), m - 1)];
  b.path.erase(b.path.begin() + i + 1, b.path.end());
  const VertexRecord& v = b.path.back();
  out.depth = v.state.depth;
  out.beta = to_glm(v.state.beta);
  // A filter with negative lobes drew the film point from |f|: its sign and density ratio.
  out.weight = double(pixels) * double(m) * film_jitter_weight(scene.render.filter, jitter, b.pixel.x, b.pixel.y, film ? &*film : nullptr);
  return shade_hit(scene, v.state.ray.detached(), v.events.h, out.x);
}

bool indirect_sample(const Scene& scene, const Shot& shot, const Silhouettes& edges, const CameraFrame<float>& f, const Tile& w,
                     uint64_t k, uint64_t n, BoundarySample& b, long* nonfinite) {
  if (edges.elements.empty()) return false;
  Sampler sampler(mix64(shot.seed ^ kIndirectStream), k, 0);
  PathVertex v;
  if (!sample_path_vertex(scene, shot, f, w, sampler, false, b, v)) return false;
  const ShadedHit& x = v.x;
  const ParamView<float> P(scene.params);
  // An edge and a point on it, by what x's BSDF makes of them (EdgeChoice).
  const EdgeChoice choice(scene, edges, x, (double(k) + double(sampler.next())) / double(n));
  if (choice.element < 0) return false;
  const SilhouetteElement& e = edges.elements[size_t(choice.element)];
  b.element = &e;
  float pdf_u = 0.f;
  const float u = choice.point(sampler.next(), pdf_u);
  Vec3<ad::Dual<1>> p;
  if (!(pdf_u > 0.f) || !edge_point_from(scene, e, x.y, u, sampler, b, p)) return false;
  const glm::vec3 p_f = value(p), dp_du(p.x.d[0], p.y.d[0], p.z.d[0]);
  const glm::vec3 to = p_f - x.y;
  const float dist = glm::length(to);
  if (!(dist > 16.f * x.eps)) return false;  // x on the edge's own shape, at its tangent
  const glm::vec3 omega = to / dist;
  float pdf = 0.f;
  const glm::vec3 fc = x.f_cos(omega, &pdf);
  if (!(fc.x > 0.f || fc.y > 0.f || fc.z > 0.f)) return false;
  const glm::vec3 o = x.y + x.n * (glm::dot(x.n, omega) > 0.f ? x.eps : -x.eps);
  if (!sees(scene, e, o, p_f)) return false;
  // The two sides, with the same random numbers: the side ω × dp/du points to is +.
  const glm::vec3 side = glm::cross(omega, dp_du);
  const float side_len = glm::length(side);
  if (!(side_len > 0.f)) return false;
  const glm::vec3 off = side * (kIndirectOffset * dist / side_len);
  if (b.crease && !crease_seen(scene, b, Ray{o, glm::normalize(p_f - off - o)}, Ray{o, glm::normalize(p_f + off - o)}))
    return false;
  PathState<float> state;
  state.depth = v.depth + 1;
  state.hide_emission = v.depth == 0;
  // A lamp's own silhouette: its emission with the BSDF sample's MIS weight, as the kernel takes it.
  state.specular = scene.shapes[e.shape].light < 0;
  state.bsdf_pdf = pdf;
  state.prev_p = Vec3<float>(x.y);
  state.prev_n = x.shading->frame.n;
  PathState<float> st_plus = state;
  auto ray_at = [&](float m) { return RayT<float>{Vec3<float>(o), Vec3<float>(glm::normalize(p_f + off * m - o))}; };
  const auto [m_minus, m_plus] = side_offsets(scene, P, ray_at);
  state.ray = ray_at(m_minus);
  st_plus.ray = ray_at(m_plus);
  Sampler other = sampler;
  const glm::vec3 minus = value(radiance(scene, P, state, sampler));
  const glm::vec3 plus = value(radiance(scene, P, st_plus, other));
  // 1 / (n pdf): the pixel and the vertex (v.weight), the edge and the point on it.
  const double scale = v.weight / (choice.probability * double(pdf_u)) / double(n);
  b.delta = glm::vec3(glm::dvec3(v.beta * fc * (minus - plus)) * scale);
  b.seen = side / (dist * dist);
  if (!all_finite(glm::dvec3(b.delta))) {
    if (nonfinite) ++*nonfinite;
    return false;
  }
  return b.delta != glm::vec3(0.f);
}

bool indirect_shadow_sample(const Scene& scene, const Shot& shot, const ShadowEdges& edges, const CameraFrame<float>& f, const Tile& w,
                            uint64_t k, uint64_t n, BoundarySample& b, long* nonfinite) {
  if (edges.lights.empty()) return false;
  Sampler sampler(mix64(shot.seed ^ kIndirectShadowStream), k, 0);
  PathVertex v;
  if (!sample_path_vertex(scene, shot, f, w, sampler, true, b, v)) return false;
  ShadowSegment seg;
  if (!shadow_segment(scene, edges, sampler, k, n, b, seg)) return false;
  // x must see the shadow point y, on the receiver, from a side its BSDF takes.
  const ShadedHit& x = v.x;
  const glm::vec3 y = value(seg.y), dy_du(seg.y.x.d[0], seg.y.y.d[0], seg.y.z.d[0]);
  const glm::vec3 to = y - x.y;
  const float dist = glm::length(to);
  if (!(dist > 16.f * x.eps)) return false;
  const glm::vec3 omega = to / dist;
  const glm::vec3 fc = x.f_cos(omega);
  if (!(fc.x > 0.f || fc.y > 0.f || fc.z > 0.f)) return false;
  const glm::vec3 o = x.y + x.n * (glm::dot(x.n, omega) > 0.f ? x.eps : -x.eps);
  Hit hit;
  if (!scene.bvh.intersect(Ray{o, glm::normalize(y - o)}, hit) || hit.prim != b.receiver ||
      !(std::fabs(hit.t - glm::length(y - o)) < 1e-3f * dist))
    return false;
  // The step: the light point's direct light at the receiver on either side, seen from x.
  const glm::vec3 side = glm::cross(omega, dy_du);
  const float side_len = glm::length(side);
  if (!(side_len > 0.f)) return false;
  const glm::vec3 off = side * (kIndirectOffset * dist / side_len);
  const Light& light = *seg.light;
  const glm::vec3 minus = direct_from(scene, light, seg.q, seg.nq, b.light_prim, Ray{o, glm::normalize(y - off - o)});
  const glm::vec3 plus = direct_from(scene, light, seg.q, seg.nq, b.light_prim, Ray{o, glm::normalize(y + off - o)});
  b.delta = glm::vec3(glm::dvec3(v.beta * fc * (minus - plus)) * (v.weight * seg.weight / double(n)));
  b.seen = side / (dist * dist);
  if (!all_finite(glm::dvec3(b.delta))) {
    if (nonfinite) ++*nonfinite;
    return false;
  }
  return b.delta != glm::vec3(0.f);
}

}  // namespace dray
