// Every channel of an image file, as Mitsuba's Bitmap reads it (renderer/image/image.h).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include <stb_image.h>
#include <stb_image_write.h>
#include <tinyexr.h>

#include "renderer/core/atomic_file.h"
#include "renderer/image/image.h"

namespace dray {

namespace {

// The sorting key of an EXR channel, as Mitsuba orders them: a colour channel's suffix (R, G, B,
// X, Y, Z, A, any case, after the last '.') replaced by its rank, so that each layer reads R, G, B,
// A and the layers follow in name order ("R G B depth.T image.R image.G image.B image.A").
std::string channel_key(const std::string& name) {
  static const char* kClasses[] = {"r", "g", "b", "x", "y", "z", "a"};
  const size_t dot = name.rfind('.');
  std::string suffix = dot == std::string::npos ? name : name.substr(dot + 1);
  std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (int i = 0; i < 7; ++i)
    if (suffix == kClasses[i]) return (dot == std::string::npos ? "" : name.substr(0, dot + 1)) + char('1' + i);
  return name;
}

Image read_exr_channels(const std::string& path) {
  EXRVersion version;
  if (ParseEXRVersionFromFile(&version, path.c_str()) != TINYEXR_SUCCESS)
    throw std::runtime_error(path + ": cannot read EXR: not an OpenEXR file");
  if (version.multipart) throw std::runtime_error(path + ": a multi-part EXR (read one part of it with another tool)");
  EXRHeader header;
  InitEXRHeader(&header);
  const char* err = nullptr;
  auto fail = [&](const std::string& what) {
    std::string msg = path + ": " + what + (err ? std::string(": ") + err : "");
    if (err) FreeEXRErrorMessage(err);
    throw std::runtime_error(msg);
  };
  if (ParseEXRHeaderFromFile(&header, &version, path.c_str(), &err) != TINYEXR_SUCCESS) fail("cannot read EXR header");
  const std::unique_ptr<EXRHeader, void (*)(EXRHeader*)> header_owner(&header, [](EXRHeader* h) { FreeEXRHeader(h); });
  for (int c = 0; c < header.num_channels; ++c)
    if (header.pixel_types[c] == TINYEXR_PIXELTYPE_HALF) header.requested_pixel_types[c] = TINYEXR_PIXELTYPE_FLOAT;
  EXRImage exr;
  InitEXRImage(&exr);
  if (LoadEXRImageFromFile(&exr, &header, path.c_str(), &err) != TINYEXR_SUCCESS) fail("cannot read EXR");
  const std::unique_ptr<EXRImage, void (*)(EXRImage*)> image_owner(&exr, [](EXRImage* i) { FreeEXRImage(i); });
  if (exr.tiles) throw std::runtime_error(path + ": a tiled EXR's channels are not read (dray reads scanline EXRs)");
  const int n = header.num_channels;
  std::vector<int> order(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) order[size_t(c)] = c;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return channel_key(header.channels[a].name) < channel_key(header.channels[b].name);
  });
  Image img(exr.width, exr.height, n);
  const size_t pixels = size_t(exr.width) * size_t(exr.height);
  for (int k = 0; k < n; ++k) {
    const int c = order[size_t(k)];
    img.channel_names.emplace_back(header.channels[c].name);
    const unsigned char* plane = exr.images[c];
    for (size_t i = 0; i < pixels; ++i)
      img.data[i * size_t(n) + size_t(k)] = header.requested_pixel_types[c] == TINYEXR_PIXELTYPE_UINT
                                                ? float(reinterpret_cast<const unsigned int*>(plane)[i])
                                                : reinterpret_cast<const float*>(plane)[i];
  }
  return img;
}

}  // namespace

Image read_image_channels(const std::string& path, bool& eight_bit) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw std::runtime_error(path + ": cannot open: no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw std::runtime_error(path + ": is not a regular file");
  std::string e = std::filesystem::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  eight_bit = false;
  if (e == ".exr") return read_exr_channels(path);
  int w = 0, h = 0, n = 0;
  if (e == ".hdr") {
    float* fx = stbi_loadf(path.c_str(), &w, &h, &n, 3);
    if (!fx) throw std::runtime_error(path + ": cannot read image: " + stbi_failure_reason());
    Image img(w, h, 3);
    std::copy(fx, fx + size_t(w) * size_t(h) * 3, img.data.begin());
    stbi_image_free(fx);
    return img;
  }
  unsigned char* px = stbi_load(path.c_str(), &w, &h, &n, 0);
  if (!px) throw std::runtime_error(path + ": cannot read image: " + stbi_failure_reason());
  Image img(w, h, n);
  for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = float(px[i]) / 255.f;
  stbi_image_free(px);
  eight_bit = true;
  return img;
}

void write_8bit_image(const std::string& path, int width, int height, int channels, const unsigned char* bytes) {
  std::string e = std::filesystem::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (e != ".png" && e != ".jpg" && e != ".jpeg") throw std::runtime_error(path + ": an 8-bit image is written as .png or .jpg");
  if (channels < 1 || channels > 4) throw std::runtime_error(path + ": an 8-bit image has 1 to 4 channels, got " + std::to_string(channels));
  replace_file(path, [&](const std::string& tmp) {
    const bool ok = e == ".png" ? stbi_write_png(tmp.c_str(), width, height, channels, bytes, width * channels) != 0
                                : stbi_write_jpg(tmp.c_str(), width, height, channels, bytes, 95) != 0;
    if (!ok) throw std::runtime_error(path + ": cannot write image");
  });
}

}  // namespace dray
