#pragma once
// Mitsuba 3's `area`: a shape's emission (in dray its material's `emission`, a colour or a texture,
// from the front side, both with `two_sided`, along the normal alone with `directional`: Mitsuba's
// `directionalarea`). The loader makes one for each emissive shape (a shape's light), and the scene
// lists its emissive primitives with their area CDF (Scene::rebuild). A point is drawn on it
// uniformly in area: a primitive by area, then a point uniform in it.
//
// Its surface queries are the shape's: lift_prim, sample_prim and prim_area (integrators/surface.h)
// and the material's emission, `emitted` (integrators/light_sample.h), reached through the scene's
// type SceneT (found by argument-dependent lookup where the integrators instantiate these): so
// emitters/ stays below scene.h.
#include <algorithm>
#include <vector>

#include "renderer/core/ray_offset.h"
#include "renderer/core/type_crossing.h"
#include "renderer/emitters/emitter_props.h"
#include "renderer/emitters/emitter_sample.h"

namespace dray {

struct AreaEmitter {
  static constexpr std::string_view kPlugins[] = {"area"};
  static constexpr EmitterPlacement kPlacement = EmitterPlacement::surface;
  static constexpr EmitterWorld kWorld = EmitterWorld::none;
  static AreaEmitter read(EmitterProps& p) {
    p.fail("type", "an area light is a shape's emission: give the shape a material with \"emission\"");
    return {};
  }

  uint32_t shape = 0;           // the emissive shape
  std::vector<uint32_t> prims;  // its emissive primitives (BVH primitive ids)
  std::vector<float> cdf;       // their area CDF
  float area = 0.f;

  // Its radiance is its material's (light_seeded asks the material).
  EmitterParams params() const { return {}; }
  Slot place() const { return kNoSlot; }

  // The primitive a uniform number picks, by area.
  uint32_t pick_prim(float u) const {
    return prims[std::min(size_t(std::upper_bound(cdf.begin(), cdf.end(), u * area) - cdf.begin()), prims.size() - 1)];
  }

  // The probability (per unit solid angle, as seen from `from`) that next-event estimation picks
  // the point `at` on primitive `prim`.
  template <class T, class SceneT, class Prim, class Point>
  T pdf(const SceneT& scene, const Prim& prim, const Point& at, const Vec3<T>& from) const {
    Vec3<T> d = at.p - from;
    T dist2 = dot(d, d);
    T cos_l = abs(dot(at.n, d)) / sqrt(dist2);
    // Light chosen uniformly and primitive by area (discrete: float); point uniform in the
    // primitive's area (T: the area is the Jacobian of the sample's reparameterisation).
    T prim_a = prim_area(prim);
    float pick = value(prim_a) / (float(scene.lights.size()) * area);
    return T(pick) * dist2 / (cos_l * prim_a);
  }

  template <class G, class S, class SceneT>
  LightSample<G, S> sample(const SceneT& scene, const ParamView<S>& P, const Vec3<G>& x, float, float u1, float u2,
                           float u3) const {
    LightSample<G, S> s;
    const uint32_t prim = pick_prim(u3);
    const auto lp = lift_prim(scene, geometry_view<G>(P), prim);
    auto q = sample_prim(lp, u1, u2);
    const Vec3<G> to = q.p - x;
    s.wi = to / sqrt(dot(to, to));
    const auto& lm = scene.materials[scene.material_of(prim)];
    if (lm.directional) return s;  // its one direction misses x
    const G cos_l = -dot(q.n, s.wi);  // > 0: x sees the front side
    if (lm.two_sided && value(cos_l) < 0.f) q.n = -q.n;
    else if (!(value(cos_l) > 0.f)) return s;
    const G light_pdf = pdf<G>(scene, lp, q, x);
    s.pdf = value(light_pdf);
    s.weight = emitted(scene, P, lm, prim, lp, q.p, true) / to_shading<S>(light_pdf);
    // The light point, offset to its emitting side (the side facing x).
    const glm::vec3 q_f = value(q.p);
    s.target = q_f + value(q.n) * detail::ray_epsilon(q_f);
    s.prim = prim;
    s.valid = true;
    return s;
  }

  // A point uniform in its area (pdf 1 / area), its front normal, and its primitive.
  template <class SceneT>
  auto surface_point(const SceneT& scene, Sampler& s, uint32_t& prim) const {
    const float u1 = s.next(), u2 = s.next(), u3 = s.next();
    prim = pick_prim(u3);
    return sample_prim(lift_prim(scene, ParamView<float>(scene.params), prim), u1, u2);
  }
  template <class SceneT>
  glm::vec3 radiance_at(const SceneT& scene, uint32_t prim, const glm::vec3& p) const {
    const ParamView<float> P(scene.params);
    const auto& m = scene.materials[scene.material_of(prim)];
    return value(emitted(scene, P, m, prim, lift_prim(scene, P, prim), Vec3<float>(p), true));
  }

  // A particle: a point uniform in area leaving cosine-weighted about its emitting side, β = Le
  // cos / (pick pdf_A cos / π); a directional one leaves along the normal, β = Le A / pick.
  template <class SceneT>
  bool emit(const SceneT& scene, float pick, Sampler& s, Emission& e) const {
    uint32_t prim;
    const auto q = surface_point(scene, s, prim);
    e.p = to_glm(q.p);
    e.n = to_glm(q.n);
    const auto& m = scene.materials[scene.material_of(prim)];
    if (m.directional) {
      e.d = e.n;
      e.beta = radiance_at(scene, prim, e.p) * (area / pick);
      return e.beta != glm::vec3(0.f);
    }
    float sides = 1.f;
    if (m.two_sided) {
      sides = 2.f;
      if (s.next() < 0.5f) e.n = -e.n;
    }
    const glm::vec3 l = cosine_hemisphere({s.next(), s.next()});
    e.d = to_glm(Frame<float>(Vec3<float>(e.n)).to_world(Vec3<float>(l)));
    e.beta = radiance_at(scene, prim, e.p) * (kPi * area * sides / pick);
    return l.z > 0.f;
  }
  std::optional<std::string> violation(const ParamTable&, const auto&) const { return std::nullopt; }
};

}  // namespace dray
