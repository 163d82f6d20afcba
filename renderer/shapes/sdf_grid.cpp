#include "renderer/shapes/sdf_grid.h"
#include "renderer/shapes/shape.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <glm/matrix.hpp>

namespace dray {

glm::ivec3 SdfGrid::voxel_position(uint32_t index) const {
  const uint32_t nx = uint32_t(res.x - 1), ny = uint32_t(res.y - 1);
  return {int(index % nx), int((index / nx) % ny), int(index / (nx * ny))};
}

namespace {

// The box, in the voxel's [0, 1]^3, of its corners at 0 and of its edges' zero crossings; false
// when all eight corners have one strict sign (no surface).
bool tight_box(const float f[8], Aabb& box) {
  bool pos = true, neg = true;
  for (int c = 0; c < 8; ++c) {
    pos = pos && f[c] > 0.f;
    neg = neg && f[c] < 0.f;
  }
  if (pos || neg) return false;
  auto corner = [](int c) { return glm::vec3(float(c & 1), float((c >> 1) & 1), float((c >> 2) & 1)); };
  box = Aabb{};
  for (int c = 0; c < 8; ++c) {
    if (f[c] == 0.f) box.grow(corner(c));
    for (int a = 0; a < 3; ++a) {
      const int e = c | (1 << a);
      if (e == c || !(f[c] * f[e] <= 0.f) || f[c] == f[e]) continue;
      box.grow(corner(c) + (corner(e) - corner(c)) * (f[c] / (f[c] - f[e])));
    }
  }
  return true;
}

void corner_values(const SdfGrid& g, const glm::ivec3& v, float f[8]) {
  for (int c = 0; c < 8; ++c) f[c] = g.at(v.x + (c & 1), v.y + ((c >> 1) & 1), v.z + ((c >> 2) & 1));
}

}  // namespace

namespace {

void set_placement(SdfGrid& g, const glm::mat3& linear, const glm::vec3& offset) {
  if (!(std::fabs(glm::determinant(linear)) > 0.f)) throw std::runtime_error("the sdfgrid's to_world is singular");
  g.linear = linear;
  g.inverse = glm::inverse(linear);
  g.normal = glm::transpose(g.inverse);
  g.offset = offset;
}

}  // namespace

SdfGrid placed_sdf_grid(const SdfGrid& g, const glm::mat3& linear, const glm::vec3& offset) {
  SdfGrid out;
  out.res = g.res;
  out.values = g.values;
  out.smooth = g.smooth;
  out.file = g.file;
  set_placement(out, linear * g.linear, linear * g.offset + offset);
  return out;
}

void prepare_sdf_grid(SdfGrid& g, const glm::mat3& linear, const glm::vec3& offset) {
  g.voxels.clear();
  g.local_boxes.clear();
  for (int z = 0; z + 1 < g.res.z; ++z)
    for (int y = 0; y + 1 < g.res.y; ++y)
      for (int x = 0; x + 1 < g.res.x; ++x) {
        float f[8];
        corner_values(g, {x, y, z}, f);
        Aabb local;
        if (!tight_box(f, local)) continue;
        g.voxels.push_back(uint32_t(x + y * (g.res.x - 1) + z * (g.res.x - 1) * (g.res.y - 1)));
        g.local_boxes.push_back(local);
      }
  if (g.voxels.empty()) throw std::runtime_error("the sdfgrid has no voxel holding surface (no distance changes sign)");
  place_sdf_grid(g, linear, offset);
}

void place_sdf_grid(SdfGrid& g, const glm::mat3& linear, const glm::vec3& offset) {
  set_placement(g, linear, offset);
  g.boxes.resize(g.voxels.size());
  const glm::vec3 h = 1.f / glm::vec3(g.res - 1);
  for (size_t k = 0; k < g.voxels.size(); ++k) {
    const glm::vec3 v(g.voxel_position(g.voxels[k]));
    const Aabb& local = g.local_boxes[k];
    Aabb world;
    for (int c = 0; c < 8; ++c) {
      const glm::vec3 q((c & 1 ? local.hi.x : local.lo.x), (c & 2 ? local.hi.y : local.lo.y), (c & 4 ? local.hi.z : local.lo.z));
      world.grow(linear * ((v + q) * h) + offset);
    }
    // Rounding, and the crossings intersect_sdf_voxel finds a hair past the voxel's faces.
    const glm::vec3 pad = (glm::abs(world.lo) + glm::abs(world.hi)) * 0x1p-18f + glm::abs(linear * h) * 1e-4f;
    world.lo -= pad;
    world.hi += pad;
    g.boxes[k] = world;
  }
}

VoxelNeighbourhood sdf_neighbourhood(const SdfGrid& g, const glm::ivec3& v, bool shading_edges) {
  VoxelNeighbourhood n;
  n.creases = shading_edges && !g.smooth;
  corner_values(g, v, n.f);
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      glm::ivec3 w = v;
      w[a] += side ? 1 : -1;
      n.has[a][side] = w[a] >= 0 && w[a] + 1 < g.res[a];
      n.owns[a][side] = side == 1 || v[a] == 0;
      if (n.has[a][side]) corner_values(g, w, n.nb[a][side]);
    }
  return n;
}

