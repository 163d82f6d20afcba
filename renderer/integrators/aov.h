#pragma once
// Arbitrary output variables (Mitsuba's `aov` integrator): per pixel, beside the image, the mean
// over the pixel's samples of what each camera ray first meets: its material's albedo, depth,
// position, UV, geometric and shading normals, dp/du and dp/dv, UV partials per pixel, primitive and
// shape index (0 where it meets nothing). The samples are the image's own (the same film
// positions); AOVs carry no derivatives.
#include <string>
#include <vector>

#include "renderer/sensors/film.h"

namespace dray {

struct Scene;
struct Shot;
// The film's extra channels a render computes beside the colour: alpha (Mitsuba's: the share of
// the pixel's camera rays that meet a surface, or all of them with a visible environment), when
// the pixel format has one, then the AOVs'.
std::vector<std::string> extra_channel_names(const Scene& scene);
// Pixel (x, y)'s extra channels, extra_channel_names(scene).size() floats into `out`.
void aov_pixel(const Scene& scene, const Shot& shot, int x, int y, float* out);

}  // namespace dray
