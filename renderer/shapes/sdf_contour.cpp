#include "renderer/shapes/sdf_contour.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <glm/geometric.hpp>

namespace dray {

namespace {

// The weight of corner c's value at u along the axes of `mask` (the others left out).
float corner_weight(int c, const glm::vec3& u, int mask) {
  float w = 1.f;
  for (int a = 0; a < 3; ++a)
    if (mask & (1 << a)) w *= (c >> a) & 1 ? u[a] : 1.f - u[a];
  return w;
}

}  // namespace

float trilinear(const float f[8], const glm::vec3& u) {
  float sum = 0.f;
  for (int c = 0; c < 8; ++c) sum += f[c] * corner_weight(c, u, 7);
  return sum;
}

glm::vec3 trilinear_gradient(const float f[8], const glm::vec3& u) {
  glm::vec3 g(0.f);
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 8; ++c)
      if (!((c >> a) & 1)) g[a] += (f[c | (1 << a)] - f[c]) * corner_weight(c, u, 7 & ~(1 << a));
  return g;
}

float contour_function(const float f[8], const glm::vec3& u, const glm::vec4& from) {
  return glm::dot(trilinear_gradient(f, u), u * from.w - glm::vec3(from));
}

glm::vec3 contour_function_gradient(const float f[8], const glm::vec3& u, const glm::vec4& from) {
  // ∇G = H (w u − e) + w ∇f, H the trilinear's Hessian (its diagonal is 0).
  const glm::vec3 r = u * from.w - glm::vec3(from);
  glm::vec3 out = trilinear_gradient(f, u) * from.w;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      if (a == b) continue;
      const int d = 3 - a - b, A = 1 << a, B = 1 << b;
      float h = 0.f;
      for (int c = 0; c < 8; ++c)
        if (!(c & (A | B))) h += (f[c | A | B] - f[c | A] - f[c | B] + f[c]) * corner_weight(c, u, 1 << d);
      out[a] += h * r[b];
    }
  return out;
}

namespace {

// An interval holding G over the whole voxel, and a scale for its rounding: ∂f/∂u_a is bilinear
// in the other two coordinates (its extremes at the four edge values), w u_a − e_a linear in u_a;
// the interval of their product, summed over the axes.
void contour_interval(const float f[8], const glm::vec4& from, float& lo, float& hi, float& tol) {
  lo = hi = 0.f;
  float scale = 0.f;
  for (int a = 0; a < 3; ++a) {
    float dlo = INFINITY, dhi = -INFINITY;
    for (int c = 0; c < 8; ++c)
      if (!((c >> a) & 1)) {
        const float d = f[c | (1 << a)] - f[c];
        dlo = std::min(dlo, d);
        dhi = std::max(dhi, d);
      }
    const float r0 = -from[a], r1 = from.w - from[a];
    const float p[4] = {dlo * r0, dlo * r1, dhi * r0, dhi * r1};
    lo += *std::min_element(p, p + 4);
    hi += *std::max_element(p, p + 4);
    scale += std::max(std::fabs(dlo), std::fabs(dhi)) * std::max(std::fabs(r0), std::fabs(r1));
  }
  tol = 1e-5f * scale;  // rounding of the bound itself
}

// `from` in the coordinates of the neighbour across face (axis, side).
glm::vec4 neighbour_view(const glm::vec4& from, int axis, int side) {
  glm::vec4 out = from;
  out[axis] -= (side ? 1.f : -1.f) * from.w;
  return out;
}

// Whether face (axis, side)'s corners change sign (the surface crosses it).
bool face_crossed(const float f[8], int axis, int side) {
  bool pos = false, neg = false;
  for (int c = 0; c < 8; ++c)
    if (((c >> axis) & 1) == side) {
      pos = pos || f[c] >= 0.f;
      neg = neg || f[c] <= 0.f;
    }
  return pos && neg;
}

}  // namespace

bool may_hold_contour(const float f[8], const glm::vec4& from) {
  float lo, hi, tol;
  contour_interval(f, from, lo, hi, tol);
  return !(lo > tol || hi < -tol);
}

