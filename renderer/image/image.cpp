#include "renderer/image/image.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <stb_image.h>
#include <stb_image_write.h>
#include <tinyexr.h>

#include "renderer/core/atomic_file.h"

namespace dray {

namespace {
std::string extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return e;
}
// Raises tinyexr's error message (and frees it) as an exception naming the file.
[[noreturn]] void exr_error(const std::string& what, const char* err) {
  std::string msg = what + (err ? std::string(": ") + err : "");
  if (err) FreeEXRErrorMessage(err);
  throw std::runtime_error(msg);
}

// EXR channel names: the image's own; else R, G, B for colour, C0, C1, ... otherwise.
std::string channel_name(const Image& img, int c) {
  const int channels = img.channels;
  if (img.channel_names.size() == size_t(channels)) return img.channel_names[size_t(c)];
  if (channels == 3) return std::string(1, "RGB"[c]);
  if (channels == 1) return "Y";
  std::string name = "C";
  name += std::to_string(c);  // not "C" + to_string: GCC 12 warns falsely of it (-Wrestrict, its bug 105329)
  return name;
}

// Writes `file`; errors name `path` (the file the user asked for).
void write_exr(const Image& img, const std::string& file, const std::string& path) {
  const int n = img.channels;
  const size_t pixels = size_t(img.width) * img.height;
  // Planar float channels, in the alphabetical order most readers expect.
  std::vector<int> order(n);
  for (int c = 0; c < n; ++c) order[c] = c;
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return channel_name(img, a) < channel_name(img, b); });
  std::vector<std::vector<float>> planes(n, std::vector<float>(pixels));
  std::vector<float*> ptrs(n);
  std::vector<EXRChannelInfo> info(n);
  std::vector<int> types(n, TINYEXR_PIXELTYPE_FLOAT);
  for (int k = 0; k < n; ++k) {
    int c = order[k];
    for (size_t i = 0; i < pixels; ++i) planes[k][i] = img.data[i * n + c];
    ptrs[k] = planes[k].data();
    info[k] = {};
    std::snprintf(info[k].name, sizeof(info[k].name), "%s", channel_name(img, c).c_str());
  }
  EXRImage image;
  InitEXRImage(&image);
  image.images = reinterpret_cast<unsigned char**>(ptrs.data());
  image.num_channels = n;
  image.width = img.width;
  image.height = img.height;
  EXRHeader header;
  InitEXRHeader(&header);
  header.num_channels = n;
  header.channels = info.data();
  header.pixel_types = types.data();
  header.requested_pixel_types = types.data();
  header.compression_type = TINYEXR_COMPRESSIONTYPE_ZIP;
  int32_t spp = img.spp;
  EXRAttribute attr{};
  std::snprintf(attr.name, sizeof(attr.name), "dray_spp");
  std::snprintf(attr.type, sizeof(attr.type), "int");
  attr.value = reinterpret_cast<unsigned char*>(&spp);
  attr.size = sizeof(spp);
  if (spp > 0) {
    header.num_custom_attributes = 1;
    header.custom_attributes = &attr;
  }
  const char* err = nullptr;
  if (SaveEXRImageToFile(&image, &header, file.c_str(), &err) != TINYEXR_SUCCESS)
    exr_error(path + ": cannot write EXR", err);
}

// The "dray_spp" attribute of an EXR file, or 0.
int read_exr_spp(const std::string& path) {
  EXRVersion version;
  if (ParseEXRVersionFromFile(&version, path.c_str()) != TINYEXR_SUCCESS) return 0;
  EXRHeader header;
  InitEXRHeader(&header);
  const char* err = nullptr;
  if (ParseEXRHeaderFromFile(&header, &version, path.c_str(), &err) != TINYEXR_SUCCESS) {
    if (err) FreeEXRErrorMessage(err);
    return 0;
  }
  int spp = 0;
  for (int i = 0; i < header.num_custom_attributes; ++i) {
    const EXRAttribute& a = header.custom_attributes[i];
    if (std::string(a.name) == "dray_spp" && a.size == 4) std::memcpy(&spp, a.value, 4);
  }
  FreeEXRHeader(&header);
  return spp;
}

// The first 3 channels as 8-bit sRGB, row by row.
std::vector<unsigned char> srgb8(const Image& img) {
  std::vector<unsigned char> bytes(size_t(img.width) * img.height * 3);
  for (size_t i = 0; i < size_t(img.width) * img.height; ++i)
    for (int c = 0; c < 3; ++c) {
      float v = c < img.channels ? img.data[i * img.channels + c] : 0.f;
      bytes[i * 3 + c] = (unsigned char)std::lround(255.f * linear_to_srgb(v));
    }
  return bytes;
}

