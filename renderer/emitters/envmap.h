#pragma once
// Mitsuba 3's `envmap`: an equirectangular image (`filename`, any format textures read, linear:
// HDR or EXR; 8-bit images decoded from sRGB; dray's `width`, `height` and `value` give a constant
// start instead) of the radiance arriving from every direction (y up: u = atan2(x, -z) / 2π,
// v = acos(y) / π, as Mitsuba's), times `scale`, turned about +y by `rotate_y` degrees, then by
// `matrix` (Mitsuba's to_world: 4x4 row-major, its 3x3 a rotation, the translation unused). Its texels are the parameter block `lights.NAME.data`, looked up bilinearly as
// Mitsuba's (u texel-centred and wrapping, v corner-aligned: the first and last rows at the poles); next-event estimation samples it by a 2D table of texel luminance × sin θ, built from
// the texels' values (rebuilt whenever they change: Scene::refresh_tables).
#include <algorithm>
#include <cmath>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>
#include <glm/vec3.hpp>

#include "renderer/core/param_table.h"
#include "renderer/emitters/emitter_props.h"
#include "renderer/emitters/sky.h"

namespace dray {

struct EnvMap {
  Slot data = kNoSlot;   // height × width × 3 radiances, rows from the top (v = 0: +y)
  Slot scale = kNoSlot;  // scalar
  int width = 0, height = 0;
  float rotate_y = 0.f;  // radians, about +y (not a parameter)
  // Mitsuba's to_world (a rotation, not a parameter; a Z-up scene's): world = to_world · the map's
  // frame turned by rotate_y. Applied only when `rotated`, so that the rest is exactly as before.
  glm::mat3 to_world{1.f};
  bool rotated = false;
  // Sampling: the rows' CDF (height + 1), and per row its columns' CDF (width + 1 each).
  std::vector<float> row_cdf, col_cdf;
};

// The direction's image coordinates.
inline glm::vec2 envmap_uv(const EnvMap& e, glm::vec3 d) {
  if (e.rotated) d = glm::transpose(e.to_world) * d;
  const float c = std::cos(e.rotate_y), s = std::sin(e.rotate_y);
  const glm::vec3 l(c * d.x - s * d.z, d.y, s * d.x + c * d.z);  // world to the map's frame
  float u = std::atan2(l.x, -l.z) * (0.5f / kPi);
  if (u < 0.f) u += 1.f;
  return {u, std::acos(std::clamp(l.y, -1.f, 1.f)) / kPi};
}

// The direction at image coordinates uv (envmap_uv's inverse).
inline glm::vec3 envmap_direction(const EnvMap& e, glm::vec2 uv) {
  const float theta = uv.y * kPi, phi = uv.x * 2.f * kPi, sin_theta = std::sin(theta);
  const glm::vec3 l(sin_theta * std::sin(phi), std::cos(theta), -sin_theta * std::cos(phi));
  const float c = std::cos(e.rotate_y), s = std::sin(e.rotate_y);
  const glm::vec3 d(c * l.x + s * l.z, l.y, -s * l.x + c * l.z);
  return e.rotated ? e.to_world * d : d;
}

// The texels' bilinear interpolation at direction d (unit, world).
template <class T>
Vec3<T> envmap_texels(const EnvMap& e, const ParamView<T>& P, const glm::vec3& d) {
  if constexpr (ad::is_differentiable_v<T>)  // texels not differentiated: looked up in float
    if (P.constant(e.data, size_t(3) * size_t(e.width) * size_t(e.height)))
      return Vec3<T>(envmap_texels(e, P.values_only(), d));
  const glm::vec2 uv = envmap_uv(e, d);
  // As Mitsuba's (src/emitters/envmap.cpp eval_spectrum, since 2026-06): texel-centred in u
  // (periodic), corner-aligned in v (row 0 at v = 0, the last row at v = 1).
  const float x = uv.x * float(e.width) - 0.5f, y = uv.y * float(e.height - 1);
  const float fx = std::floor(x), fy = std::floor(y), wx = x - fx, wy = y - fy;
  auto texel = [&](int i, int j) {
    j = ((j % e.width) + e.width) % e.width;
    i = std::clamp(i, 0, e.height - 1);
    return P.vec3(e.data + Slot(3 * (size_t(i) * size_t(e.width) + size_t(j))));
  };
  const int i = int(fy), j = int(fx);
  return texel(i, j) * T((1.f - wx) * (1.f - wy)) + texel(i, j + 1) * T(wx * (1.f - wy)) +
         texel(i + 1, j) * T((1.f - wx) * wy) + texel(i + 1, j + 1) * T(wx * wy);
}

// The radiance arriving from direction d (unit, world).
template <class T>
Vec3<T> envmap_radiance(const EnvMap& e, const ParamView<T>& P, const glm::vec3& d) {
  return envmap_texels(e, P, d) * P.scalar(e.scale);
}

// Rebuilds the sampling tables from the texels' current values.
inline void build_envmap_tables(EnvMap& e, const ParamTable& params) {
  const int W = e.width, H = e.height;
  e.row_cdf.assign(size_t(H) + 1, 0.f);
  e.col_cdf.assign(size_t(H) * size_t(W + 1), 0.f);
  std::vector<double> rows(size_t(H), 0.0);
  for (int i = 0; i < H; ++i) {
    const double sin_t = std::sin((i + 0.5) * M_PI / H);
    double sum = 0.0;
    float* cdf = &e.col_cdf[size_t(i) * size_t(W + 1)];
    std::vector<double> acc(size_t(W) + 1, 0.0);
    for (int j = 0; j < W; ++j) {
      const glm::vec3 t = params.get_vec3(e.data + Slot(3 * (size_t(i) * size_t(W) + size_t(j))));
      sum += std::max(0.0, 0.2126 * t.x + 0.7152 * t.y + 0.0722 * t.z) * sin_t;
      acc[size_t(j) + 1] = sum;
    }
    for (int j = 0; j <= W; ++j) cdf[j] = sum > 0.0 ? float(acc[size_t(j)] / sum) : float(j) / float(W);
    rows[size_t(i)] = sum;
  }
  double total = 0.0;
  std::vector<double> acc(size_t(H) + 1, 0.0);
  for (int i = 0; i < H; ++i) acc[size_t(i) + 1] = total += rows[size_t(i)];
  for (int i = 0; i <= H; ++i) e.row_cdf[size_t(i)] = total > 0.0 ? float(acc[size_t(i)] / total) : float(i) / float(H);
}

namespace detail {
// The cell of a CDF (size n + 1) that u falls in, and u's position within it.
inline int pick_cell(const float* cdf, int n, float u, float& rest) {
  const int k = std::clamp(int(std::upper_bound(cdf, cdf + n + 1, u) - cdf) - 1, 0, n - 1);
  const float w = cdf[k + 1] - cdf[k];
  rest = w > 0.f ? std::clamp((u - cdf[k]) / w, 0.f, 1.f) : 0.5f;
  return k;
}
}  // namespace detail

// The solid-angle density with which sample_envmap draws d.
inline float envmap_pdf(const EnvMap& e, const glm::vec3& d) {
  const glm::vec2 uv = envmap_uv(e, d);
  const int i = std::clamp(int(uv.y * float(e.height)), 0, e.height - 1), j = std::clamp(int(uv.x * float(e.width)), 0, e.width - 1);
  const float p_row = e.row_cdf[size_t(i) + 1] - e.row_cdf[size_t(i)];
  const float* cdf = &e.col_cdf[size_t(i) * size_t(e.width + 1)];
  const float p = p_row * (cdf[j + 1] - cdf[j]);
  const float y = e.rotated ? glm::dot(e.to_world[1], d) : d.y;  // the map's up: rotate_y keeps it
  const float sin_t = std::sqrt(std::max(0.f, 1.f - y * y));
  return sin_t > 0.f ? p * float(e.width * e.height) / (2.f * kPi * kPi * sin_t) : 0.f;
}

// A direction drawn by texel (luminance × sin θ), uniformly within the texel in (u, v).
inline glm::vec3 sample_envmap(const EnvMap& e, float u1, float u2, float& pdf) {
  float ru, rv;
  const int i = detail::pick_cell(e.row_cdf.data(), e.height, u1, rv);
  const int j = detail::pick_cell(&e.col_cdf[size_t(i) * size_t(e.width + 1)], e.width, u2, ru);
  const glm::vec3 d = envmap_direction(e, {(float(j) + ru) / float(e.width), (float(i) + rv) / float(e.height)});
  pdf = envmap_pdf(e, d);
  return d;
}

struct EnvMapEmitter : SkyEmitter<EnvMapEmitter> {
  static constexpr std::string_view kPlugins[] = {"envmap"};
  static constexpr bool kRotateY = true;
  static EnvMapEmitter read(EmitterProps& p) {
    p.keys({"filename", "scale", "rotate_y", "matrix", "width", "height", "value"});
    const Image img = p.image();
    for (float x : img.data)
      if (x < 0.f) p.fail("filename", "has a negative radiance, " + fmt_number(x));
    EnvMapEmitter e;
    e.env.width = img.width;
    e.env.height = img.height;
    e.env.data = p.block("data", img.data, {uint32_t(img.height), uint32_t(img.width), 3u}, Domain::at_least(0));
    e.env.scale = p.param("scale", p.positive_or_one("scale"), Domain::positive());
    e.env.rotate_y = p.has("rotate_y") ? float(p.number("rotate_y")) * kPi / 180.f : 0.f;
    if (p.has("matrix")) {
      e.env.to_world = p.rotation("matrix", "an envmap");
      e.env.rotated = true;
    }
    return e;
  }

  EnvMap env;

  EmitterParams params() const {
    return {{}, {{{env.data, uint32_t(3 * size_t(env.width) * size_t(env.height))}, {env.scale, 1}}}, -1};
  }
  template <class T>
  Vec3<T> radiance(const ParamView<T>& P, const glm::vec3& d) const {
    return envmap_radiance(env, P, d);
  }
  float pdf(const glm::vec3& d) const { return envmap_pdf(env, d); }
  glm::vec3 sample_direction(float u1, float u2, float& pdf) const { return sample_envmap(env, u1, u2, pdf); }
  void refresh_tables(const ParamTable& params) { build_envmap_tables(env, params); }
};

}  // namespace dray
