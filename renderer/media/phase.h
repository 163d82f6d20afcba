#pragma once
// Phase functions (Mitsuba 3's src/phase): `isotropic`, `hg` (Henyey–Greenstein, asymmetry g in
// (−1, 1), g > 0 scatters forward; Mitsuba's default 0.8) and `rayleigh`. Each is evaluated at the
// cosine between the direction light travelled in and the one it leaves in (1: straight on), and
// sampled exactly (the sample's weight f / pdf is 1 at the value).
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/core/frame.h"
#include "renderer/core/param_table.h"

namespace dray {

struct PhaseSample {
  glm::vec3 d{0.f};  // world, unit
  float pdf = 0.f;   // solid angle
};

struct Phase {
  enum class Kind { isotropic, hg, rayleigh };
  Kind kind = Kind::isotropic;
  Slot g = kNoSlot;  // hg: media.ID.phase.g

  template <class T>
  T eval(const ParamView<T>& P, const T& cos_s) const {
    constexpr float inv_4pi = float(0.25 / M_PI);
    switch (kind) {
      case Kind::isotropic: return T(inv_4pi);
      case Kind::rayleigh: return T(float(3.0 / (16.0 * M_PI))) * (T(1.f) + cos_s * cos_s);
      case Kind::hg: {
        const T g = P.scalar(this->g);
        const T denom = T(1.f) + g * g - T(2.f) * g * cos_s;
        return T(inv_4pi) * (T(1.f) - g * g) / (denom * sqrt(denom));
      }
    }
    return T(0.f);
  }

  // A direction about the travel direction d (unit), from uniforms u.
  PhaseSample sample(const ParamView<float>& P, const glm::vec3& d, glm::vec2 u) const {
    float c = 1.f - 2.f * u.x;  // isotropic
    if (kind == Kind::hg) {
      const float g = P.scalar(this->g);
      if (std::fabs(g) > 1e-3f) {
        const float s = (1.f - g * g) / (1.f - g + 2.f * g * u.x);
        c = (1.f + g * g - s * s) / (2.f * g);
      }
    } else if (kind == Kind::rayleigh) {
      // The inverse of the cdf of 3/8 (1 + c²) on [−1, 1]: the real root of c³ + 3c = 4(2u − 1).
      const float z = 4.f * (2.f * u.x - 1.f), r = std::sqrt(z * z / 4.f + 1.f);
      c = std::cbrt(z / 2.f + r) + std::cbrt(z / 2.f - r);
    }
    c = std::clamp(c, -1.f, 1.f);
    const float s = std::sqrt(std::max(0.f, 1.f - c * c)), phi = float(2.0 * M_PI) * u.y;
    const Frame<float> f{Vec3<float>(d)};
    const glm::vec3 w = to_glm(f.to_world(Vec3<float>(s * std::cos(phi), s * std::sin(phi), c)));
    return {glm::normalize(w), eval(P, c)};
  }
};

}  // namespace dray
