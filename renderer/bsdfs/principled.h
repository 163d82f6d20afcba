#pragma once
// Mitsuba 3's `principled` (src/bsdfs/principled.cpp; Burley 2015, "Extending the Disney BRDF to a
// BSDF with Integrated Subsurface Scattering"): a GGX specular lobe (reflection, and refraction
// with `spec_trans`) whose Fresnel mixes the dielectric's with Schlick's of `metallic` and
// `spec_tint`; Burley's diffuse with retro-reflection (and `flatness`), `sheen`, and a GTR1
// `clearcoat`, each weighted and sampled as Mitsuba does. A lobe whose key is not given (or is
// given as the number 0) is off, as in Mitsuba. Every value may be a texture.
#include "renderer/bsdfs/principled_lobes.h"
#include "renderer/bsdfs/principled_props.h"

namespace dray {

struct PrincipledBsdf {
  static constexpr std::string_view kPlugins[] = {"principled"};
  static PrincipledBsdf read(BsdfProps& p) {
    std::vector<std::string> keys = principled::common_keys();
    keys.insert(keys.end(), {"metallic", "clearcoat", "clearcoat_gloss", "specular", "main_specular_sampling_rate",
                             "clearcoat_sampling_rate", "diffuse_reflectance_sampling_rate"});
    p.keys(keys);
    PrincipledBsdf b;
    principled::read_common(p, b);
    principled::lobe(p, "metallic", b.metallic, b.has_metallic);
    principled::lobe(p, "clearcoat", b.clearcoat, b.has_clearcoat);
    b.clearcoat_gloss = bounded_input(p, "clearcoat_gloss", 0.f);
    // eta (> 0, a number), or specular (in [0, 1], a number) giving it; not both.
    if (p.has("eta") && p.has("specular")) p.fail("specular", "give either eta or specular, not both");
    if (p.has("eta")) b.eta = positive_input(p, "eta", 1.5f, false).slot;
    else b.specular = bounded_input(p, "specular", 0.5f, 1.f, false).slot;
    b.spec_rate = principled::sampling_rate(p, "main_specular_sampling_rate");
    b.clearcoat_rate = principled::sampling_rate(p, "clearcoat_sampling_rate");
    b.diffuse_rate = principled::sampling_rate(p, "diffuse_reflectance_sampling_rate");
    return b;
  }
  ColourInput base_color;
  ScalarInput roughness, anisotropic, spec_trans, sheen, sheen_tint, flatness, spec_tint, metallic, clearcoat,
      clearcoat_gloss;
  Slot eta = kNoSlot, specular = kNoSlot;  // one of them: `eta`, or `specular` giving eta
  bool has_anisotropic = false, has_spec_trans = false, has_sheen = false, has_sheen_tint = false,
       has_flatness = false, has_spec_tint = false, has_metallic = false, has_clearcoat = false;
  float spec_rate = 1.f, clearcoat_rate = 1.f, diffuse_rate = 1.f;  // the *_sampling_rate keys

  uint32_t flags() const {
    return kLobeGlossy | kLobeDiffuse | kLobeReflection | (has_spec_trans ? uint32_t(kLobeTransmission) : 0u);
  }

  // The relative index: `eta`, or 2 / (1 − √(0.08 specular)) − 1 (specular 0.5 gives 1.5); an
  // index of 1 is nudged to 1.001 (0.001 for specular) when light refracts, as Mitsuba does.
  template <class T>
  T ior(const Inputs<T>& in) const {
    if (eta != kNoSlot) {
      const T e = in.P.scalar(eta);
      return has_spec_trans && value(e) == 1.f ? T(1.001f) : e;
    }
    T s = in.P.scalar(specular);
    if (has_spec_trans && value(s) == 0.f) s = T(1e-3f);
    return T(2.f) / (T(1.f) - sqrt(T(0.08f) * s)) - T(1.f);
  }

  template <class T>
  T get(const Inputs<T>& in, const ScalarInput& s, bool given) const {
    return given ? in.scalar(s) : T(0.f);
  }

  // Mitsuba's lobe probabilities on the side cos_i says, for the dielectric reflectance F.
  struct Probabilities {
    float spec_reflect, spec_trans, clearcoat, diffuse;
  };
  Probabilities probabilities(bool front, float F, float brdf, float bsdf, float clearcoat) const {
    Probabilities p{front ? spec_rate * (1.f - bsdf * (1.f - F)) : F,
                    has_spec_trans ? (front ? spec_rate * bsdf * (1.f - F) : 1.f - F) : 0.f,
                    has_clearcoat && front ? 0.25f * clearcoat * clearcoat_rate : 0.f, front ? brdf * diffuse_rate : 0.f};
    const float total = p.spec_reflect + p.spec_trans + p.clearcoat + p.diffuse;
    return {p.spec_reflect / total, p.spec_trans / total, p.clearcoat / total, p.diffuse / total};
  }