bool may_hold_silhouette(const VoxelNeighbourhood& n, const glm::vec4& from) {
  float lo, hi, tol;
  contour_interval(n.f, from, lo, hi, tol);
  if (!(lo > tol || hi < -tol)) return true;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      if (!n.owns[a][side] || !face_crossed(n.f, a, side)) continue;
      if (!n.has[a][side]) return true;  // the surface ends at the grid's face: an open edge
      if (n.creases && !(lo > tol)) return true;  // a shading edge where the voxel may face the viewer
      float nlo, nhi, ntol;
      contour_interval(n.nb[a][side], neighbour_view(from, a, side), nlo, nhi, ntol);
      // A crease is a silhouette where the two voxels' G differ in sign.
      if (!((lo > tol && nlo > ntol) || (hi < -tol && nhi < -ntol))) return true;
    }
  return false;
}

namespace {

// f's zero set on the plane u[axis] = c: f is bilinear there, P + Q s + R t + S s t in the
// plane's coordinates (s, t) (axes b and d, or swapped so that t is a function of s), and the
// zero set's branches are t(s) = −(P + Q s) / (R + S s), monotone between the pole.
struct PlaneZeroSet {
  int axis, b, d;
  float c;
  bool swapped = false;
  float P = 0, Q = 0, R = 0, S = 0;

  PlaneZeroSet(const float f[8], int axis_, float c_) : axis(axis_), b((axis_ + 1) % 3), d((axis_ + 2) % 3), c(c_) {
    const float f00 = trilinear(f, at(0.f, 0.f)), f10 = trilinear(f, at(1.f, 0.f));
    const float f01 = trilinear(f, at(0.f, 1.f)), f11 = trilinear(f, at(1.f, 1.f));
    P = f00, Q = f10 - f00, R = f01 - f00, S = f11 - f10 - f01 + f00;
    if (std::fabs(R) < std::fabs(Q)) {  // steeper in s: a function of t instead
      swapped = true;
      std::swap(Q, R);
    }
  }
  bool constant() const { return R == 0.f && S == 0.f; }
  glm::vec3 at(float s, float t) const {
    glm::vec3 u;
    u[axis] = c;
    u[b] = swapped ? t : s;
    u[d] = swapped ? s : t;
    return u;
  }
  // t(s), and whether it lies in the voxel.
  bool curve(float s, float& t) const {
    const float den = R + S * s;
    if (den == 0.f) return false;
    t = -(P + Q * s) / den;
    return t >= 0.f && t <= 1.f;
  }
};

// The roots of g(s) (G on the branch) on [lo, hi] where the branch lies in the voxel: sign
// changes between kSteps samples, the branch's exits from the square and the roots bisected.
template <class G>
int branch_roots(const PlaneZeroSet& z, const G& g, float lo, float hi, glm::vec3* out, int n, int max) {
  constexpr int kSteps = 24;
  float prev_s = lo, t = 0.f;
  bool prev_ok = z.curve(prev_s, t);
  for (int k = 1; k <= kSteps; ++k) {
    const float s = lo + (hi - lo) * float(k) / float(kSteps);
    const bool ok = z.curve(s, t);
    if (ok || prev_ok) {
      float a = prev_s, e = s;
      if (ok != prev_ok) {  // the branch leaves the square in [prev_s, s]: keep the part inside
        float in = ok ? s : prev_s, out_s = ok ? prev_s : s;
        for (int i = 0; i < 30; ++i) {
          const float mid = 0.5f * (in + out_s);
          float tm;
          (z.curve(mid, tm) ? in : out_s) = mid;
        }
        (ok ? a : e) = in;
      }
      float ga = g(a);
      if ((ga > 0.f) != (g(e) > 0.f)) {
        for (int i = 0; i < 40; ++i) {
          const float mid = 0.5f * (a + e), gm = g(mid);
          if ((gm > 0.f) == (ga > 0.f)) {
            a = mid;
            ga = gm;
          } else {
            e = mid;
          }
        }
        const float root = 0.5f * (a + e);
        float tr = 0.f;
        if (z.curve(root, tr) && n < max) out[n++] = z.at(root, tr);
      }
    }
    prev_s = s;
    prev_ok = ok;
  }
  return n;
}

}  // namespace

