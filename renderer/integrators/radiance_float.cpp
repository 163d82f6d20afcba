// The path kernel on float (the primal, and the float paths of the boundary terms and of path replay),
// compiled once here for the whole library and its users (renderer/integrators/radiance.h).
#include "renderer/integrators/integrator.h"

namespace dray {

DRAY_RADIANCE_INSTANCES(template, float, float);

int camera_start_medium(const Scene& scene, const Shot& shot) {
  return integrator_traits(scene.render).media ? scene.camera_medium(shot) : -1;
}

}  // namespace dray
