#pragma once
// Mitsuba 3's `spot`: a point light (point.h) whose `intensity` holds on its axis (from `position`
// toward `target`), falls off linearly in angle from `beam_width` to `cutoff_angle`, and may
// project a `texture`.
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/core/vec.h"
#include "renderer/emitters/light.h"
#include "renderer/textures/texture.h"

namespace dray {

// A spot light's falloff for light leaving it along unit direction d (Mitsuba 3's `spot`): 1
// within beam_width of its axis, then linear in the angle to 0 at cutoff_angle (continuous: no
// edge to sample). The angles and the axis are parameters.
template <class T>
T spot_falloff(const ParamView<T>& P, const Light& light, const Vec3<T>& d) {
  const Vec3<T> axis = normalize(P.vec3(light.target) - P.vec3(light.position));
  const T cos_theta = dot(axis, d);
  const T deg = T(kPi / 180.f);
  const T cutoff = P.scalar(light.cutoff) * deg, beam = P.scalar(light.beam) * deg;
  if (value(cos_theta) >= std::cos(value(beam))) return T(1.f);
  if (value(cos_theta) <= std::cos(value(cutoff))) return T(0.f);
  return (cutoff - acos(cos_theta)) / (cutoff - beam);
}

// The intensity (W/sr) a spot light sends along unit direction d: its intensity times the
// falloff, times its projected texture where it has one. The texture is looked up as Mitsuba's
// spot does: in the light's frame (z its axis, y its up, x = y × z), at
// uv = 0.5 + 0.5 (x, y) / (z tan cutoff_angle), in T: a surface moving through the beam (or the
// light turning) slides through the image.
template <class T>
Vec3<T> spot_intensity(const Texture* textures, const ParamView<T>& P, const Light& light, const Vec3<T>& d) {
  const T falloff = spot_falloff(P, light, d);
  if (!(value(falloff) > 0.f)) return Vec3<T>(T(0.f));
  Vec3<T> I = P.vec3(light.intensity) * falloff;
  if (light.texture < 0) return I;
  const Vec3<T> axis = normalize(P.vec3(light.target) - P.vec3(light.position));
  const Vec3<T> left = normalize(cross(Vec3<T>(light.up), axis)), up = cross(axis, left);
  const T z = dot(d, axis) * tan(P.scalar(light.cutoff) * T(kPi / 180.f));
  const T u = T(0.5f) + T(0.5f) * dot(d, left) / z, v = T(0.5f) + T(0.5f) * dot(d, up) / z;
  return I * eval_texture(textures[light.texture], P, TexCoord<T>(glm::vec2(value(u), value(v)), u, v));
}

}  // namespace dray
