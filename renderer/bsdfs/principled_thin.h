#pragma once
// Mitsuba 3's `principledthin` (src/bsdfs/principledthin.cpp): the principled model for a thin
// sheet (a leaf, paper): GGX reflection and a "transmission" that mirrors a reflection through
// the sheet (roughness scaled by 0.65 eta − 0.35), Burley's diffuse reflection with `sheen`,
// and Lambertian `diff_trans` (0 to 2) through the sheet. Both sides alike; light keeps its
// medium. A lobe whose key is not given (or is the number 0) is off, as in Mitsuba.
#include "renderer/bsdfs/principled_lobes.h"
#include "renderer/bsdfs/principled_props.h"

namespace dray {

struct PrincipledThinBsdf {
  static constexpr std::string_view kPlugins[] = {"principledthin"};
  static PrincipledThinBsdf read(BsdfProps& p) {
    std::vector<std::string> keys = principled::common_keys();
    keys.insert(keys.end(), {"diff_trans", "specular_reflectance_sampling_rate", "specular_transmittance_sampling_rate",
                             "diffuse_reflectance_sampling_rate", "diffuse_transmittance_sampling_rate"});
    p.keys(keys);
    PrincipledThinBsdf b;
    principled::read_common(p, b);
    principled::lobe(p, "diff_trans", b.diff_trans, b.has_diff_trans, 2.f);
    b.eta = positive_input(p, "eta", 1.5f);  // a number (> 0) or a texture
    b.spec_reflect_rate = principled::sampling_rate(p, "specular_reflectance_sampling_rate");
    b.spec_trans_rate = principled::sampling_rate(p, "specular_transmittance_sampling_rate");
    b.diffuse_reflect_rate = principled::sampling_rate(p, "diffuse_reflectance_sampling_rate");
    b.diffuse_trans_rate = principled::sampling_rate(p, "diffuse_transmittance_sampling_rate");
    return b;
  }
  ColourInput base_color;
  ScalarInput roughness, anisotropic, spec_trans, sheen, sheen_tint, flatness, spec_tint, diff_trans, eta;
  bool has_anisotropic = false, has_spec_trans = false, has_sheen = false, has_sheen_tint = false,
       has_flatness = false, has_spec_tint = false, has_diff_trans = false;
  // specular_reflectance_, specular_transmittance_, diffuse_reflectance_, diffuse_transmittance_sampling_rate
  float spec_reflect_rate = 1.f, spec_trans_rate = 1.f, diffuse_reflect_rate = 1.f, diffuse_trans_rate = 1.f;

  uint32_t flags() const {
    return kLobeGlossy | kLobeDiffuse | kLobeReflection |
           (has_spec_trans || has_diff_trans ? uint32_t(kLobeTransmission) : 0u);
  }

  template <class T>
  T get(const Inputs<T>& in, const ScalarInput& s, bool given) const {
    return given ? in.scalar(s) : T(0.f);
  }

  // The two GGX lobes: reflection's roughness, and transmission's scaled by 0.65 eta − 0.35.
  template <class T>
  Microfacet<T> lobe(const Inputs<T>& in, bool transmission) const {
    T r = in.scalar(roughness), ax, ay;
    if (transmission) r = (T(0.65f) * in.scalar(eta) - T(0.35f)) * r;
    principled::alphas(r, get(in, anisotropic, has_anisotropic), has_anisotropic, ax, ay);
    return {MicrofacetType::ggx, ax, ay};
  }

  // Mitsuba's lobe probabilities: specular reflection, specular transmission, diffuse
  // reflection, diffuse transmission.
  std::array<float, 4> probabilities(float spec_trans_v, float diff_trans_half) const {
    std::array<float, 4> p = {has_spec_trans ? spec_trans_v * spec_reflect_rate / 2.f : 0.f,
                              has_spec_trans ? spec_trans_v * spec_trans_rate / 2.f : 0.f,
                              diffuse_reflect_rate * (1.f - spec_trans_v) * (1.f - diff_trans_half),
                              has_diff_trans ? diffuse_trans_rate * (1.f - spec_trans_v) * diff_trans_half : 0.f};
    const float total = p[0] + p[1] + p[2] + p[3];
    for (float& x : p) x /= total;
    return p;
  }

