// The path kernel on ad::Dual<8> (forward mode, five to eight scalars),
// compiled once here for the whole library and its users (renderer/integrators/radiance.h).
#include "renderer/integrators/integrator.h"

namespace dray {

DRAY_RADIANCE_INSTANCES_OF(template, ad::Dual<8>);

}  // namespace dray
