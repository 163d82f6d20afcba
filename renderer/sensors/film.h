#pragma once
// The film's channels of a rendered image (Mitsuba's hdrfilm pixel_format): the colour as the
// scene's pixel format keeps it (R, G, B; Y; X, Y, Z; each with A), then the AOVs' channels,
// named. Linear sRGB to Y and XYZ by the sRGB primaries (D65), as Mitsuba's.
#include "renderer/image/image.h"
#include "renderer/integrators/render.h"

namespace dray {

// `image` as render_tiles writes it for `outputs` (with_aovs: its extra channels included).
Image develop(const Image& image, const RenderOutputs& outputs, const Scene& scene);

// The names develop gives its channels.
std::vector<std::string> film_channel_names(const Scene& scene);

}  // namespace dray
