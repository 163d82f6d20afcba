#pragma once
// Float images with any number of channels, and their files: PNG (8-bit sRGB, clamped) and
// OpenEXR (linear float).
#include <string>
#include <vector>

namespace dray {

struct Image {
  int width = 0, height = 0, channels = 3;
  std::vector<float> data;  // row-major, top row first, channels interleaved

  Image() = default;
  Image(int w, int h, int c = 3) : width(w), height(h), channels(c), data(size_t(w) * h * c, 0.f) {}
  float* pixel(int x, int y) { return data.data() + (size_t(y) * width + x) * channels; }
  const float* pixel(int x, int y) const { return data.data() + (size_t(y) * width + x) * channels; }
};

// Writes by extension (.png or .exr). Throws std::runtime_error naming the file on failure.
void write_image(const Image& img, const std::string& path);
// Reads a PNG (decoded from sRGB to linear) or EXR as RGB. Throws std::runtime_error.
Image read_image(const std::string& path);

// Whether the path names a format write_image understands.
bool is_image_path(const std::string& path);

float linear_to_srgb(float v);
float srgb_to_linear(float v);

}  // namespace dray
