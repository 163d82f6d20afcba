#pragma once
// Mitsuba 3's `gridvolume` (src/volumes/grid.cpp): voxel values on the unit cube [0, 1]³ (under
// `to_world`), trilinear between voxel centres and clamped at the edges (its defaults; or with
// wrap_mode `repeat` the grid tiling space, its indices wrapped, as Mitsuba's), from
// Mitsuba's binary `.vol` files. The values are a parameter block (media.ID.KEY, one entry per
// voxel and channel), so that a density grid is recovered like a texture. A coarse grid of maxima
// (the majorant supergrid) bounds the values cell by cell, so that free-flight sampling through a
// sparse cloud is not run at its densest voxel's rate.
#include <algorithm>
#include <cmath>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "renderer/core/param_table.h"
#include "renderer/core/vec.h"

namespace dray {

struct GridVolume {
  Slot data = kNoSlot;  // the block: res.z × res.y × res.x × channels, x fastest (Mitsuba's order)
  glm::ivec3 res{1};
  int channels = 1;     // 1 or 3
  bool repeat = false;  // wrap_mode repeat: the grid tiles space (else clamped at its edges)
  glm::mat4 to_local{1.f};        // world -> the unit cube
  glm::vec3 lo{0.f}, hi{0.f};     // the world bounding box of the unit cube
  // The majorant supergrid: cells³ cells over the unit cube, each the largest value (over
  // channels) of the voxels its trilinear values reach; rebuilt by refresh_majorants.
  glm::ivec3 cells{1};
  std::vector<float> cell_max;
  float max = 0.f;

  size_t voxels() const { return size_t(res.x) * size_t(res.y) * size_t(res.z); }
  // Rebuilds the supergrid from the values: `max_cells` a side at most (1: one global majorant).
  void refresh_majorants(const ParamTable& params, int max_cells = 16);

  // The eight voxels around p (unit-cube coordinates) in channel c, as block slots, and their
  // trilinear weights (between voxel centres, clamped at the edges or wrapped).
  struct Stencil {
    Slot slot[8];
    float w[8];
  };
  Stencil stencil(const glm::vec3& p, int c) const {
    int i0[3], i1[3];
    float w1[3];
    for (int a = 0; a < 3; ++a) {
      const float x = p[a] * float(res[a]) - 0.5f, f = std::floor(x);
      w1[a] = x - f;
      if (repeat) {
        const int n = res[a], i = int(f - float(n) * std::floor(f / float(n)));  // f mod n, in [0, n)
        i0[a] = std::min(i, n - 1);
        i1[a] = i0[a] + 1 == n ? 0 : i0[a] + 1;
      } else {
        i0[a] = std::clamp(int(f), 0, res[a] - 1);
        i1[a] = std::clamp(int(f) + 1, 0, res[a] - 1);
      }
    }
    Stencil s;
    for (int k = 0; k < 8; ++k) {
      const int x = k & 1 ? i1[0] : i0[0], y = k & 2 ? i1[1] : i0[1], z = k & 4 ? i1[2] : i0[2];
      const size_t voxel = (size_t(z) * size_t(res.y) + size_t(y)) * size_t(res.x) + size_t(x);
      s.slot[k] = data + Slot(voxel * size_t(channels) + size_t(c));
      s.w[k] = (k & 1 ? w1[0] : 1.f - w1[0]) * (k & 2 ? w1[1] : 1.f - w1[1]) * (k & 4 ? w1[2] : 1.f - w1[2]);
    }
    return s;
  }
  // The stencil's value, as two weighted sums of four (one tape statement each).
  template <class T>
  static T eval_stencil(const ParamView<T>& P, const Stencil& s) {
    Slot slot[2][4];
    float w[2][4];
    for (int k = 0; k < 8; ++k) {
      slot[k >> 2][k & 3] = s.slot[k];
      w[k >> 2][k & 3] = s.w[k];
    }
    return P.weighted(slot[0], w[0]) + P.weighted(slot[1], w[1]);
  }
  // Channel c of the value at p (unit-cube coordinates).
  template <class T>
  T eval_channel(const ParamView<T>& P, const glm::vec3& p, int c) const {
    return eval_stencil(P, stencil(p, c));
  }

  // The value at p per channel (one channel: the same in all three).
  template <class T>
  Vec3<T> eval(const ParamView<T>& P, const glm::vec3& p) const {
    if (channels == 1) {
      const T v = eval_channel(P, p, 0);
      return {v, v, v};
    }
    return {eval_channel(P, p, 0), eval_channel(P, p, 1), eval_channel(P, p, 2)};
  }
};

}  // namespace dray
