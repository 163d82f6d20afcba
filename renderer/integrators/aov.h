#pragma once
// Arbitrary output variables (Mitsuba's `aov` integrator): per pixel, beside the image, the mean
// over the pixel's samples of what each camera ray first meets: its material's albedo, depth,
// position, UV, geometric and shading normals, dp/du and dp/dv, UV partials per pixel, primitive and
// shape index (0 where it meets nothing). The samples are the image's own (the same film
// positions); AOVs carry no derivatives.
#include <string>
#include <vector>

namespace dray {

enum class AovType { albedo, depth, position, uv, geo_normal, sh_normal, dp_du, dp_dv, duv_dx, duv_dy, prim_index, shape_index };

struct Aov {
  std::string name;  // the channels' prefix: "dd" gives dd.T
  AovType type;
};

// Mitsuba's aovs string, "name:type,name:type" (types albedo, depth, position, uv, geo_normal,
// sh_normal, dp_du, dp_dv, duv_dx, duv_dy, prim_index, shape_index). Throws std::invalid_argument
// saying what is wrong.
std::vector<Aov> parse_aovs(const std::string& spec);
// The string parse_aovs reads.
std::string aovs_spec(const std::vector<Aov>& aovs);
// Their channels' names, in order (dd.T; nn.X, nn.Y, nn.Z; uv.U, uv.V; al.R, al.G, al.B; …), as Mitsuba's.
std::vector<std::string> aov_channel_names(const std::vector<Aov>& aovs);

// Mitsuba's hdrfilm pixel_format: the colour channels a film keeps.
enum class PixelFormat { rgb, rgba, luminance, luminance_alpha, xyz, xyza };
// "rgb", … as Mitsuba spells them; parse throws std::invalid_argument listing them.
const char* pixel_format_name(PixelFormat f);
PixelFormat parse_pixel_format(const std::string& name);
inline bool has_alpha(PixelFormat f) {
  return f == PixelFormat::rgba || f == PixelFormat::luminance_alpha || f == PixelFormat::xyza;
}

struct Scene;
// The film's extra channels a render computes beside the colour: alpha (Mitsuba's: the share of
// the pixel's camera rays that meet a surface, or all of them with a visible environment), when
// the pixel format has one, then the AOVs'.
std::vector<std::string> extra_channel_names(const Scene& scene);
// Pixel (x, y)'s extra channels, extra_channel_names(scene).size() floats into `out`.
void aov_pixel(const Scene& scene, int x, int y, float* out);

}  // namespace dray
