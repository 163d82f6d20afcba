#include "renderer/sensors/film.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

namespace dray {

namespace {

struct AovKind {
  const char* name;
  AovType type;
  const char* channels;  // one letter each: dd:depth is dd.T
};

constexpr std::array<AovKind, 12> kKinds = {{{"albedo", AovType::albedo, "RGB"},
                                             {"depth", AovType::depth, "T"},
                                             {"position", AovType::position, "XYZ"},
                                             {"uv", AovType::uv, "UV"},
                                             {"geo_normal", AovType::geo_normal, "XYZ"},
                                             {"sh_normal", AovType::sh_normal, "XYZ"},
                                             {"dp_du", AovType::dp_du, "XYZ"},
                                             {"dp_dv", AovType::dp_dv, "XYZ"},
                                             {"duv_dx", AovType::duv_dx, "UV"},
                                             {"duv_dy", AovType::duv_dy, "UV"},
                                             {"prim_index", AovType::prim_index, "I"},
                                             {"shape_index", AovType::shape_index, "I"}}};

const AovKind& kind_of(AovType t) {
  for (const AovKind& k : kKinds)
    if (k.type == t) return k;
  throw std::logic_error("unknown AOV type");
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

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

int aov_channel_count(AovType type) { return int(std::strlen(kind_of(type).channels)); }

std::vector<Aov> parse_aovs(const std::string& spec) {
  std::vector<Aov> out;
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string item = trimmed(spec.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || item.find(':', colon + 1) != std::string::npos)
      throw std::invalid_argument("\"" + item + "\": expected name:type (e.g. dd.y:depth)");
    const std::string name = trimmed(item.substr(0, colon)), type = trimmed(item.substr(colon + 1));
    const AovKind* kind = nullptr;
    for (const AovKind& k : kKinds)
      if (type == k.name) kind = &k;
    if (!kind)
      throw std::invalid_argument("\"" + item + "\": unsupported AOV type \"" + type +
                                  "\" (supported: albedo, depth, position, uv, geo_normal, sh_normal, dp_du, dp_dv, duv_dx, "
                                  "duv_dy, prim_index, shape_index)");
    out.push_back({name, kind->type});
  }
  if (out.empty()) throw std::invalid_argument("no AOV given (expected name:type, e.g. dd.y:depth)");
  return out;
}

std::string aovs_spec(const std::vector<Aov>& aovs) {
  std::string s;
  for (const Aov& a : aovs) s += (s.empty() ? "" : ",") + a.name + ":" + kind_of(a.type).name;
  return s;
}

std::vector<std::string> aov_channel_names(const std::vector<Aov>& aovs) {
  std::vector<std::string> names;
  for (const Aov& a : aovs)
    for (const char* c = kind_of(a.type).channels; *c; ++c) names.push_back(a.name + "." + std::string(1, *c));
  return names;
}

namespace {
constexpr std::array<const char*, 6> kFormats = {"rgb", "rgba", "luminance", "luminance_alpha", "xyz", "xyza"};
}  // namespace

const char* pixel_format_name(PixelFormat f) { return kFormats[size_t(f)]; }

PixelFormat parse_pixel_format(const std::string& name) {
  for (size_t i = 0; i < kFormats.size(); ++i)
    if (name == kFormats[i]) return PixelFormat(i);
  throw std::invalid_argument("unknown pixel format \"" + name + "\" (known: rgb, rgba, luminance, luminance_alpha, xyz, xyza)");
}

std::vector<std::string> film_channel_names(PixelFormat format, const std::vector<Aov>& aovs) {
  std::vector<std::string> names = colour_names(format);
  for (const std::string& n : aov_channel_names(aovs)) names.push_back(n);
  return names;
}

Image develop(const Image& image, const RenderOutputs& outputs, PixelFormat f, const std::vector<Aov>& aovs) {
  const std::vector<std::string> names = film_channel_names(f, aovs);
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
