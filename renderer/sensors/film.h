#pragma once
// The film (Mitsuba's hdrfilm): the colour channels its pixel format keeps (R, G, B; Y; X, Y, Z;
// each with A), the AOVs named beside them (Mitsuba's `aov` integrator's list), the channel layout
// of a render (RenderOutputs), and develop, which turns a render into the film's channels. Linear
// sRGB to Y and XYZ by the sRGB primaries (D65), as Mitsuba's.
#include <string>
#include <vector>

#include "renderer/core/param_table.h"
#include "renderer/image/image.h"

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
// How many channels an AOV of this type has (depth 1, uv 2, position 3, …).
int aov_channel_count(AovType type);
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

// What a render produces per pixel, in this channel order: the mean (RGB), optionally the
// variance of the mean (RGB), then for each differentiated scalar its derivative (RGB), then
// the film's extra channels, when `aovs`: alpha when the pixel format has it, then the scene's
// AOVs (extra_channel_names).
struct RenderOutputs {
  bool variance = false;
  std::vector<Slot> wrt;  // scalar parameter slots, one derivative image each
  int aovs = 0;           // the extra channels: 0, or extra_channel_names(scene).size()

  int channels() const { return 3 + (variance ? 3 : 0) + 3 * int(wrt.size()) + aovs; }
  int derivative_channel(size_t k) const { return 3 + (variance ? 3 : 0) + 3 * int(k); }
  int aov_channel() const { return derivative_channel(wrt.size()); }
};
// `image` as render_tiles writes it for `outputs` (with_aovs: its extra channels included), in
// the channels of `format` followed by the AOVs'.
Image develop(const Image& image, const RenderOutputs& outputs, PixelFormat format, const std::vector<Aov>& aovs);

// The names develop gives its channels.
std::vector<std::string> film_channel_names(PixelFormat format, const std::vector<Aov>& aovs);

}  // namespace dray
