// The path kernel on ad::Var (reverse mode: path replay's vertices and the whole-path tape),
// compiled once here for the whole library and its users (renderer/integrators/radiance.h).
#include "renderer/integrators/integrator.h"

namespace dray {

DRAY_RADIANCE_INSTANCES_OF(template, ad::Var);

}  // namespace dray
