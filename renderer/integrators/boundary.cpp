#include "renderer/integrators/boundary.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <glm/geometric.hpp>
#include <omp.h>

#include "ad/dual.h"
#include "ad/exact_gradient.h"
#include "ad/var.h"
#include "renderer/integrators/integrator.h"
#include "renderer/core/parallel.h"
#include "renderer/integrators/pixel_estimate.h"
#include "renderer/sensors/pixel_filter.h"

namespace dray {

long default_boundary_samples(const Scene& scene, const Tile& w) {
  if (scene.render.boundary_samples >= 0) return scene.render.boundary_samples;
  const RenderSettings& r = scene.render;
  if (!r.primary_visibility && !r.shadow_visibility && r.indirect_samples == 0) return 0;  // Mitsuba's sppp and sppi 0
  const long pixels = long(w.x1 - w.x0) * long(w.y1 - w.y0);
  return std::max(1024L, long(double(pixels) * double(scene.render.spp) * scene.render.boundary_ratio));
}

bool moves_edges(const Scene& scene, const Shot& shot, std::span<const Slot> slots) {
  auto in = [](Slot s, Slot first, Slot n) { return first != kNoSlot && s >= first && s < first + n; };
  const Camera& camera = scene.camera(shot);
  if (sensor_edges(camera.model) == SensorEdges::none) return false;  // no film area: no boundary term
  for (Slot s : slots) {
    if (scene.moves_geometry(s) || is_camera_slot(camera, s)) return true;
    for (const Light& l : scene.lights)  // a point light's position, a directional one's direction
      if (in(s, light_place(l), 3)) return true;
  }
  return false;
}

namespace {

// The boundary term is built for a film edges are projected onto (sensors/camera.h's kEdges): a
// sensor that refuses it (a thin lens: every aperture point sees its own silhouettes, and
// Mitsuba's projective integrators refuse it too) ends the pass.
void check_boundary_support(const Camera& camera) {
  if (sensor_edges(camera.model) == SensorEdges::refused)
    throw std::runtime_error("camera type " + std::string(sensor_type(camera.model)) +
                             ": derivatives by parameters that move edges (a shape's geometry, the camera's pose, "
                             "field of view, aperture or focus, a point light's position) are not supported through "
                             "it; render them with a perspective camera");
}

}  // namespace

bool in_shading_band(const Scene& scene, const ParamView<float>& P, const RayT<float>& ray) {
  Hit hit;
  if (!scene.bvh.intersect(ray.detached(), hit)) return false;
  const PrimT<float> prim = lift_prim(scene, P, hit.prim);
  const SurfacePoint<float> sp = eval_hit(prim, ray, hit, 0.f);
  const Vec3<float> ns = shading_normal(scene, P, hit.prim, prim, sp.p, sp.n);
  return (dot(sp.n, ray.d) > 0.f) != (dot(ns, ray.d) > 0.f);
}

namespace {

// The boundary samples' own random stream: (seed, sample index), apart from the pixels' streams.
constexpr uint64_t kBoundaryStream = 0x626f756e64617279ull;  // "boundary"

// A point on a segment element, uniform in film length over its window part. Returns the film
// point and fills the sample's s and normal; `jacobian` is 1 / pdf per unit film length.
glm::vec2 sample_segment(const Scene& scene, const CameraFrame<float>& f, const SilhouetteElement& e, float u,
                         BoundarySample& b, float& jacobian) {
  glm::vec3 p0, p1;
  segment_endpoints(scene, e, p0, p1);
  const glm::vec3 q0 = p0 + (p1 - p0) * e.s0, q1 = p0 + (p1 - p0) * e.s1;
  const FilmPoint<float> a = project(f, Vec3<float>(q0)), c = project(f, Vec3<float>(q1));
  const glm::vec2 fa(a.x, a.y), fc(c.x, c.y);
  const float t = e.t0 + u * (e.t1 - e.t0);
  // Linear on the film is perspective-correct in depth along the segment.
  const float s_clipped = t * a.depth / ((1.f - t) * c.depth + t * a.depth);
  b.s = e.s0 + s_clipped * (e.s1 - e.s0);
  const glm::vec2 d = fc - fa;
  b.normal = glm::normalize(glm::vec2(-d.y, d.x));
  jacobian = e.weight;  // the element's film length: the point is uniform on it
  return fa + d * t;
}

// A point on a sphere's tangent circle, uniform in angle; false when it lies behind the camera.
bool sample_circle(const Scene& scene, const CameraFrame<float>& f, const SilhouetteElement& e, float u,
                   BoundarySample& b, float& jacobian, glm::vec2& x) {
  Circle c;
  if (!element_circle(scene, e, seen_from_camera(f), c)) return false;
  const float phi = 2.f * kPi * u;
  const glm::vec3 p = c.centre + (c.u * std::cos(phi) + c.v * std::sin(phi)) * c.radius;
  const glm::vec3 dp = (c.v * std::cos(phi) - c.u * std::sin(phi)) * c.radius;  // d p / d phi
  const FilmPoint<float> q = project(f, Vec3<float>(p));
  const float z = q.depth;
  if (!(z > 0.f)) return false;
  const glm::vec2 dx = camera_film_motion(f, p, dp, z);  // d film / d phi
  const float speed = glm::length(dx);
  if (!(speed > 0.f)) return false;
  x = {q.x, q.y};
  b.normal = glm::vec2(-dx.y, dx.x) / speed;
  b.omega = circle_direction(scene, e, p);
  jacobian = 2.f * kPi * speed;
  return true;
}

// Whether a mesh edge's sample measures its own step. Its two offset rays straddle the edge and
// take whatever steps lie within the offset: a crease of a flat-shaded mesh that is no silhouette
// from the eye steps only where its two faces meet on the film, so both rays must hit them (the
// inner edge of a face seen nearly edge-on lies within the offset of the outline: its rays would
// count the outline's step a second time); an open edge must have one ray on a face touching it
// (a cylinder's back rim seen side-on lies on its front rim's film line). A silhouette counts as
// it is: where its front face is thinner than the offset, its rays measure the step from the
// faces inside to the background, which is the outline's whole step.
bool edge_seen(const Scene& scene, const CameraFrame<float>& f, const BoundarySample& b, glm::vec2 x, glm::vec2 off) {
  const SilhouetteElement& e = *b.element;
  if (e.kind == SilhouetteElement::Kind::voxel)
    return !b.crease || crease_seen(scene, b, camera_ray(f, x.x - off.x, x.y - off.y).detached(),
                                    camera_ray(f, x.x + off.x, x.y + off.y).detached());
  if (e.kind != SilhouetteElement::Kind::segment || e.mesh_edge == UINT32_MAX) return true;
  const Shape& s = scene.shapes[e.shape];
  if (!s.is<MeshShape>()) return true;
  const Mesh& m = scene.meshes[s.as<MeshShape>().mesh];
  const MeshEdge& edge = m.edges[e.mesh_edge];
  const bool open = edge.f1 == MeshEdge::kOpen;
  if (!open && silhouette_from(scene, e, seen_from_camera(f))) return true;
  int own = 0, touching = 0;
  for (const float side : {-1.f, 1.f}) {
    Hit hit;
    if (!scene.bvh.intersect(camera_ray(f, x.x + side * off.x, x.y + side * off.y).detached(), hit)) continue;
    const PrimRef ref = scene.bvh.prim_ref(hit.prim);
    if (ref.shape != e.shape) continue;
    own += ref.index == edge.f0 || ref.index == edge.f1;
    const uint32_t* tri = &m.indices[3 * size_t(ref.index)];
    for (int k = 0; k < 3; ++k)
      if (tri[k] == edge.v0 || tri[k] == edge.v1) {
        ++touching;
        break;
      }
  }
  return open ? touching > 0 : own == 2;
}

}  // namespace

bool boundary_sample(const Scene& scene, const Shot& shot, const Silhouettes& edges, const CameraFrame<float>& f, const Tile& w,
                     uint64_t k, uint64_t n, BoundarySample& b, long* nonfinite) {
  if (edges.elements.empty()) return false;
  Sampler sampler(mix64(shot.seed ^ kBoundaryStream), k, 0);
  // Stratified over the edges by sample index: each edge gets its share of the n samples to
  // within one, whichever rank draws them.
  const double pick = (double(k) + double(sampler.next())) / double(n) * edges.total();
  const size_t i = std::min(size_t(std::upper_bound(edges.cdf.begin(), edges.cdf.end(), pick) - edges.cdf.begin()),
                            edges.elements.size() - 1);
  const SilhouetteElement& e = edges.elements[i];
  b.element = &e;
  float jacobian = 0.f;
  glm::vec2 x;
  const float u = sampler.next();
  if (e.kind == SilhouetteElement::Kind::segment) {
    x = sample_segment(scene, f, e, u, b, jacobian);
  } else if (e.kind == SilhouetteElement::Kind::voxel) {
    if (!sample_voxel(scene, shot, f, e, u, sampler, b, jacobian, x)) return false;
  } else if (!sample_circle(scene, f, e, u, b, jacobian, x)) {
    return false;
  }
  if (!(x.x >= float(w.x0) && x.x < float(w.x1) && x.y >= float(w.y0) && x.y < float(w.y1))) return false;
  b.film = x;
  const glm::vec2 off = b.normal * kEdgeOffset;
  if (!edge_seen(scene, f, b, x, off)) return false;
  // The two sides, with the same random numbers.
  const ParamView<float> P(scene.params);
  auto ray_at = [&](float m) { return camera_ray(f, x.x + m * off.x, x.y + m * off.y); };
  const auto [m_minus, m_plus] = side_offsets(scene, P, ray_at);
  Sampler other = sampler;
  const glm::vec3 minus = value(radiance(scene, P, ray_at(m_minus), sampler));
  const glm::vec3 plus = value(radiance(scene, P, ray_at(m_plus), other));
  // 1 / (n pdf): the element's pick probability is weight / total (every listed weight is > 0).
  const double scale = edges.total() / double(e.weight) * double(jacobian) / double(n);
  b.delta = glm::vec3(glm::dvec3(minus - plus) * scale);
  if (!all_finite(glm::dvec3(b.delta))) {
    if (nonfinite) ++*nonfinite;
    return false;
  }
  return b.delta != glm::vec3(0.f);
}

namespace {

// One pass's edges: camera silhouettes (samples 0 .. n-1, none without render.primary_visibility:
// Mitsuba's sppp 0); when any light casts hard shadows, shadow edges (the next n/2: each costs a
// few rays, not two paths, and their steps carry no Monte Carlo noise); when paths bounce
// (max_depth >= 2), edges seen from their vertices (the next render.indirect_samples, by default n:
// a camera path and two paths from its vertex each), and shadow edges seen from them (half as
// many: a camera path and a few rays). Without render.shadow_visibility (Mitsuba's sppi 0, with
// indirect_samples 0) no shadow edges: a shadow edge is a discontinuity of a shadow ray.
struct BoundaryPass {
  const Scene& scene;
  Shot shot;
  Tile window;
  long n;
  long primary;  // camera-silhouette samples: n, or 0
  Silhouettes silhouettes;
  ShadowEdges shadows;
  Silhouettes seen;  // edges for the indirect samples
  CameraFrame<float> frame;

