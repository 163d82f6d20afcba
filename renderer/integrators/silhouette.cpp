#include "renderer/integrators/silhouette.h"

#include "renderer/integrators/masks.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <glm/geometric.hpp>

namespace dray {

std::vector<MeshEdge> mesh_edges(const Mesh& mesh) {
  std::unordered_map<uint64_t, size_t> index;  // (v0 << 32 | v1) -> edge
  std::vector<MeshEdge> edges;
  std::vector<int> faces;  // per edge: how many faces share it
  const uint32_t n_faces = uint32_t(mesh.indices.size() / 3);
  for (uint32_t f = 0; f < n_faces; ++f)
    for (int k = 0; k < 3; ++k) {
      uint32_t a = mesh.indices[3 * size_t(f) + size_t(k)], b = mesh.indices[3 * size_t(f) + size_t((k + 1) % 3)];
      if (a > b) std::swap(a, b);
      const uint64_t key = uint64_t(a) << 32 | b;
      auto [it, fresh] = index.try_emplace(key, edges.size());
      if (fresh) {
        edges.push_back({a, b, f, MeshEdge::kOpen});
        faces.push_back(1);
      } else if (++faces[it->second] == 2) {
        edges[it->second].f1 = f;
      } else {
        edges[it->second].f1 = MeshEdge::kOpen;  // non-manifold: treated as open
      }
    }
  return edges;
}

bool tangent_circle(const glm::vec3& c, float r, const glm::vec4& eye, Circle& out) {
  glm::vec3 w;
  if (eye.w == 0.f) {
    // Seen from infinitely far: the great circle normal to the direction.
    const float len = glm::length(glm::vec3(eye));
    if (!(len > 0.f)) return false;
    w = glm::vec3(eye) / len;
    out.centre = c;
    out.radius = r;
  } else {
    const glm::vec3 d = glm::vec3(eye) / eye.w - c;
    const float dist2 = glm::dot(d, d);
    if (!(dist2 > r * r)) return false;
    // The tangent points p satisfy (p - c) . (eye - c) = r^2: a circle in the plane normal to d.
    w = d / std::sqrt(dist2);
    out.centre = c + w * (r * r / std::sqrt(dist2));
    out.radius = r * std::sqrt(std::max(0.f, 1.f - r * r / dist2));
  }
  const glm::vec3 helper = std::fabs(w.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
  out.u = glm::normalize(glm::cross(helper, w));
  out.v = glm::cross(w, out.u);
  return true;
}

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
    float ta = (lo[k] - a[k]) / d[k], tb = (hi[k] - a[k]) / d[k];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
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

glm::vec3 quad_corner(const Scene& scene, const Shape& s, uint32_t k) {
  const glm::vec3 a = scene.params.get_vec3(s.a), u = scene.params.get_vec3(s.b), v = scene.params.get_vec3(s.c);
  switch (k) {
    case 0: return a;
    case 1: return a + u;
    case 2: return a + u + v;
    default: return a + v;
  }
}

glm::vec3 face_normal(const Scene& scene, const Shape& s, uint32_t f) {
  const std::vector<uint32_t>& idx = scene.meshes[s.mesh].indices;
  const glm::vec3 a = scene.world_vertex(s, idx[3 * size_t(f)]), b = scene.world_vertex(s, idx[3 * size_t(f) + 1]),
                  c = scene.world_vertex(s, idx[3 * size_t(f) + 2]);
  return glm::normalize(glm::cross(b - a, c - a));
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
  if (s.kind == Shape::Kind::quad) {
    p0 = quad_corner(scene, s, e.v0);
    p1 = quad_corner(scene, s, e.v1);
  } else {
    p0 = scene.world_vertex(s, e.v0);
    p1 = scene.world_vertex(s, e.v1);
  }
}

bool silhouette_from(const Scene& scene, const SilhouetteElement& e, const glm::vec4& from) {
  const Shape& s = scene.shapes[e.shape];
  if (s.kind != Shape::Kind::mesh || e.mesh_edge == UINT32_MAX) return true;
  const Mesh& m = scene.meshes[s.mesh];
  const MeshEdge& edge = m.edges[e.mesh_edge];
  if (edge.f1 == MeshEdge::kOpen) return true;
  const glm::vec3 to = glm::vec3(from) - scene.world_vertex(s, edge.v0) * from.w;
  return (glm::dot(face_normal(scene, s, edge.f0), to) > 0.f) != (glm::dot(face_normal(scene, s, edge.f1), to) > 0.f);
}

bool silhouette_from_ball(const Scene& scene, const SilhouetteElement& e, const glm::vec4& ball) {
  const Shape& s = scene.shapes[e.shape];
  if (s.kind != Shape::Kind::mesh || e.mesh_edge == UINT32_MAX) return true;
  const MeshEdge& edge = scene.meshes[s.mesh].edges[e.mesh_edge];
  if (edge.f1 == MeshEdge::kOpen) return true;
  // Each face's signed distance to the ball's points spans d ± r: the faces can disagree on the
  // side a point lies on only where both spans do not lie on one side of 0. A margin of 10^-4
  // of the reach keeps rounding from culling an edge a point of the ball grazes.
  const glm::vec3 to = glm::vec3(ball) - scene.world_vertex(s, edge.v0);
  const float r = ball.w * 1.0001f + 1e-4f * glm::length(to);
  const float d0 = glm::dot(face_normal(scene, s, edge.f0), to), d1 = glm::dot(face_normal(scene, s, edge.f1), to);
  return !((d0 > r && d1 > r) || (d0 < -r && d1 < -r));
}

float silhouette_lune(const Scene& scene, const SilhouetteElement& e, glm::vec3& n0, glm::vec3& n1) {
  const Shape& s = scene.shapes[e.shape];
  if (s.kind != Shape::Kind::mesh || e.mesh_edge == UINT32_MAX) return kPi;
  const Mesh& m = scene.meshes[s.mesh];
  const MeshEdge& edge = m.edges[e.mesh_edge];
  if (edge.f1 == MeshEdge::kOpen) return kPi;
  n0 = face_normal(scene, s, edge.f0);
  n1 = face_normal(scene, s, edge.f1);
  return std::acos(std::clamp(glm::dot(n0, n1), -1.f, 1.f));
}

namespace {

// The segment elements of quad or mesh shape si (weights not set): a quad's four edges, every
// mesh edge where the surface bends or ends.
template <class Add>
void segment_edges(const Scene& scene, uint32_t si, Add&& add) {
  const Shape& s = scene.shapes[si];
  SilhouetteElement e;
  e.shape = si;
  if (s.kind == Shape::Kind::quad) {
    for (uint32_t k = 0; k < 4; ++k) {
      e.v0 = k;
      e.v1 = (k + 1) % 4;
      add(e);
    }
    return;
  }
  const Mesh& m = scene.meshes[s.mesh];
  for (uint32_t i = 0; i < m.edges.size(); ++i) {
    const MeshEdge& edge = m.edges[i];
    if (edge.f1 != MeshEdge::kOpen && glm::dot(face_normal(scene, s, edge.f0), face_normal(scene, s, edge.f1)) > 1.f - 1e-6f)
      continue;  // coplanar: no discontinuity
    e.v0 = edge.v0;
    e.v1 = edge.v1;
    e.mesh_edge = i;
    add(e);
  }
}

// A sphere of a null material (a medium's boundary, or nothing): no radiance step at its
// silhouette from any point, as the chord through it shrinks to nothing there. (Sampled at the
// finite edge offset, the chord, about the square root of the offset, gave a step of a few
// percent for an absorbing medium.)
bool null_sphere(const Scene& scene, const Shape& s) {
  const Material& m = scene.materials[s.material];
  return is_mask(m) && m.opacity_texture < 0 && scene.params.get(m.opacity) == 0.f && !m.emissive;
}

}  // namespace

void sdf_elements(const Scene& scene, uint32_t si, const glm::vec4* from, bool shading_edges, Silhouettes& out,
                  const std::function<float(const glm::vec3&, const glm::mat3&)>& weight) {
  // The voxels holding surface are the grid's (an instance's copy lists none: its group's do).
  const std::vector<uint32_t>& voxels = scene.sdf_grids[scene.shapes[si].grid]->voxels;
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
    if (s.kind == Shape::Kind::sdf) {  // weighted by the voxel's size
      sdf_elements(scene, si, from, false, out, [](const glm::vec3&, const glm::mat3& m) { return glm::length(m[0] + m[1] + m[2]); });
      continue;
    }
    if (s.kind == Shape::Kind::sphere) {
      if (null_sphere(scene, s)) continue;
      SilhouetteElement e;
      e.kind = SilhouetteElement::Kind::circle;
      e.shape = si;
      e.weight = 2.f * kPi * scene.params.get(s.b);
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

Silhouettes find_silhouettes(const Scene& scene, const Tile& window) {
  const CameraFrame<float> f = camera_frame(scene.camera(), ParamView<float>(scene.params));
  const glm::vec4 eye = seen_from_camera(f);
  Silhouettes out;
  auto add_segment = [&](SilhouetteElement e) {
    // A smooth mesh's radiance is continuous across an edge between two faces the eye sees
    // both of (or neither): only its silhouettes (and open edges) are edges of the image.
    const Shape& s = scene.shapes[e.shape];
    if (s.kind == Shape::Kind::mesh && !scene.meshes[s.mesh].object_normals.empty() &&
        !silhouette_from(scene, e, eye))
      return;
    glm::vec3 p0, p1;
    segment_endpoints(scene, e, p0, p1);
    if (clip_segment(f, window, p0, p1, e)) out.elements.push_back(e);
  };
  for (uint32_t si = 0; si < scene.shapes.size(); ++si) {
    const Shape& s = scene.shapes[si];
    switch (s.kind) {
      case Shape::Kind::sphere: {
        if (null_sphere(scene, s)) break;
        Circle c;
        if (!tangent_circle(scene.params.get_vec3(s.a), scene.params.get(s.b), eye, c)) break;
        SilhouetteElement e;
        e.kind = SilhouetteElement::Kind::circle;
        e.shape = si;
        e.weight = circle_weight(f, window, c);
        if (e.weight > 0.f) out.elements.push_back(e);
        break;
      }
      case Shape::Kind::quad:
      case Shape::Kind::mesh:
        segment_edges(scene, si, add_segment);
        break;
      case Shape::Kind::sdf:  // weighted by the voxel's size on the film
        sdf_elements(scene, si, &eye, true, out, [&](const glm::vec3& c, const glm::mat3& m) { return film_size(f, window, c, m); });
        break;
    }
  }
  out.sum_weights();
  return out;
}

}  // namespace dray