glm::vec4 sdf_voxel_view(const SdfGrid& g, const glm::ivec3& v, const glm::vec4& from) {
  const glm::vec3 n(g.res - 1);
  if (from.w == 0.f) return glm::vec4(g.inverse * glm::vec3(from) * n, 0.f);
  return glm::vec4(g.inverse * (glm::vec3(from) - g.offset) * n - glm::vec3(v), 1.f);
}

// The primitive: its box (a, b) and, in c, the voxel index and the grid's address as raw bits.
PrimGeom sdf_voxel_geom(const SdfGrid& g, size_t k) {
  PrimGeom geom;
  geom.kind = kPrimKind<SdfGridShape>;
  geom.a = Vec3<float>(g.boxes[k].lo);
  geom.b = Vec3<float>(g.boxes[k].hi);
  static_assert(sizeof(&g) <= 2 * sizeof(float));
  std::memcpy(&geom.c.x, &g.voxels[k], sizeof(float));
  return sdf_voxel_on(geom, g);
}

PrimGeom sdf_voxel_on(const PrimGeom& geom, const SdfGrid& g) {
  PrimGeom out = geom;
  const SdfGrid* ptr = &g;
  float bits[2] = {0.f, 0.f};
  std::memcpy(bits, &ptr, sizeof(ptr));
  out.c.y = bits[0];
  out.c.z = bits[1];
  return out;
}

const SdfGrid* sdf_voxel_grid(const PrimGeom& geom, uint32_t& voxel) {
  std::memcpy(&voxel, &geom.c.x, sizeof(float));
  const float bits[2] = {geom.c.y, geom.c.z};
  const SdfGrid* ptr = nullptr;
  std::memcpy(&ptr, bits, sizeof(ptr));
  return ptr;
}

