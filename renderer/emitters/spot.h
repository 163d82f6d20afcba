#pragma once
// Mitsuba 3's `spot` (its to_world a lookat: `position` and `target`): a point light (point.h)
// whose `intensity` (W/sr) holds on its axis, falls off linearly in angle from `beam_width` to
// `cutoff_angle`, and may project a `texture` oriented by `up`.
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/emitters/lookat.h"
#include "renderer/emitters/point.h"
#include "renderer/textures/texture.h"

namespace dray {

struct SpotEmitter {
  static constexpr std::string_view kPlugins[] = {"spot"};
  static constexpr EmitterPlacement kPlacement = EmitterPlacement::point;
  static constexpr EmitterWorld kWorld = EmitterWorld::lookat;
  static SpotEmitter read(EmitterProps& p) {
    p.keys({"position", "target", "up", "intensity", "cutoff_angle", "beam_width", "texture"});
    SpotEmitter e;
    e.at = LookAt::read(p, p.has("texture"), "texture");
    const float cutoff = float(p.number_or("cutoff_angle", 20.0));
    if (!(cutoff > 0.f && cutoff < 90.f)) p.fail("cutoff_angle", "must be in (0, 90) degrees, got " + fmt_number(cutoff));
    const float beam = p.has("beam_width") ? float(p.number("beam_width")) : cutoff * 0.75f;
    if (!(beam >= 0.f && beam < cutoff))
      p.fail("beam_width", "must be in [0, cutoff_angle) = [0, " + fmt_number(cutoff) + "), got " + fmt_number(beam));
    e.intensity = p.param("intensity", p.colour_or("intensity", glm::vec3(1.f)), Domain::at_least(0));
    e.cutoff = p.param("cutoff_angle", cutoff, Domain::open(0, 90));
    e.beam = p.param("beam_width", beam, Domain::right_open(0, 90));
    if (p.has("texture")) e.texture = p.texture("texture");
    return e;
  }

  LookAt at;                              // where it is; its up is the texture's +v
  Slot intensity = kNoSlot;
  Slot cutoff = kNoSlot, beam = kNoSlot;  // cutoff_angle and beam_width, degrees
  int texture = -1;                       // the texture it projects (the scene's index), or -1

  EmitterParams params() const {
    return {{{{at.position, 3}, {at.target, 3}}}, {{{intensity, 3}, {cutoff, 1}, {beam, 1}}}, texture};
  }
  Slot place() const { return at.position; }

  // The falloff for light leaving along unit direction d: 1 within beam_width of the axis, then
  // linear in the angle to 0 at cutoff_angle (continuous: no edge to sample). The angles and the
  // axis are parameters.
  template <class T>
  T falloff(const ParamView<T>& P, const Vec3<T>& d) const {
    const T cos_theta = dot(at.axis(P), d);
    const T deg = T(kPi / 180.f);
    const T cutoff_rad = P.scalar(cutoff) * deg, beam_rad = P.scalar(beam) * deg;
    if (value(cos_theta) >= std::cos(value(beam_rad))) return T(1.f);
    if (value(cos_theta) <= std::cos(value(cutoff_rad))) return T(0.f);
    return (cutoff_rad - acos(cos_theta)) / (cutoff_rad - beam_rad);
  }
  // The intensity (W/sr) sent along unit direction d: the intensity times the falloff, times the
  // projected texture where there is one, looked up as Mitsuba's spot does: in the light's frame
  // (z its axis, y its up, x = y × z), at uv = 0.5 + 0.5 (x, y) / (z tan cutoff_angle), in T: a
  // surface moving through the beam (or the light turning) slides through the image.
  template <class T>
  Vec3<T> intensity_along(const Texture* textures, const ParamView<T>& P, const Vec3<T>& d) const {
    const T f = falloff(P, d);
    if (!(value(f) > 0.f)) return Vec3<T>(T(0.f));
    Vec3<T> I = P.vec3(intensity) * f;
    if (texture < 0) return I;
    const LookAtFrame<T> frame = at.frame(P, P.vec3(at.position));
    const T z = dot(d, frame.axis) * tan(P.scalar(cutoff) * T(kPi / 180.f));
    const T u = T(0.5f) + T(0.5f) * dot(d, frame.left) / z, v = T(0.5f) + T(0.5f) * dot(d, frame.up) / z;
    return I * eval_texture(textures[texture], P, TexCoord<T>(glm::vec2(value(u), value(v)), u, v));
  }

  template <class G, class S, class SceneT>
  LightSample<G, S> sample(const SceneT& scene, const ParamView<S>& P, const Vec3<G>& x, float pick, float, float,
                           float) const {
    return point_light_sample<G, S>(P, at.position, x, pick,
                                    [&](const Vec3<S>& d) { return intensity_along(scene.textures.data(), P, d); }, true);
  }
  template <class SceneT>
  bool emit(const SceneT& scene, float pick, Sampler& s, Emission& e) const {
    const ParamView<float> P(scene.params);
    return point_emission(value(P.vec3(at.position)), pick, s, e, [&](const glm::vec3& d) {
      return value(intensity_along(scene.textures.data(), P, Vec3<float>(d)));
    });
  }
  template <class SceneT>
  glm::vec3 toward(const SceneT& scene, const ParamView<float>& P, const glm::vec3&, const glm::vec3& wi) const {
    return to_glm(intensity_along(scene.textures.data(), P, Vec3<float>(-wi)));
  }
  // The axis of some length, the beam inside the cutoff.
  std::optional<std::string> violation(const ParamTable& t, const auto& name_of) const {
    if (auto axis = at.violation(t, name_of)) return axis;
    if (!(t.get(beam) < t.get(cutoff)))
      return name_of(beam) + ": must be below " + name_of(cutoff) + " (" + fmt_number(t.get(cutoff)) + "), got " +
             fmt_number(t.get(beam));
    return std::nullopt;
  }
};

}  // namespace dray
