#include "renderer/image_compare.h"

#include <algorithm>
#include <cmath>


namespace dray {

namespace {
// Each channel's z enters the global statistic clamped to +-3, so that a few firefly pixels
// (heavy tails, already judged by the per-pixel test) cannot dominate a test meant for small
// shifts shared by many pixels.
constexpr double kGlobalClamp = 3.0;
}  // namespace

DiffStats diff_images(const Image& a, const Image& b, double tol) {
  DiffStats st;
  const size_t pixels = size_t(a.width) * a.height;
  const int c = std::min(a.channels, b.channels);
  st.pixel_error.assign(pixels, 0.f);
  double sum_sq = 0, sum_abs = 0;
  for (size_t i = 0; i < pixels; ++i) {
    float worst = 0.f;
    for (int k = 0; k < c; ++k) {
      double d = double(a.data[i * a.channels + k]) - double(b.data[i * b.channels + k]);
      sum_sq += d * d;
      sum_abs += std::fabs(d);
      worst = std::max(worst, float(std::fabs(d)));
    }
    st.pixel_error[i] = worst;
    st.max_abs = std::max(st.max_abs, double(worst));
    st.pixels_over_tol += worst > tol;
  }
  const double n = double(pixels) * c;
  st.rmse = std::sqrt(sum_sq / n);
  st.mean_abs = sum_abs / n;
  st.psnr = st.rmse > 0 ? 20.0 * std::log10(1.0 / st.rmse) : INFINITY;
  st.share_over_tol = double(st.pixels_over_tol) / double(pixels);
  return st;
}

ZTestResult z_test(const Image& test, int test_spp, const Image& ref, const Image& ref_var, int ref_spp,
                   const ZTestOptions& opt) {
  ZTestResult r;
  const size_t pixels = size_t(ref.width) * ref.height;
  r.tested = long(pixels) * 3;
  // Šidák: the per-test level that keeps the family-wise level at alpha.
  r.alpha_sidak = -std::expm1(std::log1p(-opt.alpha) / double(r.tested));
  // Two-sided: p = erfc(|z| / sqrt 2); invert by bisection (monotone).
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    (std::erfc(mid / std::sqrt(2.0)) > r.alpha_sidak ? lo : hi) = mid;
  }
  r.z_critical = hi;
  const double ratio = double(ref_spp) / double(test_spp);
  double z_sum = 0;
  r.pixel_z.assign(pixels, 0.f);
  for (size_t i = 0; i < pixels; ++i) {
    bool fail = false;
    double z_mean = 0, worst = 0;
    for (int k = 0; k < 3; ++k) {
      double d = double(test.data[i * test.channels + k]) - double(ref.data[i * ref.channels + k]);
      double var = double(ref_var.data[i * ref_var.channels + k]) * (1.0 + ratio);
      double z = d == 0 ? 0.0 : (var > 0 ? d / std::sqrt(var) : std::copysign(INFINITY, d));
      worst = std::max(worst, std::fabs(z));
      fail = fail || !(std::fabs(z) <= r.z_critical);
      z_mean += std::clamp(z, -kGlobalClamp, kGlobalClamp) / 3.0;
    }
    r.pixel_z[i] = float(std::min(worst, 1e30));
    r.failed_pixels += fail;
    z_sum += z_mean;
  }
  r.fail_share = double(r.failed_pixels) / double(pixels);
  // Clamping lowers the variance of a standard normal, and the channels of a pixel are
  // correlated, so Var(mean clamped channel z) <= 1: the global test is conservative.
  r.global_z = z_sum / std::sqrt(double(pixels));
  r.passed = r.fail_share <= opt.max_fail_share && std::fabs(r.global_z) <= opt.max_global_z;
  return r;
}

}  // namespace dray
