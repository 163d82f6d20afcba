#pragma once
// Microfacet distributions (Beckmann and GGX, anisotropic), their Smith shadowing, and sampling of
// the visible normals (Heitz and d'Eon, "Importance Sampling Microfacet-Based BSDFs using the
// Distribution of Visible Normals", 2014; Heitz, "Sampling the GGX Distribution of Visible
// Normals", JCGT 2018). Values in T (roughness is a parameter); sampling in float.
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/core/frame.h"

namespace dray {

enum class MicrofacetType { beckmann, ggx };

// Mitsuba's MicrofacetDistribution raises α to at least 1e-4 (include/mitsuba/render/microfacet.h,
// configure()): below it the lobe is a spike that float directions cannot resolve (an optimizer
// stepping α towards 0 would otherwise drop every sample). Its derivative there is 0, as Mitsuba's.
inline constexpr float kMinAlpha = 1e-4f;
template <class T>
T clamped_alpha(const T& a) {
  return value(a) < kMinAlpha ? T(kMinAlpha) : a;
}

template <class T>
struct Microfacet {
  MicrofacetType type;
  T ax, ay;  // roughness along the local x and y axes

  // The density of normals m (local, unit), per unit solid angle of m.
  T D(const Vec3<T>& m) const {
    if (!(value(m.z) > 0.f)) return T(0.f);
    const T x = m.x / ax, y = m.y / ay, z2 = m.z * m.z;
    if (type == MicrofacetType::beckmann)
      return exp(-(x * x + y * y) / z2) / (T(kPi) * ax * ay * z2 * z2);
    const T q = x * x + y * y + z2;
    return T(1.f) / (T(kPi) * ax * ay * q * q);
  }

  // Smith's shadowing of direction v over normals m (0 on the back of m or of the surface).
  T G1(const Vec3<T>& v, const Vec3<T>& m) const {
    if (!(value(dot(v, m)) * value(v.z) > 0.f)) return T(0.f);
    const T xy = ax * ax * v.x * v.x + ay * ay * v.y * v.y;
    if (!(value(xy) > 0.f)) return T(1.f);
    const T z2 = v.z * v.z;
    if (type == MicrofacetType::ggx) return T(2.f) / (T(1.f) + sqrt(T(1.f) + xy / z2));
    // Beckmann's exact Λ(a), a = 1 / (α tan θ).
    const T a = sqrt(z2 / xy);
    const T lambda = T(0.5f) * (erf(a) - T(1.f)) + exp(-a * a) / (a * T(2.f * std::sqrt(kPi)));
    return T(1.f) / (T(1.f) + lambda);
  }

  T G(const Vec3<T>& wo, const Vec3<T>& wi, const Vec3<T>& m) const { return G1(wo, m) * G1(wi, m); }
};

namespace detail {

// The x in [lo, hi] where the increasing function cdf reaches target, with its derivative pdf:
// Newton steps kept inside a shrinking bracket (bisection when a step leaves it).
template <class Cdf, class Pdf>
double invert_increasing(const Cdf& cdf, const Pdf& pdf, double target, double lo, double hi) {
  double x = 0.5 * (lo + hi);
  for (int i = 0; i < 100; ++i) {
    const double f = cdf(x) - target;
    if (f > 0.) hi = x;
    else lo = x;
    const double d = pdf(x);
    double next = d > 0. ? x - f / d : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::fabs(next - x) < 1e-12 * (1. + std::fabs(x)) || hi - lo < 1e-12) return next;
    x = next;
  }
  return x;
}

// A visible slope (x, y) of the unit-roughness Beckmann distribution seen at angle θ in the xz
// plane: density ∝ (cos θ - x sin θ) exp(-x² - y²) for x < cot θ.
inline glm::dvec2 beckmann_visible_slope(double cos_t, double sin_t, glm::vec2 u) {
  const double sqrt_pi = std::sqrt(double(kPi));
  const double hi = sin_t > 1e-9 ? std::min(cos_t / sin_t, 9.) : 9.;
  auto cdf_x = [&](double x) { return cos_t * 0.5 * sqrt_pi * (1. + std::erf(x)) + sin_t * 0.5 * std::exp(-x * x); };
  auto pdf_x = [&](double x) { return std::exp(-x * x) * (cos_t - x * sin_t); };
  const double x = invert_increasing(cdf_x, pdf_x, double(u.x) * cdf_x(hi), -9., hi);
  auto cdf_y = [](double y) { return 0.5 * (1. + std::erf(y)); };
  auto pdf_y = [&](double y) { return std::exp(-y * y) / sqrt_pi; };
  const double y = invert_increasing(cdf_y, pdf_y, double(u.y), -9., 9.);
  return {x, y};
}

}  // namespace detail

// A normal m drawn with density D_wo(m) = G1(wo, m) max(0, wo·m) D(m) / cos θo (wo local, upper
// hemisphere).
inline glm::vec3 sample_visible_normal(const Microfacet<float>& d, const glm::vec3& wo, glm::vec2 u) {
  // Stretch to unit roughness.
  const glm::vec3 v = glm::normalize(glm::vec3(d.ax * wo.x, d.ay * wo.y, wo.z));
  glm::vec3 m;
  if (d.type == MicrofacetType::ggx) {
    // GGX: a uniform disk projected onto the hemisphere seen from v.
    const float len2 = v.x * v.x + v.y * v.y;
    const glm::vec3 t1 = len2 > 0.f ? glm::vec3(-v.y, v.x, 0.f) / std::sqrt(len2) : glm::vec3(1.f, 0.f, 0.f);
    const glm::vec3 t2 = glm::cross(v, t1);
    const float r = std::sqrt(u.x), phi = 2.f * kPi * u.y;
    const float p1 = r * std::cos(phi), s = 0.5f * (1.f + v.z);
    const float p2 = (1.f - s) * std::sqrt(std::max(0.f, 1.f - p1 * p1)) + s * r * std::sin(phi);
    m = p1 * t1 + p2 * t2 + std::sqrt(std::max(0.f, 1.f - p1 * p1 - p2 * p2)) * v;
  } else {
    const double sin_t = std::sqrt(double(v.x) * v.x + double(v.y) * v.y), cos_t = v.z;
    const double cp = sin_t > 1e-12 ? v.x / sin_t : 1., sp = sin_t > 1e-12 ? v.y / sin_t : 0.;
    const glm::dvec2 s = detail::beckmann_visible_slope(cos_t, sin_t, u);
    const double sx = cp * s.x - sp * s.y, sy = sp * s.x + cp * s.y;
    m = glm::vec3(float(-sx), float(-sy), 1.f);
  }
  // Unstretch.
  return glm::normalize(glm::vec3(d.ax * m.x, d.ay * m.y, std::max(0.f, m.z)));
}

// The density of sample_visible_normal, per unit solid angle of m.
inline float visible_normal_pdf(const Microfacet<float>& d, const glm::vec3& wo, const glm::vec3& m) {
  if (!(wo.z > 0.f)) return 0.f;
  const Vec3<float> wo_(wo), m_(m);
  return d.G1(wo_, m_) * std::max(0.f, glm::dot(wo, m)) * d.D(m_) / wo.z;
}

}  // namespace dray
