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
#include <array>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "renderer/core/ray.h"
#include "renderer/core/sampler.h"
#include "renderer/media/flight_log.h"
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
  // Heterogeneous: the supergrid's maxima times this (Mitsuba's `majorant_factor`, default 1.01).
  // Above 1 a null collision keeps a probability where σt reaches its cell's maximum: the
  // derivative of its weight, −dσ/(μ − σ), is then sampled (at a factor of 1 such a cell scatters
  // at every tentative collision, and the derivative of the null collisions it skips is lost).
  float majorant_factor = 1.01f;
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

// A recorded flight replayed: f(t, majorant) at each collision the float pass logged, with the
// sampler where it was after each distance draw and, at the end, after the flight. False (nothing
// done) when the log's next flight is not this one (renderer/media/flight_log.h).
template <class F>
bool replay_flight(FlightCursor& c, float t_end, Sampler& sampler, F&& f) {
  if (c.at >= c.read.size()) return false;
  const FlightStep& h = c.read[c.at];
  if (h.mu != FlightStep::kHeader || h.t != t_end || h.dimension != sampler.dimension()) return false;
  size_t i = c.at + 1;
  bool going = true;
  for (; i < c.read.size() && c.read[i].mu != FlightStep::kFooter; ++i)
    if (going) {
      sampler.seek(c.read[i].dimension);
      going = f(c.read[i].t, c.read[i].mu);
    }
  if (i < c.read.size()) sampler.seek(c.read[i].dimension);
  c.at = i + 1;
  return true;
}

// Tracking through grid g (σt times `scale`) against its supergrid's majorants: f(t, majorant, p)
// at each tentative collision (p in the grid's unit cube) until it returns false. Recorded into,
// or replayed from, the thread's flight log when one is set.
template <class F>
void track(const GridVolume& g, const Ray& r, float t_end, float scale, Sampler& sampler, F&& f) {
  auto local = [&](float t) { return glm::vec3(g.to_local * glm::vec4(r.o + r.d * t, 1.f)); };
  FlightCursor& c = FlightCursor::local();
  if (c.replaying && replay_flight(c, t_end, sampler, [&](float t, float mu) { return f(t, mu, local(t)); })) return;
  std::vector<FlightStep>* log = c.write;
  if (log) log->push_back({t_end, FlightStep::kHeader, sampler.dimension()});
  majorant_segments(g, r, 0.f, t_end, scale, [&](float a, float b, float mu) {
    if (!(mu > 0.f)) return true;
    for (float t = a;;) {
      t -= std::log(1.f - sampler.next()) / mu;  // 1 − u is exact for 24-bit u
      if (!(t < b)) return true;
      if (log) log->push_back({t, mu, sampler.dimension()});
      if (!f(t, mu, local(t))) return false;
    }
  });
  if (log) log->push_back({0.f, FlightStep::kFooter, sampler.dimension()});
}

// σt of grid g (times scale) at p per channel, in T.
template <class T>
Vec3<T> grid_sigma_t(const GridVolume& g, const ParamView<T>& P, const glm::vec3& p, const T& scale) {
  if (g.channels == 1) {
    const T s = g.eval_channel(P, p, 0) * scale;
    return {s, s, s};
  }
  return g.eval(P, p) * scale;
}

// A grey grid's product of null-collision factors (μ − σ)/(μ q) along a flight (σ = scale · v,
// v the voxels' trilinear value at the collision), in T. In ad::Var it is one tape statement for
// the whole flight, with every voxel's and the scale's partial, instead of a few statements per
// collision: d ln factor / d voxel = −scale w / (μ − σ), d ln factor / d scale = −v / (μ − σ).
// The value is the same float arithmetic in every T (decisions replay bit for bit).
template <class T>
class GreyProduct {
 public:
  GreyProduct(const ParamView<T>& P, const T& scale) : P_(P), scale_(scale) {
    if constexpr (std::is_same_v<T, ad::Var>) {
      Buffers& b = buffers();
      b.args.clear();
      if (++b.stamp == 0) {  // wrapped: no entry may look current
        b.cache.fill({});
        b.stamp = 1;
      }
    }
  }
  // The factor at stencil st (value v) of a collision with majorant mu, passed with probability q.
  void multiply(const GridVolume::Stencil& st, float v, float mu, float q) {
    const float sigma = v * value(scale_);
    if constexpr (std::is_same_v<T, float>) {
      product_ = product_ * (mu - sigma) / (mu * q);
    } else if constexpr (std::is_same_v<T, ad::Var>) {
      product_.v = product_.v * (mu - sigma) / (mu * q);
      if (!(mu - sigma > 0.f)) return void(zero_ = true);
      const float inv = 1.f / (mu - sigma);
      Buffers& b = buffers();
      for (int k = 0; k < 8; ++k) {
        // Successive collisions share voxels: one argument a voxel (while its cache entry holds).
        typename Buffers::Entry& e = b.cache[st.slot[k] & (Buffers::kCache - 1)];
        if (e.stamp != b.stamp || e.slot != st.slot[k]) {
          const int32_t i = P_.scalar(st.slot[k]).i;
          e = {st.slot[k], b.stamp, i >= 0 ? int32_t(b.args.size()) : -1};
          if (i >= 0) b.args.push_back({i, 0.f});
        }
        if (e.at >= 0) b.args[size_t(e.at)].partial -= value(scale_) * st.w[k] * inv;
      }
      d_scale_ -= v * inv;
    } else {
      product_ = product_ * (T(mu) - GridVolume::eval_stencil(P_, st) * scale_) / T(mu * q);
    }
  }
  float value_now() const { return value(product_); }
  T result() const {
    if constexpr (std::is_same_v<T, ad::Var>) {
      std::vector<ad::Tape::Arg>& args = buffers().args;
      if (zero_ || (args.empty() && scale_.i < 0)) return ad::Var(product_.v);
      for (ad::Tape::Arg& a : args) a.partial *= product_.v;
      if (scale_.i >= 0) args.push_back({scale_.i, d_scale_ * product_.v});
      return ad::Var::make_dynamic(product_.v, args);
    } else {
      return product_;
    }
  }

