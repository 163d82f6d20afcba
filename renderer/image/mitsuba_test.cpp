#include "renderer/image/mitsuba_test.h"

#include <algorithm>
#include <cmath>

namespace dray {

namespace {

// Linear sRGB (Rec. 709) to CIE XYZ, as Mitsuba's Bitmap::convert and srgb_to_xyz.
constexpr double kSrgbToXyz[3][3] = {{0.412453, 0.357580, 0.180423},
                                     {0.212671, 0.715160, 0.072169},
                                     {0.019334, 0.119193, 0.950227}};

void to_xyz(const Image& img, size_t pixel, double out[3]) {
  const float* c = &img.data[pixel * size_t(img.channels)];
  for (int r = 0; r < 3; ++r) out[r] = kSrgbToXyz[r][0] * c[0] + kSrgbToXyz[r][1] * c[1] + kSrgbToXyz[r][2] * c[2];
}

}  // namespace

MitsubaTestResult mitsuba_test(const Image& test, int spp, const Image& ref, const Image& ref_var, double significance,
                               double max_fail_share) {
  MitsubaTestResult r;
  const size_t pixels = size_t(test.width) * size_t(test.height);
  r.alpha = 1.0 - std::pow(1.0 - significance, 1.0 / double(pixels));
  r.pixel_fail.assign(pixels, 0.f);
  r.pixel_z.assign(pixels, 0.f);
  for (size_t i = 0; i < pixels; ++i) {
    double t[3], m[3], v[3];
    to_xyz(test, i, t);
    to_xyz(ref, i, m);
    to_xyz(ref_var, i, v);
    for (int c = 0; c < 3; ++c) {
      const double z = std::fabs(t[c] - m[c]) * std::sqrt(double(spp) / std::max(v[c], 1e-4));
      // p = 2 (1 − Φ(z)) = erfc(z / √2); a NaN (a non-finite test value) fails.
      const double p = std::erfc(z / std::sqrt(2.0));
      ++r.values;
      r.pixel_z[i] = std::max(r.pixel_z[i], float(std::isfinite(z) ? z : 1e30));
      if (!(p > r.alpha)) {
        ++r.failed;
        r.pixel_fail[i] += 1.f;
      }
      if (!(p >= r.min_p)) {
        r.min_p = std::isnan(p) ? 0.0 : p;
        r.worst_x = int(i % size_t(test.width));
        r.worst_y = int(i / size_t(test.width));
      }
    }
  }
  r.fail_share = r.values ? double(r.failed) / double(r.values) : 0.0;
  // Mitsuba: passes when (successes / 3) >= 0.9975 pixels.
  r.passed = double(r.values - r.failed) / 3.0 >= (1.0 - max_fail_share) * double(pixels);
  return r;
}

}  // namespace dray
