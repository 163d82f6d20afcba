#include "renderer/integrators/pass.h"

#include "renderer/integrators/integrator_model.h"

namespace dray {

Image image_pass(const Scene& scene, const ImageRequest& request, const PassComm& comm, PassFigures* figures) {
  PassFigures mine;
  return with_integrator(scene.render.integrator, [&](auto plugin) {
    return decltype(plugin)::image_pass(scene, request, comm, figures ? *figures : mine);
  });
}

void gradient_pass(const Scene& scene, const GradientRequest& request, const PassComm& comm, GradientSums& sums,
                   PassFigures& figures) {
  with_integrator(scene.render.integrator, [&](auto plugin) {
    decltype(plugin)::gradient_pass(scene, request, comm, sums, figures);
  });
}

std::optional<std::string> integrator_refusal(const RenderSettings& render, const PassAsk& ask) {
  return with_integrator(render.integrator, [&](auto plugin) { return decltype(plugin)::refusal(ask); });
}

}  // namespace dray