// Writes the image in format `e` to `file`; errors name `path`.
void write_image_to(const Image& img, const std::string& e, const std::string& file, const std::string& path) {
  if (e == ".png") {
    const std::vector<unsigned char> bytes = srgb8(img);
    if (!stbi_write_png(file.c_str(), img.width, img.height, 3, bytes.data(), img.width * 3))
      throw std::runtime_error(path + ": cannot write PNG");
  } else {
    write_exr(img, file, path);
  }
}

}  // namespace

std::vector<unsigned char> png_bytes(const Image& img) {
  const std::vector<unsigned char> px = srgb8(img);
  std::vector<unsigned char> out;
  auto append = [](void* to, void* data, int size) {
    auto* v = static_cast<std::vector<unsigned char>*>(to);
    v->insert(v->end(), static_cast<unsigned char*>(data), static_cast<unsigned char*>(data) + size);
  };
  if (!stbi_write_png_to_func(append, &out, img.width, img.height, 3, px.data(), img.width * 3))
    throw std::runtime_error("cannot encode a PNG image");
  return out;
}

Image channels_of(const Image& img, int first, int count) {
  Image out(img.width, img.height, count);
  out.spp = img.spp;
  for (size_t i = 0; i < size_t(img.width) * img.height; ++i)
    for (int c = 0; c < count; ++c) out.data[i * count + c] = img.data[i * img.channels + first + c];
  return out;
}

Image region_of(const Image& img, int x0, int y0, int x1, int y1) {
  Image out(x1 - x0, y1 - y0, img.channels);
  out.spp = img.spp;
  for (int y = y0; y < y1; ++y) std::copy(img.pixel(x0, y), img.pixel(x1, y), out.pixel(0, y - y0));
  return out;
}

Image scaled(Image img, float factor) {
  for (float& v : img.data) v *= factor;
  return img;
}

Image downsampled(const Image& img, int fx, int fy) {
  Image out(img.width / fx, img.height / fy, img.channels);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x)
      for (int c = 0; c < img.channels; ++c) {
        double sum = 0;
        for (int j = 0; j < fy; ++j)
          for (int i = 0; i < fx; ++i) sum += img.pixel(x * fx + i, y * fy + j)[c];
        out.pixel(x, y)[c] = float(sum / (fx * fy));
      }
  return out;
}

bool is_image_path(const std::string& path) {
  std::string e = extension(path);
  return e == ".png" || e == ".exr";
}

float linear_to_srgb(float v) {
  v = std::clamp(v, 0.f, 1.f);
  return v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.f / 2.4f) - 0.055f;
}

float srgb_to_linear(float v) {
  return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
}

void write_image(const Image& img, const std::string& path) {
  std::string e = extension(path);
  if (e != ".png" && e != ".exr") throw std::runtime_error(path + ": unknown image format (use .png or .exr)");
  replace_file(path, [&](const std::string& tmp) { write_image_to(img, e, tmp, path); });
}

// Decodes by extension, without the checks of read_image.
static Image read_image_file(const std::string& path, bool raw) {
  std::string e = extension(path);
  if (e == ".exr") {
    float* rgba = nullptr;
    int w = 0, h = 0;
    const char* err = nullptr;
    if (LoadEXR(&rgba, &w, &h, path.c_str(), &err) < 0) exr_error(path + ": cannot read EXR", err);
    Image img(w, h, 3);
    img.spp = read_exr_spp(path);
    for (size_t i = 0; i < size_t(w) * h; ++i)
      for (int c = 0; c < 3; ++c) img.data[i * 3 + c] = rgba[i * 4 + c];
    std::free(rgba);
    return img;
  }
  int w = 0, h = 0, n = 0;
  if (e == ".hdr") {  // Radiance RGBE: linear already
    float* fx = stbi_loadf(path.c_str(), &w, &h, &n, 3);
    if (!fx) throw std::runtime_error(path + ": cannot read image: " + stbi_failure_reason());
    Image img(w, h, 3);
    std::copy(fx, fx + size_t(w) * h * 3, img.data.begin());
    stbi_image_free(fx);
    return img;
  }
  unsigned char* px = stbi_load(path.c_str(), &w, &h, &n, 3);
  if (!px) throw std::runtime_error(path + ": cannot read image: " + stbi_failure_reason());
  Image img(w, h, 3);
  for (size_t i = 0; i < size_t(w) * h * 3; ++i) img.data[i] = raw ? px[i] / 255.f : srgb_to_linear(px[i] / 255.f);
  stbi_image_free(px);
  return img;
}

Image read_image(const std::string& path, bool raw) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw std::runtime_error(path + ": cannot open: no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw std::runtime_error(path + ": is not a regular file");
  Image img = read_image_file(path, raw);
  for (size_t i = 0; i < img.data.size(); ++i)
    if (!std::isfinite(img.data[i])) {
      const size_t px = i / 3;
      throw std::runtime_error(path + ": pixel (" + std::to_string(px % size_t(img.width)) + ", " +
                               std::to_string(px / size_t(img.width)) + ") is not finite");
    }
  return img;
}

}  // namespace dray
