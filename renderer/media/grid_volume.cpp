#include "renderer/media/grid_volume.h"

#include <algorithm>

namespace dray {

void GridVolume::refresh_majorants(const ParamTable& params, int max_cells) {
  // No more cells than voxels.
  cells = glm::min(res, glm::ivec3(max_cells));
  cell_max.assign(size_t(cells.x) * size_t(cells.y) * size_t(cells.z), 0.f);
  max = 0.f;
  const float* v = params.values().data() + data;
  for (int z = 0; z < res.z; ++z)
    for (int y = 0; y < res.y; ++y)
      for (int x = 0; x < res.x; ++x) {
        const size_t base = ((size_t(z) * size_t(res.y) + size_t(y)) * size_t(res.x) + size_t(x)) * size_t(channels);
        float m = 0.f;
        for (int c = 0; c < channels; ++c) m = std::max(m, v[base + size_t(c)]);
        max = std::max(max, m);
        // A voxel's trilinear values reach half a voxel past its centre's neighbours: every cell
        // that [x − 1, x + 1] (in voxels) overlaps.
        const glm::ivec3 p(x, y, z);
        glm::ivec3 c0, c1;
        for (int a = 0; a < 3; ++a) {
          c0[a] = std::clamp(int(float(p[a] - 1) * float(cells[a]) / float(res[a])), 0, cells[a] - 1);
          c1[a] = std::clamp(int(float(p[a] + 2) * float(cells[a]) / float(res[a])), 0, cells[a] - 1);
        }
        for (int cz = c0.z; cz <= c1.z; ++cz)
          for (int cy = c0.y; cy <= c1.y; ++cy)
            for (int cx = c0.x; cx <= c1.x; ++cx) {
              float& cm = cell_max[(size_t(cz) * size_t(cells.y) + size_t(cy)) * size_t(cells.x) + size_t(cx)];
              cm = std::max(cm, m);
            }
      }
}

}  // namespace dray
