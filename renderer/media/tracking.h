#pragma once
// Tracking through a grid volume against its supergrid's majorants (delta and ratio tracking in a
// medium of grid volumes): the cells a ray crosses, the flight log's
// replay, and a grey grid's product of null-collision factors as one tape statement.
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>
#include <vector>

#include "renderer/core/ray.h"
#include "renderer/samplers/sampler.h"
#include "renderer/media/flight_log.h"
#include "renderer/media/grid_volume.h"

namespace dray::media_detail {

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
    float t_near = (0.f - o[k]) / d[k], t_far = (1.f - o[k]) / d[k];
    if (t_near > t_far) std::swap(t_near, t_far);
    a = std::max(a, t_near);
    b = std::min(b, t_far);
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
  // The factor at `stencil` (value v) of a collision with majorant mu, passed with probability q.
  void multiply(const GridVolume::Stencil& stencil, float v, float mu, float q) {
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
        typename Buffers::Entry& e = b.cache[stencil.slot[k] & (Buffers::kCache - 1)];
        if (e.stamp != b.stamp || e.slot != stencil.slot[k]) {
          const int32_t i = P_.scalar(stencil.slot[k]).i;
          e = {stencil.slot[k], b.stamp, i >= 0 ? int32_t(b.args.size()) : -1};
          if (i >= 0) b.args.push_back({i, 0.f});
        }
        if (e.at >= 0) b.args[size_t(e.at)].partial -= value(scale_) * stencil.w[k] * inv;
      }
      d_scale_ -= v * inv;
    } else {
      product_ = product_ * (T(mu) - GridVolume::eval_stencil(P_, stencil) * scale_) / T(mu * q);
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

}  // namespace dray::media_detail