  // f without the cosine; wo (dray's: toward the viewer) is Mitsuba's wi.
  template <class T>
  Vec3<T> f(const Inputs<T>& in, const Vec3<T>& wo, const Vec3<T>& wi) const {
    using namespace principled;
    const Vec3<T>& a = wo;  // Mitsuba's wi
    const Vec3<T>& b = wi;  // Mitsuba's wo
    const float ca = value(a.z), cb = value(b.z);
    if (ca == 0.f || cb == 0.f) return Vec3<T>(T(0.f));
    const T metallic_v = get(in, metallic, has_metallic), spec_trans_v = get(in, spec_trans, has_spec_trans);
    const T brdf = (T(1.f) - metallic_v) * (T(1.f) - spec_trans_v), bsdf = (T(1.f) - metallic_v) * spec_trans_v;
    const bool reflect = ca * cb > 0.f, front = ca > 0.f;
    const T e = ior(in), eta_path = front ? e : T(1.f) / e;
    T ax, ay;
    alphas(in.scalar(roughness), get(in, anisotropic, has_anisotropic), has_anisotropic, ax, ay);
    const Microfacet<T> dist{MicrofacetType::ggx, ax, ay};
    const Vec3<T> h = half_vector(a, b, reflect, eta_path);
    const glm::vec3 hf = value(h), af = value(a), bf = value(b);
    const T ah = dot(a, h), F = fresnel_dielectric(ah, e);
    const Vec3<T> base = in.vec3(base_color);
    Vec3<T> out(T(0.f));
    const T D = dist.D(h), G = dist.G(a, b, h), abs_ca = abs(a.z), abs_cb = abs(b.z);
    if (reflect && compatible(hf, af, bf, ca, true) && value(F) > 0.f) {
      const T spec_tint_v = get(in, spec_tint, has_spec_tint);
      Vec3<T> Fp;
      if (front) {
        Vec3<T> fs(T(0.f));
        if (has_metallic) fs += schlick(base, ah, e) * metallic_v;
        if (has_spec_tint) fs += schlick(tint(base) * schlick_r0(value(ah) >= 0.f ? e : T(1.f) / e), ah, e) * ((T(1.f) - metallic_v) * spec_tint_v);
        Fp = Vec3<T>((T(1.f) - metallic_v) * (T(1.f) - spec_tint_v) * F) + fs;
      } else {
        Fp = Vec3<T>(bsdf * F);
      }
      out += Fp * (D * G / (T(4.f) * abs_ca * abs_cb));
    }
    if (has_spec_trans && !reflect && value(bsdf) > 0.f && compatible(hf, af, bf, ca, false) && value(F) < 1.f) {
      const T bh = dot(b, h), denom = ah + eta_path * bh, inv = T(1.f) / eta_path;
      const T v = abs(inv * inv * (T(1.f) - F) * D * G * eta_path * eta_path * ah * bh / (a.z * denom * denom));
      out += Vec3<T>(sqrt(base.x), sqrt(base.y), sqrt(base.z)) * (bsdf * v / abs_cb);
    }
    if (!reflect || !front) return out;
    const T clearcoat_v = get(in, clearcoat, has_clearcoat);
    if (has_clearcoat && value(clearcoat_v) > 0.f && compatible(hf, af, bf, ca, true)) {
      const T alpha = T(0.1f) + (T(0.001f) - T(0.1f)) * in.scalar(clearcoat_gloss);
      const T Fcc = schlick(T(0.04f), ah, e), Dcc = gtr1(h, alpha);
      out += Vec3<T>(clearcoat_v * T(0.25f) * Fcc * Dcc * smith_ggx1(a, h, 0.25f) * smith_ggx1(b, h, 0.25f));
    }
    if (value(brdf) > 0.f) {
      const T Fo = schlick_weight(abs_cb), Fi = schlick_weight(abs_ca), cd = dot(h, b);
      const T flat = has_flatness ? in.scalar(flatness) : T(0.f), tint_v = has_sheen_tint ? in.scalar(sheen_tint) : T(0.f);
      out += base * (brdf * T(1.f / kPi) * burley(in.scalar(roughness), Fi, Fo, cd, abs_ca, abs_cb, has_flatness ? &flat : nullptr));
      const T sheen_v = get(in, sheen, has_sheen);
      if (has_sheen && value(sheen_v) > 0.f && 1.f - value(metallic_v) > 0.f) {
        const T Fd = schlick_weight(abs(cd));
        const Vec3<T> c = sheen_colour(base, has_sheen_tint ? &tint_v : nullptr);
        out += c * (sheen_v * (T(1.f) - metallic_v) * Fd);
      }
    }
    return out;
  }

