#pragma once
// The pieces Mitsuba 3's `principled` and `principledthin` share (src/bsdfs/principledhelpers.h):
// Schlick's Fresnel with its weight (1 − cos)⁵, the GTR1 clearcoat distribution, the isotropic
// GGX shadowing of the clearcoat, the roughness-to-α map, and the test that a microfacet normal
// agrees with the macro surface. Directions are Mitsuba's: wi toward the viewer, wo toward the light.
#include <array>
#include <cmath>

#include "renderer/bsdfs/fresnel.h"
#include "renderer/bsdfs/microfacet.h"
#include "renderer/textures/texture.h"

namespace dray::principled {

// (1 − cos)⁵, cos clamped to [0, 1].
template <class T>
T schlick_weight(const T& c) {
  const float v = 1.f - value(c);
  const T m = v <= 0.f ? T(0.f) : v >= 1.f ? T(1.f) : T(1.f) - c;
  const T m2 = m * m;
  return m2 * m2 * m;
}

// Schlick's approximation with normal reflectance r0 (a number or a colour) at cos_i, the side
// given by its sign; past the critical angle of eta, through the refracted cosine.
template <class R, class T>
R schlick(const R& r0, const T& cos_i, const T& eta) {
  const bool outside = value(cos_i) >= 0.f;
  const T eta_it = outside ? eta : T(1.f) / eta, eta_ti = outside ? T(1.f) / eta : eta;
  const T c2 = T(1.f) - (T(1.f) - cos_i * cos_i) * eta_ti * eta_ti;
  const T w = value(eta_it) > 1.f ? schlick_weight(abs(cos_i)) : schlick_weight(value(c2) > 0.f ? sqrt(c2) : T(0.f));
  return r0 * (T(1.f) - w) + R(w);
}

// ((eta − 1) / (eta + 1))².
template <class T>
T schlick_r0(const T& eta) {
  const T r = (eta - T(1.f)) / (eta + T(1.f));
  return r * r;
}

// The GTR1 distribution of the clearcoat (Burley 2012), isotropic, of roughness alpha.
template <class T>
T gtr1(const Vec3<T>& m, const T& alpha) {
  const T a2 = alpha * alpha, c2 = m.z * m.z;
  const T d = (a2 - T(1.f)) / (T(kPi) * log(a2) * (T(1.f) + (a2 - T(1.f)) * c2));
  return value(d) * value(m.z) > 1e-20f ? d : T(0.f);
}

// A normal drawn with density gtr1(m) cos θm.
inline glm::vec3 sample_gtr1(float alpha, glm::vec2 u) {
  const float a2 = alpha * alpha, phi = 2.f * kPi * u.x;
  const float c2 = (1.f - std::pow(a2, 1.f - u.y)) / (1.f - a2);
  const float s = std::sqrt(std::max(0.f, 1.f - c2)), c = std::sqrt(std::max(0.f, c2));
  return {std::cos(phi) * s, std::sin(phi) * s, c};
}

// Isotropic GGX shadowing of v over normal m (0 on the back of either).
template <class T>
T smith_ggx1(const Vec3<T>& v, const Vec3<T>& m, float alpha) {
  if (!(value(dot(v, m)) * value(v.z) > 0.f)) return T(0.f);
  if (value(v.z) == 1.f) return T(1.f);
  const T c2 = v.z * v.z, t2 = (T(1.f) - c2) / c2;
  return T(2.f) / (T(1.f) + sqrt(T(1.f) + T(alpha * alpha) * t2));
}

// The GGX roughnesses of `roughness` (squared) and `anisotropic` (aspect √(1 − 0.9 a)), ≥ 0.001.
template <class T>
void alphas(const T& roughness, const T& anisotropic, bool has_anisotropic, T& ax, T& ay) {
  const T r2 = roughness * roughness;
  auto floor = [](const T& a) { return value(a) < 0.001f ? T(0.001f) : a; };
  if (!has_anisotropic) {
    ax = ay = floor(r2);
    return;
  }
  const T aspect = sqrt(T(1.f) - T(0.9f) * anisotropic);
  ax = floor(r2 / aspect);
  ay = floor(r2 * aspect);
}

// Whether wi and wo lie on the sides of microfacet m that a reflection (or a refraction) needs,
// wi's side of the macro surface given by cos_i.
inline bool compatible(const glm::vec3& m, const glm::vec3& wi, const glm::vec3& wo, float cos_i, bool reflection) {
  const glm::vec3 ms = cos_i < 0.f ? -m : m;
  return glm::dot(wi, ms) > 0.f && (reflection ? glm::dot(wo, ms) > 0.f : glm::dot(wo, ms) < 0.f);
}

// The half vector of wi and wo (upper hemisphere): of a reflection, or of a refraction with
// relative index eta_path (of wo's side over wi's).
template <class T>
Vec3<T> half_vector(const Vec3<T>& wi, const Vec3<T>& wo, bool reflect, const T& eta_path) {
  Vec3<T> h = normalize(wi + wo * (reflect ? T(1.f) : eta_path));
  return value(h.z) < 0.f ? -h : h;
}

// c / luminance(c), or white for black.
template <class T>
Vec3<T> tint(const Vec3<T>& c) {
  const T l = luminance(c);
  return value(l) > 0.f ? c / l : Vec3<T>(T(1.f));
}

// Burley's diffuse with retro-reflection at roughness r (Fi, Fo the Schlick weights of the two
// cosines, cd = cos θd), flattened toward Hanrahan–Krueger's f_ss by `flatness` when given.
template <class T>
T burley(const T& r, const T& Fi, const T& Fo, const T& cd, const T& abs_ci, const T& abs_co, const T* flatness) {
  const T f_diff = (T(1.f) - T(0.5f) * Fi) * (T(1.f) - T(0.5f) * Fo);
  const T Rr = T(2.f) * r * cd * cd, f_retro = Rr * (Fo + Fi + Fo * Fi * (Rr - T(1.f)));
  if (!flatness) return f_diff + f_retro;
  const T fss90 = Rr / T(2.f), fss = (T(1.f) + (fss90 - T(1.f)) * Fo) * (T(1.f) + (fss90 - T(1.f)) * Fi);
  const T f_ss = T(1.25f) * (fss * (T(1.f) / (abs_co + abs_ci) - T(0.5f)) + T(0.5f));
  return (f_diff + f_retro) * (T(1.f) - *flatness) + f_ss * *flatness;
}

// The sheen's colour: white, toward the base's tint by `sheen_tint` when given.
template <class T>
Vec3<T> sheen_colour(const Vec3<T>& base, const T* sheen_tint) {
  if (!sheen_tint) return Vec3<T>(T(1.f));
  return Vec3<T>(T(1.f) - *sheen_tint) + tint(base) * *sheen_tint;
}

}  // namespace dray::principled