  // f without the cosine; wo (dray's: toward the viewer) is Mitsuba's wi. Both sides mirrored to
  // the viewer's.
  template <class T>
  Vec3<T> f(const Inputs<T>& in, const Vec3<T>& wo, const Vec3<T>& wi) const {
    using namespace principled;
    if (value(wo.z) == 0.f) return Vec3<T>(T(0.f));
    const T s = T(value(wo.z) < 0.f ? -1.f : 1.f);
    const Vec3<T> a = wo * s, b = wi * s;  // a upper; b below when transmitted
    const float cb = value(b.z);
    const bool reflect = cb > 0.f, refract = cb < 0.f;
    const Vec3<T> br(b.x, b.y, abs(b.z));
    const Vec3<T> h = normalize(a + br);
    const glm::vec3 hf = value(h), af = value(a), bf = value(b);
    const T spec_trans_v = get(in, spec_trans, has_spec_trans), diff_trans_v = get(in, diff_trans, has_diff_trans) * T(0.5f);
    const Vec3<T> base = in.vec3(base_color);
    const T ca = a.z, abs_cb = abs(b.z);
    Vec3<T> out(T(0.f));
    if (has_spec_trans && value(spec_trans_v) > 0.f) {
      const T e = in.scalar(eta), F = fresnel_dielectric(dot(a, h), e);
      if (reflect && compatible(hf, af, bf, value(ca), true)) {
        const Microfacet<T> d = lobe(in, false);
        Vec3<T> Ft(F);
        if (has_spec_tint) {
          const T tint_share = in.scalar(spec_tint);
          Ft = Ft * (T(1.f) - tint_share) + schlick(tint(base) * schlick_r0(e), dot(a, h), e) * tint_share;
        }
        out += Ft * (spec_trans_v * d.D(h) * d.G(a, b, h) / (T(4.f) * ca * abs_cb));
      }
      if (refract && compatible(hf, af, bf, value(ca), false)) {
        const Microfacet<T> d = lobe(in, true);
        out += base * (spec_trans_v * (T(1.f) - F) * d.D(h) * d.G(a, b, h) / (T(4.f) * ca * abs_cb));
      }
    }
    if (reflect && value(spec_trans_v) < 1.f && value(diff_trans_v) < 1.f) {
      const T Fo = schlick_weight(abs_cb), Fi = schlick_weight(ca), cd = dot(h, b);
      const T flat = has_flatness ? in.scalar(flatness) : T(0.f), tint_v = has_sheen_tint ? in.scalar(sheen_tint) : T(0.f);
      const T w = (T(1.f) - spec_trans_v) * (T(1.f) - diff_trans_v);
      out += base * (w * T(1.f / kPi) * burley(in.scalar(roughness), Fi, Fo, cd, ca, abs_cb, has_flatness ? &flat : nullptr));
      const T sheen_v = get(in, sheen, has_sheen);
      if (has_sheen && value(sheen_v) > 0.f) {
        const Vec3<T> c = sheen_colour(base, has_sheen_tint ? &tint_v : nullptr);
        out += c * (sheen_v * w * schlick_weight(abs(cd)));
      }
    }
    if (has_diff_trans && refract && value(spec_trans_v) < 1.f && value(diff_trans_v) > 0.f)
      out += base * ((T(1.f) - spec_trans_v) * diff_trans_v * T(1.f / kPi));
    return out;
  }

  float pdf(const Inputs<float>& in, const glm::vec3& wo, const glm::vec3& wi) const {
    using namespace principled;
    if (wo.z == 0.f) return 0.f;
    const float s = wo.z < 0.f ? -1.f : 1.f;
    const glm::vec3 a = wo * s, b = wi * s, br(b.x, b.y, std::fabs(b.z));
    const bool reflect = b.z > 0.f, refract = b.z < 0.f;
    const std::array<float, 4> p = probabilities(get(in, spec_trans, has_spec_trans), get(in, diff_trans, has_diff_trans) * 0.5f);
    float pdf = 0.f;
    if (has_spec_trans) {
      const glm::vec3 h = glm::normalize(a + br);
      const float dh = std::fabs(1.f / (4.f * glm::dot(br, h)));
      if (reflect && compatible(h, a, b, a.z, true)) pdf += p[0] * visible_normal_pdf(lobe(in, false), a, h) * dh;
      if (refract && compatible(h, a, b, a.z, false)) pdf += p[1] * visible_normal_pdf(lobe(in, true), a, h) * dh;
    }
    if (reflect) pdf += p[2] * b.z / kPi;
    if (has_diff_trans && refract) pdf += p[3] * -b.z / kPi;
    return pdf;
  }

  BsdfSample sample(const Inputs<float>& in, const glm::vec3& wo, float uc, glm::vec2 u) const {
    BsdfSample s;
    if (wo.z == 0.f) return s;
    const float sign = wo.z < 0.f ? -1.f : 1.f;
    const glm::vec3 a = wo * sign;
    const std::array<float, 4> p = probabilities(get(in, spec_trans, has_spec_trans), get(in, diff_trans, has_diff_trans) * 0.5f);
    glm::vec3 b;
    if (uc < p[0] + p[1]) {
      // A microfacet reflection, mirrored through the sheet for the transmission lobe; kept only
      // where the microfacet agrees with both directions (as the pdf counts it).
      const bool through = uc >= p[0];
      const glm::vec3 m = sample_visible_normal(lobe(in, through), a, u);
      b = reflect_about(a, m);
      if (through) b.z = -b.z;
      if (!principled::compatible(m, a, b, a.z, !through)) return BsdfSample{};
      s.lobe = kLobeGlossy | (through ? kLobeTransmission : kLobeReflection);
    } else if (uc < p[0] + p[1] + p[2]) {
      b = cosine_hemisphere(u);
      s.lobe = kLobeDiffuse | kLobeReflection;
    } else {
      b = -cosine_hemisphere(u);
      s.lobe = kLobeDiffuse | kLobeTransmission;
    }
    if ((s.lobe & kLobeReflection) ? !(b.z > 0.f) : !(b.z < 0.f)) return BsdfSample{};
    s.wi = b * sign;
    s.pdf = pdf(in, wo, s.wi);
    if (!(s.pdf > 0.f)) return BsdfSample{};
    s.weight = to_glm(f(in, Vec3<float>(wo), Vec3<float>(s.wi))) * (std::fabs(s.wi.z) / s.pdf);
    return s;
  }
};

}  // namespace dray
