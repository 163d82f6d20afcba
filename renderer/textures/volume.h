#pragma once
// Mitsuba 3's `volume` texture: a 3D texture for surfaces without a meaningful UV parameterization,
// its value at a surface point the `volume`'s there, in world space (a gridvolume under its
// to_world, trilinear between voxel centres and clamped at the edges, its voxels a parameter block
// textures.NAME.volume; or a constant, Mitsuba's default 0.75). Read for a scalar: a one-channel
// grid's value, else the luminance. The point's motion with the parameters is not followed (the
// voxels' derivatives are).
#include <optional>
#include <string_view>
#include <utility>

#include <glm/mat4x4.hpp>

#include "renderer/textures/texture_props.h"

namespace dray {

struct VolumeTexture {
  static constexpr std::string_view kPlugins[] = {"volume"};
  static VolumeTexture read(TextureProps& p) {
    p.keys({"volume"});
    TextureProps::Volume v = p.volume("volume", glm::vec3(0.75f));
    return {std::move(v.grid), v.constant};
  }

  std::optional<GridVolume> grid;  // else the constant
  Slot constant = kNoSlot;

  // The point in the grid's unit cube.
  glm::vec3 local(const AttributeSite& site) const { return glm::vec3(grid->to_local * glm::vec4(site.p, 1.f)); }

  template <class T>
  Vec3<T> eval(const ParamView<T>& P, const TexCoord<T>& c, bool) const {
    if (!grid) return P.vec3(constant);
    if (grid->channels == 1) return Vec3<T>(grid->eval_channel(P, local(c.site), 0));
    return grid->eval(P, local(c.site));
  }
  template <class T>
  T eval_1(const ParamView<T>& P, const TexCoord<T>& c) const {
    if (grid && grid->channels == 1) return grid->eval_channel(P, local(c.site), 0);
    return luminance(eval(P, c, true));
  }
  bool seeded(const auto& P) const {
    return grid ? P.active(grid->data, uint32_t(grid->voxels() * size_t(grid->channels))) : P.active(constant, 3);
  }
};

}  // namespace dray