  Tile reach;  // the window widened by the filter's reach: edges there still touch its pixels
  std::optional<Tile> film;  // the film pixel filters are cut to (filter_film)

  BoundaryPass(const Scene& s, const Shot& sh, const Tile& w, long n_)
      : scene(s), shot(sh), window(w), n(n_), primary(s.render.primary_visibility ? n_ : 0),
        silhouettes(primary > 0 ? find_silhouettes(s, sh, widened(w, s.render.filter)) : Silhouettes{}),
        shadows(s.render.shadow_visibility ? find_shadow_edges(s) : ShadowEdges{}),
        seen(s.render.max_depth >= 2 && n_ > 0 && s.render.indirect_samples != 0 ? indirect_edges(s) : Silhouettes{}),
        frame(camera_frame(s.camera(sh), ParamView<float>(s.params))), reach(widened(w, s.render.filter)), film(filter_film(s, sh)) {}

  long shadow_count() const { return shadows.lights.empty() ? 0 : std::max(1L, n / 2); }
  // Edges seen from path vertices: silhouettes, and half as many shadow edges.
  long indirect_count() const {
    return seen.elements.empty() || n == 0 ? 0 : scene.render.indirect_samples >= 0 ? scene.render.indirect_samples : n;
  }
  long indirect_shadow_count() const { return shadows.lights.empty() || indirect_count() == 0 ? 0 : std::max(1L, indirect_count() / 2); }
  long total() const { return primary + shadow_count() + indirect_count() + indirect_shadow_count(); }
  bool sample(uint64_t k, BoundarySample& b, long* nonfinite) const {
    if (k < uint64_t(primary)) return boundary_sample(scene, shot, silhouettes, frame, reach, k, uint64_t(primary), b, nonfinite);
    k -= uint64_t(primary);
    if (k < uint64_t(shadow_count()))
      return shadow_sample(scene, shot, shadows, frame, reach, k, uint64_t(shadow_count()), b, nonfinite);
    k -= uint64_t(shadow_count());
    if (k < uint64_t(indirect_count()))
      return indirect_sample(scene, shot, seen, frame, window, k, uint64_t(indirect_count()), b, nonfinite);
    k -= uint64_t(indirect_count());
    return indirect_shadow_sample(scene, shot, shadows, frame, window, k, uint64_t(indirect_shadow_count()), b, nonfinite);
  }
  // The pixels a sample adds to, with their weights: an edge point's filter footprint, or an
  // indirect sample's own pixel (its film point was drawn from the pixel's filter).
  template <class F>
  void for_each_pixel(const BoundarySample& b, F&& f) const {
    if (b.indirect) f(b.pixel.x, b.pixel.y, 1.0);
    else for_each_footprint_pixel(scene.render.filter, b.film, window, film ? &*film : nullptr, f);
  }
};

}  // namespace

BoundarySplat boundary_splat(const Scene& scene, const Shot& shot, std::span<const Slot> wrt, const Tile& window, long n, int first,
                             int stride, int threads) {
  const size_t m = wrt.size();
  BoundarySplat out;  // no sums: nothing to add (every rank decides alike)
  if (m == 0 || n <= 0 || !moves_edges(scene, shot, wrt)) return out;
  const Camera& camera = scene.camera(shot);
  check_boundary_support(camera);
  out.sums.assign(size_t(camera.width) * size_t(camera.height) * m * 3, ad::FixedSum{});
  const BoundaryPass pass(scene, shot, window, n);
  // Per batch: its samples' (pixel offset, value) pairs; summed afterwards, exactly, in one thread.
  std::vector<std::vector<std::pair<size_t, double>>> batch_out(size_t(batches_of(pass.total(), first, stride)));
  std::vector<long> batch_nonfinite(batch_out.size(), 0), batch_samples(batch_out.size(), 0);
  using D = ad::Dual<kMaxTangents>;
  std::vector<Seeds> chunk_seeds;  // per chunk of kMaxTangents scalars: slot -> tangent
  for (size_t c0 = 0; c0 < m; c0 += kMaxTangents)
    chunk_seeds.emplace_back(scene.params.values().size(), wrt.subspan(c0, std::min(m - c0, size_t(kMaxTangents))));
  for_each_sample(pass.total(), first, stride, threads, [&](int j, uint64_t k) {
    BoundarySample b;
    if (!pass.sample(k, b, &batch_nonfinite[size_t(j)])) return;
    ++batch_samples[size_t(j)];
    for (size_t c0 = 0; c0 < m; c0 += kMaxTangents) {
      const ParamView<D> P(scene.params, chunk_seeds[c0 / kMaxTangents]);
      const D motion = boundary_motion(scene, P, camera_frame(camera, P), b);
      pass.for_each_pixel(b, [&](int px, int py, double weight) {
        const size_t base = (size_t(py) * size_t(camera.width) + size_t(px)) * m * 3;
        for (size_t t = c0; t < std::min(m, c0 + kMaxTangents); ++t)
          for (int c = 0; c < 3; ++c)
            batch_out[size_t(j)].push_back(
                {base + t * 3 + size_t(c), weight * double(b.delta[c]) * double(ad::tangent(motion, int(t - c0)))});
      });
    }
  });
  out.drawn = samples_of(pass.total(), first, stride);
  for (size_t j = 0; j < batch_out.size(); ++j) {
    for (const auto& [at, v] : batch_out[j])
      if (!out.sums[at].add(v)) ++out.nonfinite;
    out.nonfinite += batch_nonfinite[j];
    out.samples += batch_samples[j];
  }
  return out;
}

void add_boundary_splat(Image& image, const RenderOutputs& outputs, const Tile& w, const BoundarySplat& splat) {
  const size_t m = outputs.wrt.size();
  if (m == 0 || splat.sums.empty()) return;
  for (int y = w.y0; y < w.y1; ++y)
    for (int x = w.x0; x < w.x1; ++x) {
      float* px = image.pixel(x, y);
      const size_t base = (size_t(y) * size_t(image.width) + size_t(x)) * m * 3;
      for (size_t t = 0; t < m; ++t)
        for (int c = 0; c < 3; ++c) {
          float& d = px[outputs.derivative_channel(t) + c];
          d = to_image_float(double(d) + splat.sums[base + t * 3 + size_t(c)].value());
        }
    }
}

long boundary_gradient(const Scene& scene, const Shot& shot, const Image& dloss, std::span<const Slot> params, long n, int first,
                       int stride, int threads, std::span<ad::FixedSum> gradient) {
  if (params.empty() || n <= 0 || !moves_edges(scene, shot, params)) return 0;
  const Camera& camera = scene.camera(shot);
  check_boundary_support(camera);
  const BoundaryPass pass(scene, shot, Tile{0, 0, camera.width, camera.height}, n);
  const Seeds seeds(scene.params.values().size(), params);
  const ParamView<ad::Var> P(scene.params, seeds);
  // One accumulator per thread (no two threads add to one); a sample is one unit.
  ad::ExactGradient acc(threads, params.size());
  std::vector<long> dropped(size_t(threads), 0);
  for_each_sample(pass.total(), first, stride, threads, [&](int, uint64_t k) {
    const int me = omp_get_thread_num();
    BoundarySample b;
    if (!pass.sample(k, b, &dropped[size_t(me)])) return;
    double sum = 0.0;  // Σ over the footprint of weight · dLoss/dpixel · delta
    pass.for_each_pixel(b, [&](int px, int py, double w) {
      const float* a = dloss.pixel(px, py);
      const float dot = a[0] * b.delta[0] + a[1] * b.delta[1] + a[2] * b.delta[2];
      sum += w == 1.0 ? double(dot) : w * double(dot);
    });
    const float weight = float(sum);
    if (weight == 0.f) return;
    ad::Tape& tape = ad::Tape::local();
    tape.clear();
    const ad::Var motion = boundary_motion(scene, P, camera_frame(camera, P), b);
    tape.begin_adjoints();
    tape.seed(motion.i, weight);
    ad::ThreadGradient& mine = acc.thread(me);
    if (!tape.backward_to([&](int g, float adj) { mine.stage(size_t(g), double(adj)); }) || !mine.commit())
      ++dropped[size_t(me)];
    tape.clear();
  });
  acc.merge_into(gradient);  // refused units are counted in `dropped` already
  long n_dropped = 0;
  for (long d : dropped) n_dropped += d;
  return n_dropped;
}

}  // namespace dray
