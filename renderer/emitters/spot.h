#pragma once
// Mitsuba 3's `spot` (its to_world a lookat: `position` and `target`): a point light (point.h)
// whose `intensity` (W/sr) holds on its axis, falls off linearly in angle from `beam_width` to
// `cutoff_angle`, and may project a `texture` oriented by `up`.
#include <cmath>

#include <glm/geometric.hpp>

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
    // Mitsuba's defaults: at the origin, looking along +z.
    const glm::vec3 pos = p.vec3_or("position", glm::vec3(0.f)), target = p.vec3_or("target", pos + glm::vec3(0, 0, 1));
    if (!(glm::length(target - pos) > 0.f)) p.fail("target", "must differ from position");
    const float cutoff = float(p.number_or("cutoff_angle", 20.0));
    if (!(cutoff > 0.f && cutoff < 90.f)) p.fail("cutoff_angle", "must be in (0, 90) degrees, got " + fmt_number(cutoff));
    const float beam = p.has("beam_width") ? float(p.number("beam_width")) : cutoff * 0.75f;
    if (!(beam >= 0.f && beam < cutoff))
      p.fail("beam_width", "must be in [0, cutoff_angle) = [0, " + fmt_number(cutoff) + "), got " + fmt_number(beam));
    e.position = p.param("position", pos);
    e.target = p.param("target", target);
    e.intensity = p.param("intensity", p.colour_or("intensity", glm::vec3(1.f)), Domain::at_least(0));
    e.cutoff = p.param("cutoff_angle", cutoff, Domain::open(0, 90));
    e.beam = p.param("beam_width", beam, Domain::right_open(0, 90));
    e.up = p.vec3_or("up", e.up);
    if (p.has("texture")) {
      if (!(glm::length(glm::cross(e.up, target - pos)) > 0.f))
        p.fail("up", "must not be parallel to the axis (target - position): it orients the texture (default [0, 1, 0])");
      e.texture = p.texture("texture");
    }
    return e;
  }

  Slot position = kNoSlot, target = kNoSlot, intensity = kNoSlot;
  Slot cutoff = kNoSlot, beam = kNoSlot;  // cutoff_angle and beam_width, degrees
  int texture = -1;                       // the texture it projects (the scene's index), or -1
  glm::vec3 up{0.f, 1.f, 0.f};            // its frame's up (the texture's +v), as a lookat's

  EmitterParams params() const {
    return {{{{position, 3}, {target, 3}}}, {{{intensity, 3}, {cutoff, 1}, {beam, 1}}}, texture};
  }
  Slot place() const { return position; }

  // The falloff for light leaving along unit direction d: 1 within beam_width of the axis, then
  // linear in the angle to 0 at cutoff_angle (continuous: no edge to sample). The angles and the
  // axis are parameters.
  template <class T>
  T falloff(const ParamView<T>& P, const Vec3<T>& d) const {
    const Vec3<T> axis = normalize(P.vec3(target) - P.vec3(position));
    const T cos_theta = dot(axis, d);
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
    const Vec3<T> axis = normalize(P.vec3(target) - P.vec3(position));
    const Vec3<T> left = normalize(cross(Vec3<T>(up), axis)), v_axis = cross(axis, left);
    const T z = dot(d, axis) * tan(P.scalar(cutoff) * T(kPi / 180.f));
    const T u = T(0.5f) + T(0.5f) * dot(d, left) / z, v = T(0.5f) + T(0.5f) * dot(d, v_axis) / z;
    return I * eval_texture(textures[texture], P, TexCoord<T>(glm::vec2(value(u), value(v)), u, v));
  }

  template <class G, class S, class SceneT>
  LightSample<G, S> sample(const SceneT& scene, const ParamView<S>& P, const Vec3<G>& x, float pick, float, float,
                           float) const {
    return point_light_sample<G, S>(P, position, x, pick,
                                    [&](const Vec3<S>& d) { return intensity_along(scene.textures.data(), P, d); }, true);
  }
  template <class SceneT>
  bool emit(const SceneT& scene, float pick, Sampler& s, Emission& e) const {
    const ParamView<float> P(scene.params);
    return point_emission(value(P.vec3(position)), pick, s, e, [&](const glm::vec3& d) {
      return value(intensity_along(scene.textures.data(), P, Vec3<float>(d)));
    });
  }
  template <class SceneT>
  glm::vec3 toward(const SceneT& scene, const ParamView<float>& P, const glm::vec3&, const glm::vec3& wi) const {
    return to_glm(intensity_along(scene.textures.data(), P, Vec3<float>(-wi)));
  }
  // The beam inside the cutoff, the axis of some length.
  std::optional<std::string> violation(const ParamTable& t, const auto& name_of) const {
    if (!(glm::length(t.get_vec3(target) - t.get_vec3(position)) > 0.f))
      return name_of(target) + ": must differ from " + name_of(position);
    if (!(t.get(beam) < t.get(cutoff)))
      return name_of(beam) + ": must be below " + name_of(cutoff) + " (" + fmt_number(t.get(cutoff)) + "), got " +
             fmt_number(t.get(beam));
    return std::nullopt;
  }
};

}  // namespace dray
