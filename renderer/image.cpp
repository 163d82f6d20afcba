#include "renderer/image.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <stb_image.h>
#include <stb_image_write.h>
#include <tinyexr.h>

namespace dray {

namespace {
std::string extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return e;
}
}  // namespace

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
  if (e == ".png") {
    std::vector<unsigned char> bytes(size_t(img.width) * img.height * 3);
    for (size_t i = 0; i < size_t(img.width) * img.height; ++i)
      for (int c = 0; c < 3; ++c) {
        float v = c < img.channels ? img.data[i * img.channels + c] : 0.f;
        bytes[i * 3 + c] = (unsigned char)std::lround(255.f * linear_to_srgb(v));
      }
    if (!stbi_write_png(path.c_str(), img.width, img.height, 3, bytes.data(), img.width * 3))
      throw std::runtime_error(path + ": cannot write PNG");
  } else if (e == ".exr") {
    const char* err = nullptr;
    if (SaveEXR(img.data.data(), img.width, img.height, img.channels, 0, path.c_str(), &err) < 0) {
      std::string msg = path + ": cannot write EXR" + (err ? std::string(": ") + err : "");
      if (err) FreeEXRErrorMessage(err);
      throw std::runtime_error(msg);
    }
  } else {
    throw std::runtime_error(path + ": unknown image format (use .png or .exr)");
  }
}

Image read_image(const std::string& path) {
  std::string e = extension(path);
  if (e == ".exr") {
    float* rgba = nullptr;
    int w = 0, h = 0;
    const char* err = nullptr;
    if (LoadEXR(&rgba, &w, &h, path.c_str(), &err) < 0) {
      std::string msg = path + ": cannot read EXR" + (err ? std::string(": ") + err : "");
      if (err) FreeEXRErrorMessage(err);
      throw std::runtime_error(msg);
    }
    Image img(w, h, 3);
    for (size_t i = 0; i < size_t(w) * h; ++i)
      for (int c = 0; c < 3; ++c) img.data[i * 3 + c] = rgba[i * 4 + c];
    std::free(rgba);
    return img;
  }
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(path.c_str(), &w, &h, &n, 3);
  if (!px) throw std::runtime_error(path + ": cannot read image: " + stbi_failure_reason());
  Image img(w, h, 3);
  for (size_t i = 0; i < size_t(w) * h * 3; ++i) img.data[i] = srgb_to_linear(px[i] / 255.f);
  stbi_image_free(px);
  return img;
}

}  // namespace dray
