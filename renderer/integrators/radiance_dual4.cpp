// The path kernel on ad::Dual<4> (forward mode, two to four scalars),
// compiled once here for the whole library and its users (renderer/integrators/radiance.h).
#include "renderer/integrators/integrator.h"

namespace dray {

DRAY_RADIANCE_INSTANCES_OF(template, ad::Dual<4>);

}  // namespace dray