  float pdf(const Inputs<float>& in, const glm::vec3& wo, const glm::vec3& wi) const {
    using namespace principled;
    const glm::vec3 &a = wo, &b = wi;
    if (a.z == 0.f) return 0.f;
    const float metallic_v = get(in, metallic, has_metallic), spec_trans_v = get(in, spec_trans, has_spec_trans);
    const float brdf = (1.f - metallic_v) * (1.f - spec_trans_v), bsdf = (1.f - metallic_v) * spec_trans_v;
    const bool front = a.z > 0.f, reflect = a.z * b.z > 0.f;
    const float e = ior(in), eta_path = front ? e : 1.f / e;
    const glm::vec3 h = to_glm(half_vector(Vec3<float>(a), Vec3<float>(b), reflect, eta_path));
    float ax, ay;
    alphas(in.scalar(roughness), get(in, anisotropic, has_anisotropic), has_anisotropic, ax, ay);
    const float F = fresnel_dielectric(glm::dot(a, h), e);
    const Probabilities p = probabilities(front, F, brdf, bsdf, get(in, clearcoat, has_clearcoat));
    const float ah = glm::dot(a, h), bh = glm::dot(b, h);
    const float dh_db = has_spec_trans && !reflect ? std::fabs(eta_path * eta_path * bh / ((ah + eta_path * bh) * (ah + eta_path * bh)))
                                                   : std::fabs(1.f / (4.f * bh));
    const float pm = visible_normal_pdf(Microfacet<float>{MicrofacetType::ggx, ax, ay}, front ? a : -a, h);
    float pdf = 0.f;
    const bool reflect_ok = reflect && compatible(h, a, b, a.z, true);
    if (reflect_ok) pdf += p.spec_reflect * pm * dh_db;
    if (reflect) pdf += p.diffuse * std::max(0.f, b.z * (front ? 1.f : -1.f)) / kPi;
    if (has_spec_trans && !reflect && compatible(h, a, b, a.z, false)) pdf += p.spec_trans * pm * dh_db;
    if (has_clearcoat && reflect_ok) {
      const float alpha = 0.1f + (0.001f - 0.1f) * in.scalar(clearcoat_gloss);
      pdf += p.clearcoat * gtr1(Vec3<float>(h), alpha) * h.z * dh_db;
    }
    return pdf;
  }

  BsdfSample sample(const Inputs<float>& in, const glm::vec3& wo, float uc, glm::vec2 u) const {
    using namespace principled;
    BsdfSample s;
    const glm::vec3& a = wo;
    if (a.z == 0.f) return s;
    const float metallic_v = get(in, metallic, has_metallic), spec_trans_v = get(in, spec_trans, has_spec_trans);
    const float brdf = (1.f - metallic_v) * (1.f - spec_trans_v), bsdf = (1.f - metallic_v) * spec_trans_v;
    const bool front = a.z > 0.f;
    if (!front && !(bsdf > 0.f)) return s;
    float ax, ay;
    alphas(in.scalar(roughness), get(in, anisotropic, has_anisotropic), has_anisotropic, ax, ay);
    const glm::vec3 m = sample_visible_normal(Microfacet<float>{MicrofacetType::ggx, ax, ay}, front ? a : -a, u);
    float cos_t, eta_ti;
    const float am = glm::dot(a, m), F = fresnel_dielectric(am, ior(in), cos_t, eta_ti);
    const Probabilities p = probabilities(front, F, brdf, bsdf, get(in, clearcoat, has_clearcoat));
    if (uc < p.diffuse) {
      s.wi = cosine_hemisphere(u);
      s.lobe = kLobeDiffuse | kLobeReflection;
    } else if (uc < p.diffuse + p.clearcoat) {
      // Microfacet lobes keep a direction only where the microfacet agrees with both (as the pdf
      // counts them).
      const glm::vec3 mc = sample_gtr1(0.1f + (0.001f - 0.1f) * in.scalar(clearcoat_gloss), u);
      s.wi = reflect_about(a, mc);
      s.lobe = kLobeGlossy | kLobeReflection;
      if (!compatible(mc, a, s.wi, a.z, true)) return BsdfSample{};
    } else if (uc < p.diffuse + p.clearcoat + p.spec_trans) {
      s.wi = m * (am * eta_ti + cos_t) - a * eta_ti;
      s.lobe = kLobeGlossy | kLobeTransmission;
      s.eta = 1.f / eta_ti;
      if (!(a.z * s.wi.z < 0.f) || !compatible(m, a, s.wi, a.z, false)) return BsdfSample{};
    } else {
      s.wi = reflect_about(a, m);
      s.lobe = kLobeGlossy | kLobeReflection;
      if (!compatible(m, a, s.wi, a.z, true)) return BsdfSample{};
    }
    if ((s.lobe & kLobeReflection) && !(a.z * s.wi.z > 0.f)) return BsdfSample{};
    s.pdf = pdf(in, a, s.wi);
    if (!(s.pdf > 0.f)) return BsdfSample{};
    s.weight = to_glm(f(in, Vec3<float>(a), Vec3<float>(s.wi))) * (std::fabs(s.wi.z) / s.pdf);
    return s;
  }
};

}  // namespace dray
