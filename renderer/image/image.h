#pragma once
// Float images with any number of channels, and their files: PNG (8-bit sRGB, clamped) and
// OpenEXR (linear float).
#include <string>
#include <vector>

namespace dray {

struct Image {
  int width = 0, height = 0, channels = 3;
  std::vector<float> data;  // row-major, top row first, channels interleaved
  int spp = 0;              // samples per pixel behind the values (0: unknown); kept in EXR files
  std::vector<std::string> channel_names;  // for EXR files, one per channel; empty: R, G, B / Y / C0, C1, …

  Image() = default;
  Image(int w, int h, int c = 3) : width(w), height(h), channels(c), data(size_t(w) * h * c, 0.f) {}
  float* pixel(int x, int y) { return data.data() + (size_t(y) * width + x) * channels; }
  const float* pixel(int x, int y) const { return data.data() + (size_t(y) * width + x) * channels; }
};

// Writes by extension: .png (8-bit sRGB of the first 3 channels) or .exr (every channel as
// linear float, with `spp` as the header attribute "dray_spp"), atomically (a temporary file
// renamed over `path`). Throws std::runtime_error naming the file on failure.
void write_image(const Image& img, const std::string& path);
// Reads an 8-bit image stb_image decodes (PNG, JPEG, …: from sRGB to linear, unless `raw`), a
// Radiance HDR or an EXR (linear) as 3 channels (a 1-channel EXR is repeated into all three),
// with `spp` from the EXR header when present. Throws std::runtime_error naming the file, also
// for a pixel that is not finite.
Image read_image(const std::string& path, bool raw = false);
// Every channel of an image file as stored (Mitsuba's Bitmap): an EXR's channels with their names
// in Mitsuba's order (by layer name, each layer's R, G, B, A first; a scanline EXR), an 8-bit file's 1 to 4
// channels as its values / 255, still sRGB-encoded (`eight_bit` set), a Radiance HDR's 3 linear.
// Throws std::runtime_error naming the file.
Image read_image_channels(const std::string& path, bool& eight_bit);
// Writes 8-bit values (rows top first, `channels` 1 to 4 interleaved) as .png or .jpg (quality 95),
// atomically. Throws std::runtime_error naming the file.
void write_8bit_image(const std::string& path, int width, int height, int channels, const unsigned char* bytes);

// The image as the bytes of a PNG file (8-bit sRGB of the first 3 channels), in memory.
std::vector<unsigned char> png_bytes(const Image& img);

// Channels [first, first + count) as an image of their own.
Image channels_of(const Image& img, int first, int count);

// Pixels [x0, x1) x [y0, y1) as an image of their own.
Image region_of(const Image& img, int x0, int y0, int x1, int y1);

// Every value times `factor` (an exposure of EV stops: 2^EV).
Image scaled(Image img, float factor);

// Each fx × fy block of pixels averaged into one (the size must divide): a photograph brought to
// a film's size, as torch's area interpolation.
Image downsampled(const Image& img, int fx, int fy);

// Whether the path names a format write_image understands.
bool is_image_path(const std::string& path);

float linear_to_srgb(float v);
float srgb_to_linear(float v);

}  // namespace dray
