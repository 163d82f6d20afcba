#include "renderer/image/image_compare.h"

#include <algorithm>
#include <cmath>


namespace dray {

namespace {
// Each channel's z enters the global statistic clamped to +-3, so that a few firefly pixels
// (heavy tails, already judged by the per-pixel test) cannot dominate a test meant for small
// shifts shared by many pixels.
constexpr double kGlobalClamp = 3.0;
}  // namespace

DiffStats diff_images(const Image& a, const Image& b, double tol, const Image* mask) {
  DiffStats stats;
  const size_t pixels = size_t(a.width) * a.height;
  const int c = std::min(a.channels, b.channels);
  stats.pixel_error.assign(pixels, 0.f);
  double sum_sq = 0, sum_abs = 0, sum_a = 0, sum_b = 0, sum_ab = 0, sum_aa = 0, sum_bb = 0;
  auto in_mask = [&](size_t i) {
    for (int k = 0; k < mask->channels; ++k)
      if (mask->data[i * size_t(mask->channels) + size_t(k)] > 0.5f) return true;
    return false;
  };
  for (size_t i = 0; i < pixels; ++i) {
    if (mask && !in_mask(i)) continue;
    ++stats.compared;
    float worst = 0.f;
    for (int k = 0; k < c; ++k) {
      double d = double(a.data[i * a.channels + k]) - double(b.data[i * b.channels + k]);
      sum_sq += d * d;
      sum_abs += std::fabs(d);
      const double x = a.data[i * a.channels + k], y = b.data[i * b.channels + k];
      sum_a += x, sum_b += y, sum_ab += x * y, sum_aa += x * x, sum_bb += y * y;
      worst = std::max(worst, float(std::fabs(d)));
    }
    stats.pixel_error[i] = worst;
    stats.max_abs = std::max(stats.max_abs, double(worst));
    stats.pixels_over_tol += worst > tol;
  }
  const double n = double(stats.compared) * c;
  stats.rmse = n > 0 ? std::sqrt(sum_sq / n) : 0.0;
  stats.mean_abs = n > 0 ? sum_abs / n : 0.0;
  stats.psnr = stats.rmse > 0 ? 20.0 * std::log10(1.0 / stats.rmse) : INFINITY;
  stats.share_over_tol = stats.compared > 0 ? double(stats.pixels_over_tol) / double(stats.compared) : 0.0;
  if (n > 0) {  // the centred products: the normalized cross-correlation
    const double cov = sum_ab - sum_a * sum_b / n, var_a = sum_aa - sum_a * sum_a / n, var_b = sum_bb - sum_b * sum_b / n;
    stats.ncc = var_a > 0 && var_b > 0 ? cov / std::sqrt(var_a * var_b) : 0.0;
  }
  return stats;
}

namespace {

// Šidák: the per-test level that keeps the family-wise level at alpha over n tests.
double sidak(double alpha, long n) { return -std::expm1(std::log1p(-alpha) / double(std::max(1L, n))); }

// The |z| whose two-sided p-value erfc(|z| / sqrt 2) is p, by bisection (monotone).
double two_sided_critical(double p) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    (std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

ZTestResult z_test(const Image& test, int test_spp, const Image& ref, const Image& ref_var, int ref_spp,
                   const ZTestOptions& opt) {
  ZTestResult r;
  const size_t pixels = size_t(ref.width) * ref.height;
  r.tested = long(pixels) * 3;
  r.alpha_sidak = sidak(opt.alpha, r.tested);
  r.z_critical = two_sided_critical(r.alpha_sidak);
  const double ratio = double(ref_spp) / double(test_spp);
  double z_sum = 0;
  r.pixel_z.assign(pixels, 0.f);
  std::vector<double> channel_z(pixels * 3, 0.0);  // the clamped z of each pixel channel
  for (size_t i = 0; i < pixels; ++i) {
    bool fail = false;
    double z_mean = 0, worst = 0;
    for (int k = 0; k < 3; ++k) {
      double d = double(test.data[i * test.channels + k]) - double(ref.data[i * ref.channels + k]);
      double var = double(ref_var.data[i * ref_var.channels + k]) * (1.0 + ratio);
      double z = d == 0 ? 0.0 : (var > 0 ? d / std::sqrt(var) : std::copysign(INFINITY, d));
      worst = std::max(worst, std::fabs(z));
      fail = fail || !(std::fabs(z) <= r.z_critical);
      channel_z[i * 3 + size_t(k)] = std::clamp(z, -kGlobalClamp, kGlobalClamp);
      z_mean += channel_z[i * 3 + size_t(k)] / 3.0;
    }
    r.pixel_z[i] = float(std::min(worst, 1e30));
    r.failed_pixels += fail;
    z_sum += z_mean;
  }
  if (opt.block_size > 0) {
    const int b = opt.block_size, w = ref.width, h = ref.height;
    std::vector<double> block_z;
    for (int offset : {0, b / 2})
      for (int y0 = offset > 0 ? -offset : 0; y0 < h; y0 += b)
        for (int x0 = offset > 0 ? -offset : 0; x0 < w; x0 += b) {
          // Per channel: a change of hue (red up, blue down) must not cancel out.
          double sum[3] = {0, 0, 0};
          long n = 0;
          for (int y = std::max(0, y0); y < std::min(h, y0 + b); ++y)
            for (int x = std::max(0, x0); x < std::min(w, x0 + b); ++x, ++n)
              for (int k = 0; k < 3; ++k) sum[k] += channel_z[(size_t(y) * w + x) * 3 + size_t(k)];
          if (n > 0)
            for (double sk : sum) block_z.push_back(sk / std::sqrt(double(n)));
        }
    r.blocks = long(block_z.size());
    r.block_z_critical = two_sided_critical(sidak(opt.alpha, r.blocks));
    for (double z : block_z) {
      r.block_z_max = std::max(r.block_z_max, std::fabs(z));
      r.failed_blocks += !(std::fabs(z) <= r.block_z_critical);
    }
  }
  r.fail_share = double(r.failed_pixels) / double(pixels);
  // Clamping lowers the variance of a standard normal, and the channels of a pixel are
  // correlated, so Var(mean clamped channel z) <= 1: the global test is conservative.
  r.global_z = z_sum / std::sqrt(double(pixels));
  r.passed = r.fail_share <= opt.max_fail_share && std::fabs(r.global_z) <= opt.max_global_z && r.failed_blocks == 0;
  return r;
}

}  // namespace dray
