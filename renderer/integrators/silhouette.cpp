#include "renderer/integrators/silhouette.h"

#include "renderer/integrators/masks.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

namespace dray {

namespace {

// Liang-Barsky: the parameters [t0, t1] of a + t (b - a), t in [0, 1], inside the window.
bool clip_to_window(glm::vec2 a, glm::vec2 b, const Tile& w, float margin, float& t0, float& t1) {
  t0 = 0.f;
  t1 = 1.f;
  const glm::vec2 d = b - a;
  const float lo[2] = {float(w.x0) - margin, float(w.y0) - margin}, hi[2] = {float(w.x1) + margin, float(w.y1) + margin};
  for (int k = 0; k < 2; ++k) {
    if (d[k] == 0.f) {
      if (a[k] < lo[k] || a[k] > hi[k]) return false;
      continue;
    }
    float t_near = (lo[k] - a[k]) / d[k], t_far = (hi[k] - a[k]) / d[k];
    if (t_near > t_far) std::swap(t_near, t_far);
    t0 = std::max(t0, t_near);
    t1 = std::min(t1, t_far);
  }
  return t0 < t1;
}

glm::vec2 film(const CameraFrame<float>& f, const glm::vec3& p) {
  FilmPoint<float> q = project(f, Vec3<float>(p));
  return {q.x, q.y};
}

float depth(const CameraFrame<float>& f, const glm::vec3& p) { return project(f, Vec3<float>(p)).depth; }

// A segment clipped to the camera's front (depth >= 1e-3 of the far end) and to the window.
bool clip_segment(const CameraFrame<float>& f, const Tile& w, const glm::vec3& p0, const glm::vec3& p1,
                  SilhouetteElement& e) {
  const float z0 = depth(f, p0), z1 = depth(f, p1);
  // The near plane at a thousandth of the farther endpoint's distance (not depth: an edge beside
  // the eye, at depth ~0, would project to overflowing film coordinates); a point on the film
  // window lies far deeper than that at any field of view below ~179.8°.
  const glm::vec3 eye = to_glm(f.origin);
  const bool ortho = seen_from_camera(f).w == 0.f;  // no eye: the film plane itself
  const float near = ortho ? 0.f : 1e-3f * std::max(glm::length(p0 - eye), glm::length(p1 - eye));
  if (!(near > 0.f || ortho) || (z0 < near && z1 < near)) return false;
  e.s0 = z0 < near ? (near - z0) / (z1 - z0) : 0.f;
  e.s1 = z1 < near ? (near - z0) / (z1 - z0) : 1.f;
  const glm::vec2 a = film(f, p0 + (p1 - p0) * e.s0), b = film(f, p0 + (p1 - p0) * e.s1);
  if (!clip_to_window(a, b, w, 0.f, e.t0, e.t1)) return false;
  e.weight = glm::length(b - a) * (e.t1 - e.t0);
  return e.weight > 0.f && std::isfinite(e.weight);  // one infinite weight would take every sample
}

// The approximate film length of a circle: a 32-gon's chords in front of the camera, clipped to
// the window widened by 2 pixels (only a selection weight: any positive value is unbiased).
float circle_weight(const CameraFrame<float>& f, const Tile& w, const Circle& c) {
  constexpr int n = 32;
  float sum = 0.f;
  glm::vec3 prev = c.centre + c.u * c.radius;
  for (int i = 1; i <= n; ++i) {
    const float phi = 2.f * kPi * float(i) / float(n);
    const glm::vec3 p = c.centre + (c.u * std::cos(phi) + c.v * std::sin(phi)) * c.radius;
    float t0, t1;
    if (depth(f, prev) > 0.f && depth(f, p) > 0.f) {
      const glm::vec2 a = film(f, prev), b = film(f, p);
      if (clip_to_window(a, b, w, 2.f, t0, t1)) sum += glm::length(b - a) * (t1 - t0);
    }
    prev = p;
  }
  return sum;
}

}  // namespace

void segment_endpoints(const Scene& scene, const SilhouetteElement& e, glm::vec3& p0, glm::vec3& p1) {
  const Shape& s = scene.shapes[e.shape];
  std::visit([&](const auto& plugin) {
    if constexpr (requires { plugin.edge_vertex(scene, s, e.v0); }) {
      p0 = plugin.edge_vertex(scene, s, e.v0);
      p1 = plugin.edge_vertex(scene, s, e.v1);
    }
  }, s.model);
}

namespace {

// Shape s's tangent circle from `from` (false: none, or it has no circle silhouettes).
bool shape_circle(const Scene& scene, const Shape& s, const glm::vec4& from, Circle& out) {
  return std::visit([&](const auto& plugin) {
    if constexpr (requires { plugin.silhouette(scene.params, from, out); }) return plugin.silhouette(scene.params, from, out);
    else return false;
  }, s.model);
}

}  // namespace

bool element_circle(const Scene& scene, const SilhouetteElement& e, const glm::vec4& from, Circle& out) {
  return shape_circle(scene, scene.shapes[e.shape], from, out);
}

glm::vec3 circle_direction(const Scene& scene, const SilhouetteElement& e, const glm::vec3& p) {
  return std::visit([&](const auto& plugin) {
    if constexpr (requires { plugin.direction_to(scene.params, p); }) return plugin.direction_to(scene.params, p);
    else return glm::vec3(0.f);
  }, scene.shapes[e.shape].model);
}

// A mesh edge's queries (anything else's edges are open: silhouettes from everywhere).
bool silhouette_from(const Scene& scene, const SilhouetteElement& e, const glm::vec4& from) {
  if (e.mesh_edge == UINT32_MAX) return true;
  const Shape& s = scene.shapes[e.shape];
  return s.as<MeshShape>().silhouette_from(scene, s, e.mesh_edge, from);
}

bool silhouette_from_ball(const Scene& scene, const SilhouetteElement& e, const glm::vec4& ball) {
  if (e.mesh_edge == UINT32_MAX) return true;
  const Shape& s = scene.shapes[e.shape];
  return s.as<MeshShape>().silhouette_from_ball(scene, s, e.mesh_edge, ball);
}

float silhouette_lune(const Scene& scene, const SilhouetteElement& e, glm::vec3& n0, glm::vec3& n1) {
  if (e.mesh_edge == UINT32_MAX) return kPi;
  const Shape& s = scene.shapes[e.shape];
  return s.as<MeshShape>().silhouette_lune(scene, s, e.mesh_edge, n0, n1);
}

namespace {

// The segment elements of shape si (weights not set): its plugin's edges.
template <class Add>
void segment_edges(const Scene& scene, uint32_t si, Add&& add) {
  const Shape& s = scene.shapes[si];
  SilhouetteElement e;
  e.shape = si;
  std::visit([&](const auto& plugin) {
    if constexpr (requires { plugin.edges(scene, s, [](uint32_t, uint32_t, uint32_t) {}); })
      plugin.edges(scene, s, [&](uint32_t v0, uint32_t v1, uint32_t mesh_edge) {
        e.v0 = v0;
        e.v1 = v1;
        e.mesh_edge = mesh_edge;
        add(e);
      });
  }, s.model);
}

// The length in space of shape s's circle silhouettes (a sphere's great circle), 0: it has none.
float circle_length(const Scene& scene, const Shape& s) {
  return std::visit([&](const auto& plugin) {
    if constexpr (requires { plugin.silhouette_length(scene.params); }) return plugin.silhouette_length(scene.params);
    else return 0.f;
  }, s.model);
}

// A shape of circle silhouettes (a sphere) of a null material (a medium's boundary, or nothing):
// no radiance step at its silhouette from any point, as the chord through it shrinks to nothing
// there. (Sampled at the finite edge offset, the chord, about the square root of the offset, gave
// a step of a few percent for an absorbing medium.)
bool null_round(const Scene& scene, const Shape& s) {
  const Material& m = scene.materials[s.material];
  return is_mask(m) && m.opacity_texture < 0 && scene.params.get(m.opacity) == 0.f && !m.emissive;
}

}  // namespace

void sdf_elements(const Scene& scene, uint32_t si, const glm::vec4* from, bool shading_edges, Silhouettes& out,
                  const std::function<float(const glm::vec3&, const glm::mat3&)>& weight) {
  // The voxels holding surface are the grid's (an instance's copy lists none: its group's do).
  const std::vector<uint32_t>& voxels = scene.sdf_grids[scene.shapes[si].as<SdfGridShape>().grid]->voxels;
  const SdfGrid& g = scene.world_grid(si);
  const glm::vec3 h = 1.f / glm::vec3(g.res - 1);
  const glm::mat3 edges(g.linear[0] * h.x, g.linear[1] * h.y, g.linear[2] * h.z);  // a voxel's edge vectors
  SilhouetteElement e;
  e.kind = SilhouetteElement::Kind::voxel;
  e.shape = si;
  for (uint32_t k : voxels) {
    const glm::ivec3 v = g.voxel_position(k);
    if (from && !may_hold_silhouette(sdf_neighbourhood(g, v, shading_edges), sdf_voxel_view(g, v, *from))) continue;
    e.v0 = k;
    e.weight = weight(g.linear * ((glm::vec3(v) + 0.5f) * h) + g.offset, edges);
    if (e.weight > 0.f) out.elements.push_back(e);
  }
}

Silhouettes occluder_edges(const Scene& scene, const glm::vec4* from, uint32_t skip, const glm::vec4* ball) {
  Silhouettes out;
  for (uint32_t si = 0; si < scene.shapes.size(); ++si) {
    if (si == skip) continue;
    const Shape& s = scene.shapes[si];
    if (s.is<SdfGridShape>()) {  // weighted by the voxel's size
      sdf_elements(scene, si, from, false, out, [](const glm::vec3&, const glm::mat3& m) { return glm::length(m[0] + m[1] + m[2]); });
      continue;
    }
    if (circle_length(scene, s) > 0.f) {  // its tangent circles, from wherever seen
      if (null_round(scene, s)) continue;
      SilhouetteElement e;
      e.kind = SilhouetteElement::Kind::circle;
      e.shape = si;
      e.weight = circle_length(scene, s);
      out.elements.push_back(e);
      continue;
    }
    segment_edges(scene, si, [&](SilhouetteElement e) {
      if (from && !silhouette_from(scene, e, *from)) return;
      if (ball && !silhouette_from_ball(scene, e, *ball)) return;
      glm::vec3 p0, p1;
      segment_endpoints(scene, e, p0, p1);
      e.weight = glm::length(p1 - p0);
      if (e.weight > 0.f) out.elements.push_back(e);
    });
  }
  out.sum_weights();
  return out;
}

namespace {

// About a voxel's extent on the film, in pixels (the sum of its edges' projections at its centre
// c), or 0 when it is behind the camera or well outside the window.
float film_size(const CameraFrame<float>& f, const Tile& window, const glm::vec3& c, const glm::mat3& edges) {
  const FilmPoint<float> q = project(f, Vec3<float>(c));
  if (!(q.depth > 0.f)) return 0.f;
  float size = 0.f;
  for (int a = 0; a < 3; ++a) {
    const FilmPoint<float> e = project(f, Vec3<float>(c + edges[a]));
    if (e.depth > 0.f) size += glm::length(glm::vec2(e.x - q.x, e.y - q.y));
  }
  const float margin = size + 1.f;
  if (q.x < float(window.x0) - margin || q.x > float(window.x1) + margin || q.y < float(window.y0) - margin ||
      q.y > float(window.y1) + margin)
    return 0.f;
  return size;
}

}  // namespace

Silhouettes find_silhouettes(const Scene& scene, const Shot& shot, const Tile& window) {
  const CameraFrame<float> f = camera_frame(scene.camera(shot), ParamView<float>(scene.params));
  const glm::vec4 eye = seen_from_camera(f);
  Silhouettes out;
  auto add_segment = [&](SilhouetteElement e) {
    // A smooth mesh's radiance is continuous across an edge between two faces the eye sees
    // both of (or neither): only its silhouettes (and open edges) are edges of the image.
    const Shape& s = scene.shapes[e.shape];
    if (e.mesh_edge != UINT32_MAX && s.as<MeshShape>().smooth(scene) && !silhouette_from(scene, e, eye)) return;
    glm::vec3 p0, p1;
    segment_endpoints(scene, e, p0, p1);
    if (clip_segment(f, window, p0, p1, e)) out.elements.push_back(e);
  };
  for (uint32_t si = 0; si < scene.shapes.size(); ++si) {
    const Shape& s = scene.shapes[si];
    if (circle_length(scene, s) > 0.f) {  // its tangent circle from the eye
      Circle c;
      if (null_round(scene, s) || !shape_circle(scene, s, eye, c)) continue;
      SilhouetteElement e;
      e.kind = SilhouetteElement::Kind::circle;
      e.shape = si;
      e.weight = circle_weight(f, window, c);
      if (e.weight > 0.f) out.elements.push_back(e);
    } else if (s.is<SdfGridShape>()) {  // weighted by the voxel's size on the film
      sdf_elements(scene, si, &eye, true, out, [&](const glm::vec3& c, const glm::mat3& m) { return film_size(f, window, c, m); });
    } else {
      segment_edges(scene, si, add_segment);
    }
  }
  out.sum_weights();
  return out;
}

}  // namespace dray