namespace {

// The cubic c0 + c1 s + c2 s² + c3 s³.
struct Cubic {
  float c[4];
  float operator()(float s) const { return ((c[3] * s + c[2]) * s + c[1]) * s + c[0]; }
};

// The trilinear function of corners f along the voxel-space ray o + s d.
Cubic along_ray(const float f[8], const glm::vec3& o, const glm::vec3& d) {
  // f(x, y, z) = a0 + ax x + ay y + az z + axy xy + axz xz + ayz yz + axyz xyz.
  const float a0 = f[0], ax = f[1] - f[0], ay = f[2] - f[0], az = f[4] - f[0];
  const float axy = f[3] - f[1] - f[2] + f[0], axz = f[5] - f[1] - f[4] + f[0], ayz = f[6] - f[2] - f[4] + f[0];
  const float axyz = f[7] - f[6] - f[5] - f[3] + f[1] + f[2] + f[4] - f[0];
  Cubic k;
  k.c[0] = a0 + ax * o.x + ay * o.y + az * o.z + axy * o.x * o.y + axz * o.x * o.z + ayz * o.y * o.z + axyz * o.x * o.y * o.z;
  k.c[1] = ax * d.x + ay * d.y + az * d.z + axy * (o.x * d.y + d.x * o.y) + axz * (o.x * d.z + d.x * o.z) +
           ayz * (o.y * d.z + d.y * o.z) + axyz * (o.x * o.y * d.z + o.x * d.y * o.z + d.x * o.y * o.z);
  k.c[2] = axy * d.x * d.y + axz * d.x * d.z + ayz * d.y * d.z + axyz * (o.x * d.y * d.z + d.x * o.y * d.z + d.x * d.y * o.z);
  k.c[3] = axyz * d.x * d.y * d.z;
  return k;
}

// A root of k in [a, b], where k(a) and k(b) differ in sign: regula falsi with the Illinois
// correction (the stale end's value halved), to float precision.
float refine_root(const Cubic& k, float a, float b, float fa, float fb) {
  float s = a;
  int side = 0;
  for (int i = 0; i < 64; ++i) {
    s = (a * fb - b * fa) / (fb - fa);
    if (!(s > a && s < b)) s = 0.5f * (a + b);  // rounding: fall back on bisection
    const float fs = k(s);
    if (fs == 0.f || b - a <= 1e-7f * std::max(1.f, std::fabs(b))) break;
    if ((fs > 0.f) == (fb > 0.f)) {
      b = s;
      fb = fs;
      if (side == -1) fa *= 0.5f;
      side = -1;
    } else {
      a = s;
      fa = fs;
      if (side == 1) fb *= 0.5f;
      side = 1;
    }
  }
  return s;
}

// The first crossing of the cubic k (its s measured from t0) within [t0, t1] that lies in
// (t_min, t_max): the span split at the cubic's turning points (roots of 3 c3 s² + 2 c2 s + c1),
// the first monotone piece whose ends differ in sign refined.
bool first_root(const Cubic& k, float t0, float t1, float t_min, float t_max, float& t) {
  const float len = t1 - t0;
  float cuts[4] = {0.f, len, len, len};
  int n_cuts = 1;
  const float qa = 3.f * k.c[3], qb = 2.f * k.c[2], qc = k.c[1];
  if (qa != 0.f) {
    const float disc = qb * qb - 4.f * qa * qc;
    if (disc >= 0.f) {
      const float q = -0.5f * (qb + std::copysign(std::sqrt(disc), qb));
      float r0 = q / qa, r1 = q != 0.f ? qc / q : r0;
      if (r0 > r1) std::swap(r0, r1);
      for (float r : {r0, r1})
        if (r > 0.f && r < len) cuts[n_cuts++] = r;
    }
  } else if (qb != 0.f) {
    const float r = -qc / qb;
    if (r > 0.f && r < len) cuts[n_cuts++] = r;
  }
  cuts[n_cuts++] = len;
  for (int i = 0; i + 1 < n_cuts; ++i) {
    const float a = cuts[i], b = cuts[i + 1], fa = k(a), fb = k(b);
    float s;
    if (fa == 0.f) s = a;
    else if (fb == 0.f) s = b;
    else if ((fa > 0.f) != (fb > 0.f)) s = refine_root(k, a, b, fa, fb);
    else continue;
    const float th = t0 + s;
    if (!(th > t_min && th < t_max)) continue;
    t = th;
    return true;
  }
  return false;
}

}  // namespace

bool intersect_sdf_voxel(const SdfGrid& g, uint32_t voxel, const Ray& ray, float t_min, float t_max, float& t) {
  const glm::ivec3 v = g.voxel_position(voxel);
  // The ray in voxel space, where the voxel is [0, 1]^3: the map is affine, so t is unchanged.
  glm::vec3 o = g.inverse * (ray.o - g.offset), d = g.inverse * ray.d;
  for (int a = 0; a < 3; ++a) {
    const float n = float(g.res[a] - 1);
    o[a] = o[a] * n - float(v[a]);
    d[a] *= n;
  }
  // The voxel's span of the ray, widened by a hair so that no crossing on a face falls between
  // two voxels' spans by rounding (past the face, the cubic extends the voxel's function).
  constexpr float kLo = -1e-5f, kHi = 1.f + 1e-5f;
  float t0 = t_min, t1 = t_max;
  for (int a = 0; a < 3; ++a) {
    if (d[a] == 0.f) {
      if (o[a] < kLo || o[a] > kHi) return false;
      continue;
    }
    float n = (kLo - o[a]) / d[a], f = (kHi - o[a]) / d[a];
    if (n > f) std::swap(n, f);
    t0 = std::max(t0, n);
    t1 = std::min(t1, f);
  }
  if (!(t0 <= t1)) return false;
  float f[8];
  corner_values(g, v, f);
  return first_root(along_ray(f, o + d * t0, d), t0, t1, t_min, t_max, t);
}

}  // namespace dray
