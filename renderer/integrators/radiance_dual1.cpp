// The path kernel on ad::Dual<1> (forward mode, one scalar at a time),
// compiled once here for the whole library and its users (renderer/integrators/radiance.h).
#include "renderer/integrators/integrator.h"

namespace dray {

DRAY_RADIANCE_INSTANCES_OF(template, ad::Dual<1>);

}  // namespace dray
