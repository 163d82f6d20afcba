#pragma once
// Participating media (Mitsuba 3's src/media): `homogeneous` (σt and albedo RGB constants) and
// `heterogeneous` (σt and albedo from grid volumes or constants), σt times `scale`, and a phase
// function. A medium fills the inside (or outside) of the shapes that name it; paths carry the
// medium they travel in (renderer/integrators/volume.h).
//
// Distances are decisions (float, DESIGN.md invariant 2); the weights that follow from them are
// evaluated in T, so that albedo, σt, scale and the voxels get their derivatives at fixed
// distances. Homogeneous media sample the distance in one channel chosen at random and weigh it
// by the channels' mean density (one-sample MIS over channels: an RGB σt that differs per
// channel, as Mitsuba's volpathmis); heterogeneous media run delta tracking against the
// majorant of each supergrid cell, with spectral-tracking weights (Kutz et al. 2017) where σt
// differs per channel. Transmittance is exact in homogeneous media, ratio tracking in others.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "renderer/core/ray.h"
#include "renderer/core/sampler.h"
#include "renderer/media/grid_volume.h"
#include "renderer/media/phase.h"

namespace dray {

struct Medium {
  std::string name;
  bool homogeneous = true;
  Slot sigma_t = kNoSlot, albedo = kNoSlot;  // RGB constants (kNoSlot where a grid gives them)
  Slot scale = kNoSlot;
  int sigma_t_grid = -1, albedo_grid = -1;   // heterogeneous: indices into the scene's volumes
  Phase phase;
  bool sample_emitters = true;
};

// What became of a path crossing a medium over [0, t_end): scattered at t (weight includes σs and
// the free-flight pdf), or passed (weight: transmittance over its probability).
template <class T>
struct FreeFlight {
  bool scattered = false;
  float t = INFINITY;
  Vec3<T> weight{T(1.f)};
};

namespace media_detail {

inline float channel_mean(const glm::vec3& v) { return (v.x + v.y + v.z) / 3.f; }

// exp(−σ t) per channel; over an infinite distance 0 (a constant: no 0 · ∞ derivative) where σ > 0.
template <class T>
Vec3<T> exp_neg(const Vec3<T>& sigma, float t) {
  auto one = [&](const T& s) { return value(s) == 0.f ? T(1.f) : std::isinf(t) ? T(0.f) : exp(-s * T(t)); };
  return {one(sigma.x), one(sigma.y), one(sigma.z)};
}

// The segments of float ray r over [t0, t1) inside a grid's unit cube, with their cells'
// majorants (times `scale`): f(a, b, majorant) in order until it returns false.
template <class F>
void majorant_segments(const GridVolume& g, const Ray& r, float t0, float t1, float scale, F&& f) {
  const glm::vec3 o = glm::vec3(g.to_local * glm::vec4(r.o, 1.f)), d = glm::vec3(g.to_local * glm::vec4(r.d, 0.f));
  float a = t0, b = t1;
  for (int k = 0; k < 3; ++k) {  // clip to [0, 1]³
    if (d[k] == 0.f) {
      if (o[k] < 0.f || o[k] > 1.f) return;
      continue;
    }
    float ta = (0.f - o[k]) / d[k], tb = (1.f - o[k]) / d[k];
    if (ta > tb) std::swap(ta, tb);
    a = std::max(a, ta);
    b = std::min(b, tb);
  }
  if (!(a < b)) return;
  // Amanatides–Woo over the cells.
  const glm::vec3 cells(g.cells);
  glm::ivec3 c, step;
  glm::vec3 t_next, t_delta;
  const glm::vec3 pa = (o + d * a) * cells;
  for (int k = 0; k < 3; ++k) {
    c[k] = std::clamp(int(std::floor(pa[k])), 0, g.cells[k] - 1);
    const float dk = d[k] * cells[k];
    step[k] = dk > 0.f ? 1 : -1;
    t_delta[k] = dk != 0.f ? std::fabs(1.f / dk) : INFINITY;
    t_next[k] = dk > 0.f ? a + (float(c[k] + 1) - pa[k]) / dk : dk < 0.f ? a + (float(c[k]) - pa[k]) / dk : INFINITY;
  }
  float t = a;
  while (t < b) {
    const int k = t_next.x < t_next.y ? (t_next.x < t_next.z ? 0 : 2) : (t_next.y < t_next.z ? 1 : 2);
    const float e = std::min(b, t_next[k]);
    const float m = g.cell_max[(size_t(c.z) * size_t(g.cells.y) + size_t(c.y)) * size_t(g.cells.x) + size_t(c.x)] * scale;
    if (e > t && !f(t, e, m)) return;
    t = e;
    c[k] += step[k];
    if (c[k] < 0 || c[k] >= g.cells[k]) return;
    t_next[k] += t_delta[k];
  }
}

}  // namespace media_detail

// σt (times scale) and the albedo of medium m at world point p, per channel.
template <class T>
Vec3<T> medium_sigma_t(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const glm::vec3& p) {
  if (m.sigma_t_grid < 0) return P.vec3(m.sigma_t) * P.scalar(m.scale);
  const GridVolume& g = volumes[size_t(m.sigma_t_grid)];
  return g.eval(P, glm::vec3(g.to_local * glm::vec4(p, 1.f))) * P.scalar(m.scale);
}
template <class T>
Vec3<T> medium_albedo(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const glm::vec3& p) {
  if (m.albedo_grid < 0) return P.vec3(m.albedo);
  const GridVolume& g = volumes[size_t(m.albedo_grid)];
  return g.eval(P, glm::vec3(g.to_local * glm::vec4(p, 1.f)));
}

namespace media_detail {

// Tracking through a grid against its supergrid's majorants: f(t, σt) at each tentative collision
// (σt per channel: `grey` says one channel, σt.x) until it returns false. σt is evaluated in T,
// one value for a grey grid.
template <class T, class F>
void track(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r, float t_end,
           Sampler& sampler, F&& f) {
  const GridVolume& g = volumes[size_t(m.sigma_t_grid)];
  const T scale = P.scalar(m.scale);
  majorant_segments(g, r, 0.f, t_end, value(scale), [&](float a, float b, float mu) {
    if (!(mu > 0.f)) return true;
    for (float t = a;;) {
      t -= std::log(1.f - sampler.next()) / mu;  // 1 − u is exact for 24-bit u
      if (!(t < b)) return true;
      const glm::vec3 p = glm::vec3(g.to_local * glm::vec4(r.o + r.d * t, 1.f));
      if (g.channels == 1) {
        const T s = g.eval_channel(P, p, 0) * scale;
        if (!f(t, mu, Vec3<T>(s, s, s))) return false;
      } else if (!f(t, mu, g.eval(P, p) * scale)) {
        return false;
      }
    }
  });
}

}  // namespace media_detail

// A free flight along float ray r over [0, t_end) in medium m.
template <class T>
FreeFlight<T> sample_free_flight(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r,
                                 float t_end, Sampler& sampler) {
  using namespace media_detail;
  FreeFlight<T> out;
  if (m.sigma_t_grid < 0) {
    // Constant σt: the distance in a channel drawn at random, weighed by the mean pdf.
    const Vec3<T> sigma_t = medium_sigma_t(m, volumes, P, r.o);
    const glm::vec3 s = value(sigma_t);
    const int c = std::min(int(sampler.next() * 3.f), 2);
    const float u = sampler.next();
    const float t = s[c] > 0.f ? -std::log(1.f - u) / s[c] : INFINITY;
    const float td = std::min(t, t_end);
    const Vec3<T> tr = exp_neg(sigma_t, td);
    const glm::vec3 tr_f = value(tr);
    if (t < t_end) {
      const float pdf = channel_mean(s * tr_f);
      if (!(pdf > 0.f)) return {false, INFINITY, Vec3<T>(T(0.f))};
      out.scattered = true;
      out.t = t;
      out.weight = sigma_t * medium_albedo(m, volumes, P, r.o + r.d * t) * tr / T(pdf);
    } else {
      const float pass = channel_mean(tr_f);
      out.weight = pass > 0.f ? tr / T(pass) : Vec3<T>(T(0.f));
    }
    return out;
  }
  // A grid: delta tracking, cell by cell; a grey grid carries one weight (its null collisions'
  // weights are 1 in value and carry the voxels' derivatives).
  T grey(1.f);
  const bool is_grey = volumes[size_t(m.sigma_t_grid)].channels == 1;
  track(m, volumes, P, r, t_end, sampler, [&](float t, float mu, const Vec3<T>& sigma_t) {
    const float p_real = std::min(1.f, channel_mean(value(sigma_t)) / mu);
    if (sampler.next() < p_real) {
      out.scattered = true;
      out.t = t;
      out.weight = out.weight * Vec3<T>(grey) * sigma_t * medium_albedo(m, volumes, P, r.o + r.d * t) / T(mu * p_real);
      return false;
    }
    if (is_grey) grey = grey * (T(mu) - sigma_t.x) / T(mu * (1.f - p_real));
    else out.weight = out.weight * (Vec3<T>(T(mu)) - sigma_t) / T(mu * (1.f - p_real));
    return true;
  });
  if (!out.scattered) out.weight = out.weight * Vec3<T>(grey);
  return out;
}

// The transmittance of medium m along float ray r over [0, t_end): exact for constant σt, else
// ratio tracking (unbiased, drawing from `sampler`).
template <class T>
Vec3<T> medium_transmittance(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r,
                             float t_end, Sampler& sampler) {
  using namespace media_detail;
  if (m.sigma_t_grid < 0) return exp_neg(medium_sigma_t(m, volumes, P, r.o), t_end);
  T grey(1.f);
  Vec3<T> tr(T(1.f));
  const bool is_grey = volumes[size_t(m.sigma_t_grid)].channels == 1;
  track(m, volumes, P, r, t_end, sampler, [&](float, float mu, const Vec3<T>& sigma_t) {
    if (is_grey) {
      grey = grey * (T(mu) - sigma_t.x) / T(mu);
      return value(grey) != 0.f;
    }
    tr = tr * (Vec3<T>(T(mu)) - sigma_t) / T(mu);
    return value(tr) != glm::vec3(0.f);
  });
  return tr * Vec3<T>(grey);
}

}  // namespace dray
