// The path kernel on float (the primal, and the float paths of the boundary terms and of path replay),
// compiled once here for the whole library and its users (renderer/integrators/radiance.h).
#include "renderer/integrators/integrator.h"

namespace dray {

DRAY_RADIANCE_INSTANCES(template, float, float);

}  // namespace dray
