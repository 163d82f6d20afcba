// The report's slices of a medium's grid (tools/optimize_report.h).
#include <algorithm>

#include "renderer/image/colormap.h"
#include "renderer/image/image.h"
#include "tools/optimize_report.h"

namespace dray::cli {

void Report::set_grid_slices(const std::string& name, const ParamTable& current, const ParamTable* truth) {
  const auto e = current.find(name);
  if (!e || e->shape.size() != 4) return;
  const auto t = truth ? truth->find(name) : std::nullopt;
  const bool has_truth = t && t->shape == e->shape;
  const int nz = int(e->shape[0]), ny = int(e->shape[1]), nx = int(e->shape[2]), nc = int(e->shape[3]);
  auto at = [&](const ParamTable& p, Slot base, int x, int y, int z) {
    return p.get(base + Slot(((size_t(z) * size_t(ny) + size_t(y)) * size_t(nx) + size_t(x)) * size_t(nc)));
  };
  float scale = 0.f;
  for (uint32_t i = 0; i < e->size; ++i) scale = std::max(scale, (has_truth ? *truth : current).get((has_truth ? t->slot : e->slot) + i));
  if (!(scale > 0.f)) scale = 1.f;
  Slices s{name, {}};
  // Across z (x right, y up), y (x right, z down) and x (z right, y up).
  struct Plane {
    const char* label;
    int w, h;
  };
  const Plane planes[3] = {{"z", nx, ny}, {"y", nx, nz}, {"x", nz, ny}};
  for (int row = 0; row < (has_truth ? 2 : 1); ++row) {
    const ParamTable& p = row == 0 ? current : *truth;
    const Slot base = row == 0 ? e->slot : t->slot;
    for (int k = 0; k < 3; ++k) {
      const Plane& pl = planes[k];
      std::vector<float> v(size_t(pl.w) * size_t(pl.h));
      for (int j = 0; j < pl.h; ++j)
        for (int i = 0; i < pl.w; ++i) {
          const int x = k == 2 ? nx / 2 : i, y = k == 1 ? ny / 2 : pl.h - 1 - j,
                    z = k == 0 ? nz / 2 : (k == 1 ? j : i);
          v[size_t(j) * size_t(pl.w) + size_t(i)] = at(p, base, x, y, z);
        }
      s.images.push_back({std::string(row == 0 ? "current" : "truth") + ", middle " + pl.label + " slice",
                          png_data(png_bytes(heatmap(v, pl.w, pl.h, scale)))});
    }
  }
  for (Slices& old : slices_)
    if (old.name == name) {
      old = std::move(s);
      return;
    }
  slices_.push_back(std::move(s));
}

}  // namespace dray::cli
