#pragma once
// Mitsuba 3's `projector` (src/emitters/projector.cpp): a pinhole at `position` looking at `target`
// (a lookat's frame: z the axis, x = up × z, y = z × x) that projects `irradiance` (a colour or a
// texture, whose aspect sets the frustum's) through a perspective of horizontal field of view `fov`
// (default: a 50 mm lens on 35 mm film at the image's aspect, Mitsuba's focal_length default; Mitsuba's
// `fov_axis` may be given as x),
// times `scale`. A point seen at (a, b, c) in that frame, c > 0, reads the texture at
//   uv = (0.5 − 0.5 a / (c t), 0.5 − 0.5 aspect b / (c t)),  t = tan(fov / 2)
// and receives, along the line from the pinhole, π · scale · irradiance(uv) / (c² cos θ) (θ from the
// axis): a surface facing it at depth 1 gets irradiance π · scale · irradiance. Outside the frustum:
// nothing. uv is in T: a surface moving under the projector slides through its image.
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/emitters/lookat.h"
#include "renderer/emitters/point.h"
#include "renderer/textures/texture.h"

namespace dray {

template <class T>
struct ProjectorArrival {
  bool valid = false;  // inside the frustum
  Vec3<T> wi;          // unit, toward the pinhole
  Vec3<T> weight;      // what arrives: π scale irradiance(uv) / (c² cos θ)
  T dist2{0.f};        // |p − x|²
};

struct ProjectorEmitter {
  static constexpr std::string_view kPlugins[] = {"projector"};
  static constexpr EmitterPlacement kPlacement = EmitterPlacement::point;
  static constexpr EmitterWorld kWorld = EmitterWorld::lookat;
  static ProjectorEmitter read(EmitterProps& p) {
    p.keys({"position", "target", "up", "irradiance", "scale", "fov", "fov_axis"});
    if (p.has("fov_axis") && p.string("fov_axis") != "x") p.fail("fov_axis", "must be x (dray's fov is horizontal)");
    ProjectorEmitter e;
    e.at = LookAt::read(p, true, "image");
    if (p.is_texture("irradiance")) {
      e.texture = p.texture("irradiance");
      const glm::ivec2 size = p.texture_size(e.texture);
      if (size.x > 0 && size.y > 0) e.aspect = float(size.x) / float(size.y);
    } else {
      e.intensity = p.param("irradiance", p.colour_or("irradiance", glm::vec3(1.f)), Domain::at_least(0));
    }
    e.scale = p.param("scale", p.positive_or_one("scale"), Domain::positive());
    // 35 mm film's diagonal (43.27 mm) shared out at the aspect, over twice the focal length.
    const double a = e.aspect, width_mm = std::hypot(36.0, 24.0) * a / std::sqrt(1.0 + a * a);
    e.fov = p.has("fov") ? float(p.number("fov")) : float(2.0 * std::atan(width_mm / 100.0) * 180.0 / M_PI);
    if (!(e.fov > 0.f && e.fov < 180.f)) p.fail("fov", "must be in (0, 180) degrees, got " + fmt_number(e.fov));
    return e;
  }

  LookAt at;                 // where it is; its up orients the image
  Slot intensity = kNoSlot;  // its irradiance where it has no texture
  Slot scale = kNoSlot;      // the factor on its irradiance
  int texture = -1;          // its image (the scene's index), or -1
  float fov = 0.f, aspect = 1.f;  // horizontal field of view (degrees), its image's width / height

  EmitterParams params() const { return {{{{at.position, 3}, {at.target, 3}}}, {{{intensity, 3}, {scale, 1}}}, texture}; }
  Slot place() const { return at.position; }

  template <class T>
  ProjectorArrival<T> arrival(const Texture* textures, const ParamView<T>& P, const Vec3<T>& x) const {
    ProjectorArrival<T> out;
    const Vec3<T> p = P.vec3(at.position);
    const LookAtFrame<T> f = at.frame(P, p);
    const Vec3<T> rel = x - p;
    const T a = dot(rel, f.left), b = dot(rel, f.up), c = dot(rel, f.axis);
    if (!(value(c) > 0.f)) return out;
    const float t = std::tan(0.5f * fov * kPi / 180.f);
    const T u = T(0.5f) - T(0.5f / t) * a / c, v = T(0.5f) - T(0.5f * aspect / t) * b / c;
    const glm::vec2 at(value(u), value(v));
    if (!(at.x >= 0.f && at.x <= 1.f && at.y >= 0.f && at.y <= 1.f)) return out;
    out.dist2 = dot(rel, rel);
    const T dist = sqrt(out.dist2);
    const Vec3<T> irradiance = texture >= 0 ? eval_texture(textures[texture], P, TexCoord<T>(at, u, v)) : P.vec3(intensity);
    out.wi = -rel / dist;
    out.weight = irradiance * (T(kPi) * P.scalar(scale) * dist / (c * c * c));  // 1 / (c² cos θ), cos θ = c / dist
    out.valid = true;
    return out;
  }

  template <class G, class S, class SceneT>
  LightSample<G, S> sample(const SceneT& scene, const ParamView<S>& P, const Vec3<G>& x, float pick, float, float,
                           float) const {
    LightSample<G, S> s;
    const ProjectorArrival<S> a = arrival(scene.textures.data(), P, to_shading<S>(x));
    if (!a.valid || !any_light(a.weight)) return s;
    s.wi = to_geometry<G>(a.wi);
    s.weight = a.weight * S(1.f / pick);
    s.target = value(P.vec3(at.position));
    s.valid = true;
    return s;
  }
  // A particle: a point of the image uniform in (u, v), leaving the pinhole through it. Its
  // intensity there is π scale E(uv) / cos³θ (what arrives at distance r is that / r², θ from the
  // axis) and the direction's pdf is aspect / (4 t² cos³θ) (the image plane at unit depth spans
  // 2t × 2t / aspect, and dω = dA cos³θ): β = π scale E(uv) 4 t² / (aspect pick).
  template <class SceneT>
  bool emit(const SceneT& scene, float pick, Sampler& s, Emission& e) const {
    const ParamView<float> P(scene.params);
    const glm::vec2 uv(s.next(), s.next());
    const glm::vec3 p = value(P.vec3(at.position)), axis = glm::normalize(value(P.vec3(at.target)) - p);
    const glm::vec3 left = glm::normalize(glm::cross(at.up, axis)), v_axis = glm::cross(axis, left);
    const float t = std::tan(0.5f * fov * kPi / 180.f);
    e.p = p;
    e.d = glm::normalize(axis + left * ((0.5f - uv.x) * 2.f * t) + v_axis * ((0.5f - uv.y) * 2.f * t / aspect));
    const glm::vec3 E = texture >= 0 ? value(eval_texture(scene.textures[size_t(texture)], P, TexCoord<float>(uv)))
                                     : value(P.vec3(intensity));
    e.beta = E * (kPi * P.scalar(scale) * 4.f * t * t / (aspect * pick));
    return e.beta != glm::vec3(0.f);
  }
  // Its intensity (W/sr) toward y: what arrives times the distance squared; 0 outside.
  template <class SceneT>
  glm::vec3 toward(const SceneT& scene, const ParamView<float>& P, const glm::vec3& y, const glm::vec3&) const {
    const ProjectorArrival<float> a = arrival(scene.textures.data(), P, Vec3<float>(y));
    return a.valid ? to_glm(a.weight) * a.dist2 : glm::vec3(0.f);
  }
  std::optional<std::string> violation(const ParamTable& t, const auto& name_of) const { return at.violation(t, name_of); }
};

}  // namespace dray
