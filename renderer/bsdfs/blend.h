#pragma once
// Mitsuba 3's `blendbsdf` (src/bsdfs/blendbsdf.cpp): two BSDFs mixed by `weight` (a number or a
// texture, clamped to [0, 1]): (1 − w) f₀ + w f₁. Sampling picks the second with probability w;
// a smooth direction is then weighed by the mixture's f and pdf (one-sample MIS, as Mitsuba), a
// Dirac one by its own lobe. Included by bsdf.h, which declares the dispatch it calls.
#include <memory>

#include "renderer/bsdfs/bsdf_props.h"

namespace dray {

// A BSDF held by value (deep-copied), so that the closed set may nest.
// (Its members are defined after BlendBsdf: copying a Bsdf needs every alternative complete.)
struct BsdfBox {
  std::unique_ptr<Bsdf> p;
  BsdfBox() = default;
  explicit BsdfBox(const Bsdf& b);
  BsdfBox(const BsdfBox& o);
  BsdfBox& operator=(const BsdfBox& o);
  BsdfBox(BsdfBox&&) noexcept;
  BsdfBox& operator=(BsdfBox&&) noexcept;
  ~BsdfBox();
};

struct BlendBsdf {
  static constexpr std::string_view kPlugins[] = {"blendbsdf"};
  // Mitsuba's names for the two: materials.X.bsdf_0.KEY and materials.X.bsdf_1.KEY.
  static BlendBsdf read(BsdfProps& p) {
    p.keys({"weight", "bsdf"}, {"weight", "bsdf"});
    if (p.count("bsdf") != 2) p.fail("bsdf", "must be an array of two BSDF objects");
    BlendBsdf b;
    b.weight = bounded_input(p, "weight", 0.5f);
    b.a = p.nested("bsdf", 0, "bsdf_0");
    b.b = p.nested("bsdf", 1, "bsdf_1");
    return b;
  }
  ScalarInput weight;
  BsdfBox a, b;  // bsdf_0 (weight 0) and bsdf_1 (weight 1)

  template <class T>
  T w(const Inputs<T>& in) const {
    const T x = in.scalar(weight);
    return value(x) <= 0.f ? T(0.f) : value(x) >= 1.f ? T(1.f) : x;
  }

  uint32_t flags() const { return bsdf_flags(*a.p) | bsdf_flags(*b.p); }

  template <class T>
  Vec3<T> f(const Inputs<T>& in, const Vec3<T>& wo, const Vec3<T>& wi) const {
    const T x = w(in);
    return bsdf_f(*a.p, in, wo, wi) * (T(1.f) - x) + bsdf_f(*b.p, in, wo, wi) * x;
  }

  float pdf(const Inputs<float>& in, const glm::vec3& wo, const glm::vec3& wi) const {
    const float x = w(in);
    return (1.f - x) * bsdf_pdf(*a.p, in, wo, wi) + x * bsdf_pdf(*b.p, in, wo, wi);
  }

  BsdfSample sample(const Inputs<float>& in, const glm::vec3& wo, float uc, glm::vec2 u) const {
    const float x = w(in);
    const bool second = uc <= x;  // Mitsuba's choice
    const float prob = second ? x : 1.f - x;
    if (!(prob > 0.f)) return BsdfSample{};
    BsdfSample s = bsdf_sample(second ? *b.p : *a.p, in, wo, second ? uc / x : (uc - x) / (1.f - x), u);
    if (!s.lobe) return s;
    s.component = (s.component << 1) | (second ? 1u : 0u);
    if (s.lobe & kLobeDelta) {
      s.pdf *= prob;  // the weight, value / (prob · pdf) × its share prob, is unchanged
      return s;
    }
    s.pdf = pdf(in, wo, s.wi);
    if (!(s.pdf > 0.f)) return BsdfSample{};
    s.weight = to_glm(f(in, Vec3<float>(wo), Vec3<float>(s.wi))) * (std::fabs(s.wi.z) / s.pdf);
    return s;
  }

  // The Dirac lobe s drew, from the BSDF that drew it, times its share's derivative (w / value(w)).
  template <class T>
  DeltaLobe<T> delta(const Inputs<T>& in, const Vec3<T>& wo, const BsdfSample& s) const {
    const bool second = (s.component & 1u) != 0u;
    const T x = w(in), share = second ? x : T(1.f) - x;
    BsdfSample inner = s;
    inner.component = s.component >> 1;
    inner.pdf = s.pdf / value(share);
    DeltaLobe<T> d = bsdf_delta(second ? *b.p : *a.p, in, wo, inner);
    d.weight = d.weight * (share / T(value(share)));
    return d;
  }
};

inline BsdfBox::BsdfBox(const Bsdf& b) : p(std::make_unique<Bsdf>(b)) {}
inline BsdfBox::BsdfBox(const BsdfBox& o) : p(o.p ? std::make_unique<Bsdf>(*o.p) : nullptr) {}
inline BsdfBox& BsdfBox::operator=(const BsdfBox& o) {
  if (this != &o) p = o.p ? std::make_unique<Bsdf>(*o.p) : nullptr;
  return *this;
}
inline BsdfBox::BsdfBox(BsdfBox&&) noexcept = default;
inline BsdfBox& BsdfBox::operator=(BsdfBox&&) noexcept = default;
inline BsdfBox::~BsdfBox() = default;

}  // namespace dray