int contour_in_plane(const float f[8], const glm::vec4& from, int axis, float c, glm::vec3* out, int max) {
  const PlaneZeroSet z(f, axis, c);
  if (z.constant()) return 0;
  auto g = [&](float s) {
    float t = 0.f;
    z.curve(s, t);
    return contour_function(f, z.at(s, t), from);
  };
  // The branches on either side of the pole.
  const float pole = z.S != 0.f ? -z.R / z.S : -1.f;
  if (!(pole > 0.f && pole < 1.f)) return branch_roots(z, g, 0.f, 1.f, out, 0, max);
  return branch_roots(z, g, pole, 1.f, out, branch_roots(z, g, 0.f, pole, out, 0, max), max);
}

namespace {

// The creases of the faces the voxel owns crossed by the plane u[axis] = c that are silhouettes
// seen from `from` (or, with n.creases, face it: G < 0 on both sides; `shading` set), with their
// tangents (in the face, normal to the surface's trace on it).
int creases_in_plane(const VoxelNeighbourhood& n, const glm::vec4& from, int axis, float c, glm::vec3* points,
                     glm::vec3* tangents, bool* shading, int max) {
  int count = 0;
  for (int k = 1; k <= 2; ++k) {
    const int b = (axis + k) % 3, d = 3 - axis - b;
    for (int side = 0; side < 2; ++side) {
      if (!n.owns[b][side]) continue;
      glm::vec3 p(0.f);
      p[axis] = c;
      p[b] = float(side);
      p[d] = 0.f;
      const float f0 = trilinear(n.f, p);
      p[d] = 1.f;
      const float f1 = trilinear(n.f, p);
      if ((f0 > 0.f) == (f1 > 0.f) || f0 == f1) continue;
      p[d] = f0 / (f0 - f1);  // f is linear along the face's line
      bool crease = false;
      if (n.has[b][side]) {
        glm::vec3 q = p;
        q[b] = float(1 - side);
        const float g_own = contour_function(n.f, p, from);
        const float g_other = contour_function(n.nb[b][side], q, neighbour_view(from, b, side));
        crease = (g_own > 0.f) == (g_other > 0.f);
        if (crease && !(n.creases && !(g_own > 0.f))) continue;  // both facing the viewer (or edge-on)
      }
      const glm::vec3 g = trilinear_gradient(n.f, p);  // its components along the face are both voxels'
      glm::vec3 t(0.f);
      t[axis] = -g[d];
      t[d] = g[axis];
      if (count < max) {
        points[count] = p;
        shading[count] = crease;
        tangents[count++] = t;
      }
    }
  }
  return count;
}

}  // namespace

bool sample_silhouette(const VoxelNeighbourhood& n, const glm::vec4& from, float u1, float u2, float u3, ContourPoint& out) {
  const int axis = std::min(int(u1 * 3.f), 2);
  glm::vec3 points[12], tangents[12];
  bool shading[12] = {};
  int count = contour_in_plane(n.f, from, axis, u2, points, 8);
  for (int i = 0; i < count; ++i)
    tangents[i] = glm::cross(trilinear_gradient(n.f, points[i]), contour_function_gradient(n.f, points[i], from));
  count += creases_in_plane(n, from, axis, u2, points + count, tangents + count, shading + count, 12 - count);
  if (count == 0) return false;
  const int k = std::min(int(u3 * float(count)), count - 1);
  const float len = glm::length(tangents[k]);
  if (!(len > 0.f)) return false;
  out.u = points[k];
  out.crease = shading[k];
  out.tangent = tangents[k] / len;
  out.weight = float(count) * 3.f / (std::fabs(out.tangent.x) + std::fabs(out.tangent.y) + std::fabs(out.tangent.z));
  return true;
}

}  // namespace dray
