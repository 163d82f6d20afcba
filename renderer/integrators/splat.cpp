#include "renderer/integrators/splat.h"

#include "renderer/integrators/pixel_estimate.h"

namespace dray {

std::vector<glm::dvec3> splat_adjoints(const Scene& scene, const Shot& shot, const Tile& window,
                                       const std::function<glm::dvec3(int, int)>& dloss) {
  const size_t w = size_t(window.x1 - window.x0);
  std::vector<double> weight(w * size_t(window.y1 - window.y0), 0.0);
  const Tile sources = splat_sources(scene, shot, window);
  for (int qy = sources.y0; qy < sources.y1; ++qy)
    for (int qx = sources.x0; qx < sources.x1; ++qx)
      for (int s = 0; s < scene.render.spp; ++s) {
        Sampler sampler = camera_sampler(scene, shot, qx, qy, s);
        const FilmSample film = film_sample(scene, shot, sampler, qx, qy);
        for_each_splat_pixel(scene.render.filter, film.x, film.y, window, [&](int x, int y, double f) {
          weight[size_t(y - window.y0) * w + size_t(x - window.x0)] += f;
        });
      }
  std::vector<glm::dvec3> g(weight.size(), glm::dvec3(0.0));
  for (int y = window.y0; y < window.y1; ++y)
    for (int x = window.x0; x < window.x1; ++x) {
      const size_t k = size_t(y - window.y0) * w + size_t(x - window.x0);
      if (weight[k] != 0.0) g[k] = dloss(x, y) / weight[k];
    }
  return g;
}

}  // namespace dray
