#pragma once
// A path's flight through a medium (media/medium.h), and the flight where σt is constant: the
// distance drawn in one channel chosen at random and weighed by the channels' mean pdf (one-sample
// MIS over channels, as Mitsuba's volpathmis); transmittance exact.
#include <algorithm>
#include <cmath>

#include "renderer/core/ray.h"
#include "renderer/samplers/sampler.h"

namespace dray {

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

}  // namespace media_detail

// The flight along float ray r over [0, t_end) where σt is `sigma_t` everywhere; albedo_at(p) the
// albedo at world point p.
template <class T, class Albedo>
FreeFlight<T> constant_free_flight(const Vec3<T>& sigma_t, Albedo&& albedo_at, const Ray& r, float t_end, Sampler& sampler) {
  using namespace media_detail;
  FreeFlight<T> out;
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
    out.weight = sigma_t * albedo_at(r.o + r.d * t) * tr / T(pdf);
  } else {
    const float pass = channel_mean(tr_f);
    out.weight = pass > 0.f ? tr / T(pass) : Vec3<T>(T(0.f));
  }
  return out;
}

}  // namespace dray
