#include "renderer/sensors/film.h"

#include <algorithm>

namespace dray {

namespace {

// Rows of the linear sRGB to CIE XYZ matrix (D65).
constexpr double kXyz[3][3] = {{0.412453, 0.357580, 0.180423}, {0.212671, 0.715160, 0.072169}, {0.019334, 0.119193, 0.950227}};

std::vector<std::string> colour_names(PixelFormat f) {
  switch (f) {
    case PixelFormat::rgb: return {"R", "G", "B"};
    case PixelFormat::rgba: return {"R", "G", "B", "A"};
    case PixelFormat::luminance: return {"Y"};
    case PixelFormat::luminance_alpha: return {"Y", "A"};
    case PixelFormat::xyz: return {"X", "Y", "Z"};
    case PixelFormat::xyza: return {"X", "Y", "Z", "A"};
  }
  return {};
}

}  // namespace

std::vector<std::string> film_channel_names(const Scene& scene) {
  std::vector<std::string> names = colour_names(scene.render.pixel_format);
  for (const std::string& n : aov_channel_names(scene.render.aovs)) names.push_back(n);
  return names;
}

Image develop(const Image& image, const RenderOutputs& outputs, const Scene& scene) {
  const PixelFormat f = scene.render.pixel_format;
  const std::vector<std::string> names = film_channel_names(scene);
  const int colour = f == PixelFormat::luminance || f == PixelFormat::luminance_alpha ? 1 : 3;
  const int extra = outputs.aovs;  // alpha (when the format has it), then the AOVs
  Image out(image.width, image.height, int(names.size()));
  out.spp = image.spp;
  out.channel_names = names;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const float* in = image.pixel(x, y);
      float* o = out.pixel(x, y);
      auto row = [&](int r) { return float(kXyz[r][0] * in[0] + kXyz[r][1] * in[1] + kXyz[r][2] * in[2]); };
      if (f == PixelFormat::rgb || f == PixelFormat::rgba) std::copy_n(in, 3, o);
      else if (colour == 1) o[0] = row(1);  // Y: luminance
      else for (int r = 0; r < 3; ++r) o[r] = row(r);
      std::copy_n(in + outputs.aov_channel(), extra, o + colour);
    }
  return out;
}

}  // namespace dray
