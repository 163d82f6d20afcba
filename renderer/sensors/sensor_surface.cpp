#include "renderer/sensors/sensor_surface.h"

#include <algorithm>
#include <cmath>

#include "renderer/shapes/shape.h"

namespace dray {

SurfacePoint<float> SensorSurface::sample(glm::vec2 u) const {
  const float total = area();
  const float x = std::min(u.x * total, std::nextafter(total, 0.f));
  const size_t i = size_t(std::upper_bound(cdf.begin(), cdf.end(), x) - cdf.begin());
  const size_t k = std::min(i, prims.size() - 1);
  const float lo = k == 0 ? 0.f : cdf[k - 1], width = cdf[k] - lo;
  const float u1 = width > 0.f ? std::clamp((x - lo) / width, 0.f, 1.f) : 0.5f;  // the pick's remainder, reused
  const PrimT<float>& prim = prims[k];
  return with_shape_type(prim.kind, [&]<class S>() { return S::sample(prim, u1, u.y); });
}

}  // namespace dray
