#pragma once
// The boundary term of the derivatives: what the interior term (taken at fixed film samples)
// misses where visibility is discontinuous. A pixel's value is the integral of radiance L over
// its area; when a parameter θ moves an edge of the image, the pixel changes by
//   ∫ (L⁻ − L⁺) (n · ∂x/∂θ) dℓ   over the edge inside the pixel,
// with n the edge's film normal, L⁺ the radiance on the side n points to and ∂x/∂θ the film
// motion of the edge. Samples pick an edge by its film length (integrators/silhouette.h) and a point
// on it; L⁻ − L⁺ comes from two float paths at ±ε across the edge (the same random numbers); the
// motion from the edge's *material point* (mesh vertices or quad corners lifted in T with the
// edge parameter detached; for a sphere c + r·ω with ω detached) projected through the camera in
// T (Li et al. 2018; Mitsuba 3's reparameterisation-free projective sampling uses the same
// material-point motion). Forward mode splats W·(n·ẋ) into the pixels whose filter footprint holds
// the point (renderer/sensors/pixel_filter.h); reverse mode seeds n·x with W·Σ weight·dLoss/dpixel over
// them. Samples depend on (seed, sample index) only.
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <glm/vec2.hpp>

#include "ad/dual.h"
#include "ad/fixed_sum.h"
#include "renderer/integrators/silhouette.h"
#include "renderer/image/image.h"
#include "renderer/integrators/radiance.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/integrators/shading_frame.h"
#include "renderer/integrators/surface.h"
#include "renderer/core/transform.h"

