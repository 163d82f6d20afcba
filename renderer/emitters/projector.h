#pragma once
// Mitsuba 3's `projector` (src/emitters/projector.cpp): a pinhole at `position` looking at `target`
// (a lookat's frame: z the axis, x = up × z, y = z × x) that projects `irradiance` (a colour or a
// texture) through a perspective of horizontal field of view `fov`, times `scale`. A point seen at
// (a, b, c) in that frame, c > 0, reads the texture at
//   uv = (0.5 − 0.5 a / (c t), 0.5 − 0.5 aspect b / (c t)),  t = tan(fov / 2)
// and receives, along the line from the pinhole, π · scale · irradiance(uv) / (c² cos θ) (θ from the
// axis): a surface facing it at depth 1 gets irradiance π · scale · irradiance. Outside the frustum:
// nothing. uv is in T: a surface moving under the projector slides through its image.
#include <cmath>

#include "renderer/core/vec.h"
#include "renderer/emitters/light.h"
#include "renderer/textures/texture.h"

namespace dray {

template <class T>
struct ProjectorArrival {
  bool valid = false;  // inside the frustum
  Vec3<T> wi;          // unit, toward the pinhole
  Vec3<T> weight;      // what arrives: π scale irradiance(uv) / (c² cos θ)
  T dist2{0.f};        // |p − x|²
};

template <class T>
ProjectorArrival<T> projector_arrival(const Texture* textures, const ParamView<T>& P, const Light& light, const Vec3<T>& x) {
  ProjectorArrival<T> out;
  const Vec3<T> p = P.vec3(light.position);
  const Vec3<T> axis = normalize(P.vec3(light.target) - p);
  const Vec3<T> left = normalize(cross(Vec3<T>(light.up), axis)), up = cross(axis, left);
  const Vec3<T> rel = x - p;
  const T a = dot(rel, left), b = dot(rel, up), c = dot(rel, axis);
  if (!(value(c) > 0.f)) return out;
  const float t = std::tan(0.5f * light.fov * kPi / 180.f);
  const T u = T(0.5f) - T(0.5f / t) * a / c, v = T(0.5f) - T(0.5f * light.aspect / t) * b / c;
  const glm::vec2 at(value(u), value(v));
  if (!(at.x >= 0.f && at.x <= 1.f && at.y >= 0.f && at.y <= 1.f)) return out;
  out.dist2 = dot(rel, rel);
  const T dist = sqrt(out.dist2);
  const Vec3<T> irradiance =
      light.texture >= 0 ? eval_texture(textures[light.texture], P, TexCoord<T>(at, u, v)) : P.vec3(light.intensity);
  out.wi = -rel / dist;
  out.weight = irradiance * (T(kPi) * P.scalar(light.scale) * dist / (c * c * c));  // 1 / (c² cos θ), cos θ = c / dist
  out.valid = true;
  return out;
}

}  // namespace dray