 private:
  // A thread's arguments and voxel cache (flights do not nest), started afresh by each product.
  struct Buffers {
    static constexpr size_t kCache = 256;
    struct Entry {
      Slot slot = 0;
      uint32_t stamp = 0;
      int32_t at = -1;  // the voxel's argument, or -1: not differentiated
    };
    std::vector<ad::Tape::Arg> args;
    std::array<Entry, kCache> cache{};
    uint32_t stamp = 0;
  };
  static Buffers& buffers() {
    thread_local Buffers b;
    return b;
  }
  const ParamView<T>& P_;
  T scale_;
  T product_ = T(1.f);
  float d_scale_ = 0.f;
  bool zero_ = false;
};

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
  // A grid: delta tracking, cell by cell, with spectral-tracking weights; a grey grid's null
  // collisions multiply one product (weights 1 in value that carry the voxels' derivatives).
  const GridVolume& g = volumes[size_t(m.sigma_t_grid)];
  const T scale = P.scalar(m.scale);
  const ParamView<float> PF = P.values_only();
  GreyProduct<T> grey(P, scale);
  track(g, r, t_end, value(scale) * m.majorant_factor, sampler, [&](float t, float mu, const glm::vec3& p) {
    GridVolume::Stencil st;
    float v = 0.f;  // a grey grid's value (σt over scale)
    glm::vec3 sigma;
    if (g.channels == 1) {
      st = g.stencil(p, 0);
      v = GridVolume::eval_stencil(PF, st);
      sigma = glm::vec3(v * value(scale));
    } else {
      sigma = value(g.eval(PF, p) * value(scale));
    }
    const float p_real = std::min(1.f, channel_mean(sigma) / mu);
    if (sampler.next() < p_real) {
      out.scattered = true;
      out.t = t;
      out.weight = out.weight * grid_sigma_t(g, P, p, scale) * medium_albedo(m, volumes, P, r.o + r.d * t) / T(mu * p_real);
      return false;
    }
    if (g.channels == 1) grey.multiply(st, v, mu, 1.f - p_real);
    else out.weight = out.weight * (Vec3<T>(T(mu)) - grid_sigma_t(g, P, p, scale)) / T(mu * (1.f - p_real));
    return true;
  });
  if (g.channels == 1) out.weight = out.weight * Vec3<T>(grey.result());
  return out;
}

// The transmittance of medium m along float ray r over [0, t_end): exact for constant σt, else
// ratio tracking (unbiased, drawing from `sampler`).
template <class T>
Vec3<T> medium_transmittance(const Medium& m, const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r,
                             float t_end, Sampler& sampler) {
  using namespace media_detail;
  if (m.sigma_t_grid < 0) return exp_neg(medium_sigma_t(m, volumes, P, r.o), t_end);
  const GridVolume& g = volumes[size_t(m.sigma_t_grid)];
  const T scale = P.scalar(m.scale);
  const ParamView<float> PF = P.values_only();
  if (g.channels == 1) {
    GreyProduct<T> grey(P, scale);
    track(g, r, t_end, value(scale) * m.majorant_factor, sampler, [&](float, float mu, const glm::vec3& p) {
      const GridVolume::Stencil st = g.stencil(p, 0);
      grey.multiply(st, GridVolume::eval_stencil(PF, st), mu, 1.f);
      return grey.value_now() != 0.f;
    });
    return Vec3<T>(grey.result());
  }
  Vec3<T> tr(T(1.f));
  track(g, r, t_end, value(scale) * m.majorant_factor, sampler, [&](float, float mu, const glm::vec3& p) {
    tr = tr * (Vec3<T>(T(mu)) - grid_sigma_t(g, P, p, scale)) / T(mu);
    return value(tr) != glm::vec3(0.f);
  });
  return tr;
}

}  // namespace dray