namespace dray {

// The film offset of the two paths across an edge, in pixels.
inline constexpr float kEdgeOffset = 1e-3f;

// The default count of camera-silhouette samples: one per 20 pixel samples of the window (two
// paths each, on edges where paths are costlier than average); shadow edges get half as many.
long default_boundary_samples(const Scene& scene, const Tile& window);

// Whether any of the scalars moves an edge of the image (a shape's geometry, the camera, a point
// light's position):
// otherwise the boundary term is zero and is skipped.
bool moves_edges(const Scene& scene, const Shot& shot, std::span<const Slot> slots);

// Whether a ray meets a surface whose shading normal (a smooth mesh's, an sdfgrid's) and geometric
// normal lie on different sides of it: the band such a normal leaves just inside a silhouette,
// thinner than the edge offset, where a reflecting BSDF sees nothing.
bool in_shading_band(const Scene& scene, const ParamView<float>& P, const RayT<float>& ray);

// The offsets, in multiples of the edge offset, of an edge's two sides, whose rays are
// ray_at(multiple): -1 and +1; but where one side's ray lies in a shading band and the other's
// does not, the band's side moves on, away from the edge by doubling multiples (up to 1024), to
// the first ray past the band. The band's inner edge is a discontinuity of its own that moves
// with the silhouette: the step to the radiance past it counts both edges' steps at the
// silhouette's motion, exact as the band's width goes to zero (without it, a smooth sphere's
// d/dx was 27% too large). Where both sides lie in the band (a crease inside it) the step is 0.
template <class RayAt>
std::pair<float, float> side_offsets(const Scene& scene, const ParamView<float>& P, const RayAt& ray_at) {
  std::pair<float, float> sides{-1.f, 1.f};
  const bool minus = in_shading_band(scene, P, ray_at(-1.f));
  if (minus == in_shading_band(scene, P, ray_at(1.f))) return sides;
  float& m = minus ? sides.first : sides.second;
  for (float k = 2.f; k <= 1024.f; k *= 2.f)
    if (!in_shading_band(scene, P, ray_at(m * k))) {
      m *= k;
      break;
    }
  return sides;
}

// Indirect samples: the angular offset of the two paths across an edge seen from a path vertex.
inline constexpr float kIndirectOffset = 1e-5f;

struct BoundarySample {
  glm::vec2 film{0.f};    // the edge point on the film (it adds to the pixels whose filter holds it)
  glm::vec2 normal{0.f};  // unit film normal of the edge at the point
  glm::vec3 delta{0.f};   // (L⁻ − L⁺) / (sample count · pdf of the point per unit film length)
  // The edge's material point: on a silhouette, or for a shadow on the occluder's edge.
  const SilhouetteElement* element = nullptr;
  float s = 0;            // segment: the point's parameter along v0 -> v1
  glm::vec3 omega{0.f};   // circle: the point's direction from the sphere's centre; voxel: its grid point
  bool crease = false;    // voxel: a shading edge (an analytic normal's crease) that is no silhouette
  // Shadows: the shadow edge is where the line from the light point q through the occluder's
  // edge point meets the receiver's plane (through the receiver's material point, its normal fixed).
  bool shadow = false;
  uint32_t light = 0;           // index into Scene::lights
  uint32_t light_prim = 0;      // area light: the primitive q was drawn on, with numbers lu, lv
  float lu = 0, lv = 0;
  glm::vec3 light_dir{0.f};     // environment: the direction ω toward the light
  uint32_t receiver = 0;        // BVH primitive the shadow falls on
  PrimCoords receiver_at;       // its material point there
  glm::vec3 receiver_normal{0.f};
  // Indirect: the edge seen from vertex x of a camera path (the last of `path`, as its float pass
  // recorded it) that adds to `pixel` alone; the step's motion is seen · (p − x) (seen: ω × dp/du
  // over the distance squared, for the edge point p(u) in direction ω from x).
  bool indirect = false;
  glm::ivec2 pixel{0};
  glm::vec3 seen{0.f};
  std::vector<VertexRecord> path;
};

// A surface a float ray hit, shaded as the integrator shades it (the BSDF of the side seen, its
// frame facing the ray unless it transmits), for the boundary terms' steps.
struct ShadedHit {
  glm::vec3 y{0.f}, n{0.f};  // the point, and its geometric normal on the side the BSDF sees
  float eps = 0;             // the ray offset there
  const Bsdf* bsdf = nullptr;
  std::optional<ShadingFrame<float>> shading;
  std::optional<Inputs<float>> in;
  Vec3<float> wo;
  float opacity = 1;  // a mask's
  // f · |cos| toward unit world direction d (times a normal map's light factor and a mask's
  // opacity; 0 where d would leak through the surface), and the pdf of sampling d in *pdf.
  glm::vec3 f_cos(const glm::vec3& d, float* pdf = nullptr) const;
};
// False where the hit's BSDF has no smooth lobe (Dirac lobes only).
bool shade_hit(const Scene& scene, const Ray& ray, const Hit& hit, ShadedHit& out);

// The shadow-casting edges of one pass: per light (point, area, environment), its occluder edges
// (occluder_edges: silhouettes from a point light; candidates for an area light or an
// environment, tested per sample).
struct ShadowEdges {
  std::vector<uint32_t> lights;
  std::vector<Silhouettes> edges;
};
ShadowEdges find_shadow_edges(const Scene& scene);

// Shadow sample k of n: a light, a point q on it, an occluder edge point p seen from q, the
// receiver y behind p, and the radiance step across the shadow edge at y's film position (the
// direct light from q, analytic: no Monte Carlo noise). False when it adds nothing.
bool shadow_sample(const Scene& scene, const Shot& shot, const ShadowEdges& edges, const CameraFrame<float>& frame,
                   const Tile& window, uint64_t k, uint64_t n, BoundarySample& out, long* nonfinite = nullptr);

// A vertex of a camera path, for the edges seen from it: the path through a pixel uniform in the
// window (b.pixel, b.film; b.path up to the vertex), the vertex uniform among those the term is
// taken at (for shadow edges, those whose next vertex takes direct light), shaded.
struct PathVertex {
  ShadedHit x;
  glm::vec3 beta{0.f};  // the path's throughput arriving there
  double weight = 0;    // 1 / pdf of the pixel and the vertex
  int depth = 0;
};
bool sample_path_vertex(const Scene& scene, const Shot& shot, const CameraFrame<float>& frame, const Tile& window, Sampler& sampler,
                        bool shadows, BoundarySample& b, PathVertex& out);

// Indirect shadow sample k of n: a camera path's vertex x (sample_path_vertex) and a shadow edge
// drawn as shadow_sample draws it, seen from x: the step is the light's direct light at the
// receiver on either side, seen along the two rays from x. False when it adds nothing.
bool indirect_shadow_sample(const Scene& scene, const Shot& shot, const ShadowEdges& edges, const CameraFrame<float>& frame,
                            const Tile& window, uint64_t k, uint64_t n, BoundarySample& out, long* nonfinite = nullptr);

// The edges that can be seen from a path vertex (every occluder edge, tested per sample).
Silhouettes indirect_edges(const Scene& scene);

// Indirect sample k of n (Li et al. 2018's secondary edges): a camera path through pixel k mod
// (window pixels), one of its vertices x with a smooth BSDF, an edge point p seen from x, and the
// step across the edge in direction ω = p − x: two paths from x at ±kIndirectOffset across it,
// times f·|cos| at x and the path's throughput. False when it adds nothing.
bool indirect_sample(const Scene& scene, const Shot& shot, const Silhouettes& edges, const CameraFrame<float>& frame, const Tile& window,
                     uint64_t k, uint64_t n, BoundarySample& out, long* nonfinite = nullptr);

// A silhouette point of voxel element e (an sdfgrid's) seen from `from` (homogeneous), from the
// number u and two more of `sampler`, as a dual in the pick (its derivative: the world tangent
// over the point's pdf, so that |dp/du| du is the length measure); its object point in b.omega.
// False when the drawn plane meets no silhouette point (the estimate is then 0). `shading_edges`:
// an analytic-normal grid's creases facing `from` count too (b.crease set for them).
bool voxel_point_from(const Scene& scene, const SilhouetteElement& e, const glm::vec4& from, bool shading_edges,
                      float u, Sampler& sampler, BoundarySample& b, Vec3<ad::Dual<1>>& p);
// Whether the rays either side of b's crease (a shading edge of an analytic-normal sdfgrid that is
// no silhouette) both meet its shape within a voxel of the point, as a flat mesh's crease needs
// both its faces: hidden, or within the offset of an outline (where creases crowd as the surface
// turns away), its rays would measure another edge's step.
bool crease_seen(const Scene& scene, const BoundarySample& b, const Ray& minus, const Ray& plus);
// The same seen from the camera: the film point x, its edge normal in b, and 1 / pdf per unit
// film length in jacobian.
bool sample_voxel(const Scene& scene, const Shot& shot, const CameraFrame<float>& f, const SilhouetteElement& e, float u,
                  Sampler& sampler, BoundarySample& b, float& jacobian, glm::vec2& x);

// A segment element's point at edge parameter u, and a circle's at angle 2πu, as functions of
// the parameter (a dual: its tangent is the derivative along the edge; per unit of φ for the
// circle).
inline Vec3<ad::Dual<1>> segment_point(const Scene& scene, const SilhouetteElement& e, float u) {
  using D1 = ad::Dual<1>;
  glm::vec3 p0, p1;
  segment_endpoints(scene, e, p0, p1);
  return Vec3<D1>(p0) + Vec3<D1>(p1 - p0) * D1(u, 0);
}
inline Vec3<ad::Dual<1>> circle_point(const Circle& c, float u) {
  using D1 = ad::Dual<1>;
  const D1 phi(2.f * kPi * u, 0);
  return Vec3<D1>(c.centre) + (Vec3<D1>(c.u) * ad::cos(phi) + Vec3<D1>(c.v) * ad::sin(phi)) * D1(c.radius);
}

// Boundary sample k of n. False when it adds nothing: outside the window, no radiance step, or
// a non-finite one (counted in *nonfinite).
bool boundary_sample(const Scene& scene, const Shot& shot, const Silhouettes& edges, const CameraFrame<float>& frame,
                     const Tile& window, uint64_t k, uint64_t n, BoundarySample& out, long* nonfinite = nullptr);

// n · x(θ) for the sample's material point: its derivative is the edge's normal velocity on the
// film, in pixels.
template <class T>
Vec3<T> edge_point(const Scene& scene, const ParamView<T>& P, const BoundarySample& b) {
  const SilhouetteElement& e = *b.element;
  const Shape& s = scene.shapes[e.shape];
  Vec3<T> p;
  if (e.kind == SilhouetteElement::Kind::voxel) {  // the grid point under the grid's map
    Vec3<T> a, bb, c, d;
    const SdfGrid& g = scene.world_grid(e.shape);
    p = sdf_world_map(scene, P, s, a, bb, c, d) ? a * T(b.omega.x) + bb * T(b.omega.y) + c * T(b.omega.z) + d
                                                 : Vec3<T>(g.linear * b.omega + g.offset);
  } else {
    // The material point its shape places: a circle's direction from the centre, a segment's
    // fraction s between its two vertices.
    std::visit([&](const auto& plugin) {
      if constexpr (requires { plugin.point_at(P, b.omega); }) {
        p = plugin.point_at(P, b.omega);
      } else if constexpr (requires(Vec3<T>& v) { plugin.edge_vertices(scene, P, s, e.v0, e.v1, v, v); }) {
        Vec3<T> v0, v1;
        plugin.edge_vertices(scene, P, s, e.v0, e.v1, v0, v1);
        p = v0 + (v1 - v0) * T(b.s);
      }
    }, s.model);
  }
  return p;
}

// The shadow point: the line from the light point through the occluder's edge point, met with
// the receiver's plane, all as material points in T.
template <class T>
Vec3<T> shadow_point(const Scene& scene, const ParamView<T>& P, const BoundarySample& b, const Vec3<T>& p) {
  const Light& light = scene.lights[b.light];
  // The light point q; from infinitely far, any point along the line from p toward the light
  // (a directional light's direction is a parameter: in T).
  const EmitterPlacement at = placement(light);
  const Vec3<T> q = at == EmitterPlacement::point       ? P.vec3(light_place(light))
                    : at == EmitterPlacement::sky       ? p + Vec3<T>(b.light_dir)
                    : at == EmitterPlacement::direction ? p - normalize(P.vec3(light_place(light)))
                                                        : sample_prim(lift_prim(scene, P, b.light_prim), b.lu, b.lv).p;
  const PrimT<T> rp = lift_prim(scene, P, b.receiver);
  const Vec3<T> r = prim_point(rp, b.receiver_at);
  const Vec3<T> n(b.receiver_normal);
  const T t = dot(r - q, n) / dot(p - q, n);
  return q + (p - q) * t;
}

// An indirect sample's vertex x(θ): its path replayed in T from the camera ray through the
// sample's film point (the interior term's parameterisation: fixed film point, BSDF-sampled
// directions fixed, Dirac ones turning in T), met with the surface it hit.
template <class T>
Vec3<T> indirect_vertex(const Scene& scene, const ParamView<T>& P, const CameraFrame<T>& frame, const BoundarySample& b) {
  PathState<T> state;
  state.ray = camera_ray(frame, b.film.x, b.film.y);
  for (size_t j = 0; j + 1 < b.path.size(); ++j) {
    Sampler s = b.path[j].sampler;
    VertexEvents events = b.path[j].events;
    path_vertex(scene, P, state, s, events, true);
  }
  const Hit& h = b.path.back().events.h;
  return eval_hit(lift_prim(scene, P, h.prim), state.ray, h, 0.f).p;
}

// n · x(θ) for the sample's material point (the silhouette's point, or the shadow point): its
// derivative is the edge's normal velocity on the film, in pixels. Indirect: seen · (p − x(θ)),
// whose derivative is the edge's normal velocity on the sphere of directions at x, per dp/du.
template <class T>
T boundary_motion(const Scene& scene, const ParamView<T>& P, const CameraFrame<T>& frame, const BoundarySample& b) {
  Vec3<T> p = edge_point(scene, P, b);
  if (b.shadow) p = shadow_point(scene, P, b, p);
  if (b.indirect) return dot(Vec3<T>(b.seen), p - indirect_vertex(scene, P, frame, b));
  const FilmPoint<T> q = project(frame, p);
  return q.x * T(b.normal.x) + q.y * T(b.normal.y);
}

// Forward mode: the boundary term of the derivative images of the scalars `wrt`, from samples
// first, first + stride, ... of n (one rank's share), in exact accumulators laid out like the
// derivative channels: ((y * width + x) * wrt.size() + k) * 3 + c, or none when no scalar moves
// an edge. Any split of the samples over ranks and threads sums to the same bits.
struct BoundarySplat {
  std::vector<ad::FixedSum> sums;
  long drawn = 0;                   // samples drawn here (silhouettes and shadows)
  long samples = 0, nonfinite = 0;  // of which landed with a step, and dropped ones
};
BoundarySplat boundary_splat(const Scene& scene, const Shot& shot, std::span<const Slot> wrt, const Tile& window, long n,
                             int first, int stride, int threads);
// Adds the splat to the derivative channels of `image` inside the window.
void add_boundary_splat(Image& image, const RenderOutputs& outputs, const Tile& window, const BoundarySplat& splat);

// Reverse mode: adds the boundary term of d loss / d params to `gradient` (one exact
// accumulator per parameter), from samples first, first + stride, ... of n; `dloss` holds
// d loss / d pixel (3 channels, full size).
long boundary_gradient(const Scene& scene, const Shot& shot, const Image& dloss, std::span<const Slot> params, long n, int first,
                       int stride, int threads, std::span<ad::FixedSum> gradient);

}  // namespace dray
