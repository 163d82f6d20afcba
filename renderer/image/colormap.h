#pragma once
// False-colour images of per-pixel values, stored linear so that their sRGB PNG shows the map.
#include <vector>

#include "renderer/image/image.h"

namespace dray {

// Values / scale in [0, 1] (clamped; non-finite as 1): black, purple, red, yellow, white.
Image heatmap(const std::vector<float>& values, int width, int height, float scale);

// Signed values / scale in [-1, 1] (clamped; non-finite as 0): blue, white at 0, red.
Image diverging_map(const std::vector<float>& values, int width, int height, float scale);

// The q-quantile (0..1) of |values|: a scale that a few outliers cannot dominate.
float abs_quantile(std::vector<float> values, double q);

}  // namespace dray
