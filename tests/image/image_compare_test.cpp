#include <catch2/catch.hpp>

#include <cmath>

#include "renderer/image/colormap.h"
#include "renderer/image/image_compare.h"
#include "renderer/samplers/sampler.h"

using namespace dray;

namespace {

Image constant(int w, int h, float v) {
  Image img(w, h, 3);
  std::fill(img.data.begin(), img.data.end(), v);
  return img;
}

// Standard normal numbers from the counter-based sampler (Box-Muller).
float normal(Sampler& s) {
  float u1 = std::max(s.next(), 1e-7f), u2 = s.next();
  return std::sqrt(-2.f * std::log(u1)) * std::cos(6.2831853f * u2);
}

}  // namespace

TEST_CASE("diff statistics on known images", "[compare]") {
  Image a = constant(4, 2, 0.5f), b = constant(4, 2, 0.5f);
  b.pixel(1, 0)[2] = 0.7f;   // one channel off by 0.2
  b.pixel(3, 1)[0] = 0.45f;  // one channel off by 0.05
  DiffStats d = diff_images(a, b, 0.1);
  const double n = 4 * 2 * 3;
  CHECK(d.max_abs == Approx(0.2));
  CHECK(d.mean_abs == Approx((0.2 + 0.05) / n));
  CHECK(d.rmse == Approx(std::sqrt((0.04 + 0.0025) / n)));
  CHECK(d.psnr == Approx(20 * std::log10(1 / d.rmse)));
  CHECK(d.pixels_over_tol == 1);
  CHECK(d.share_over_tol == Approx(1.0 / 8));
  CHECK(d.pixel_error[1] == Approx(0.2f));
  CHECK(diff_images(a, a, 0.0).psnr == INFINITY);
}

TEST_CASE("normalized cross-correlation: brightness and offset do not count, sign and noise do", "[compare]") {
  Image a(8, 8, 3), bright(8, 8, 3), inverted(8, 8, 3);
  for (size_t i = 0; i < a.data.size(); ++i) {
    const float x = float((i * 37) % 11) / 10.f;
    a.data[i] = x;
    bright.data[i] = 3.f * x + 0.25f;
    inverted.data[i] = 1.f - x;
  }
  CHECK(diff_images(bright, a, 0.01).ncc == Approx(1.0).epsilon(1e-9));
  CHECK(diff_images(inverted, a, 0.01).ncc == Approx(-1.0).epsilon(1e-9));
  CHECK(diff_images(constant(8, 8, 0.5f), a, 0.01).ncc == 0.0);  // a constant image correlates with nothing
  // Two values against two: the closed form cov / sqrt(var var) of (0, 1, 1) and (0, 1, 0) per channel.
  Image x = constant(3, 1, 0.f), y = constant(3, 1, 0.f);
  for (int c = 0; c < 3; ++c) x.pixel(1, 0)[c] = x.pixel(2, 0)[c] = y.pixel(1, 0)[c] = 1.f;
  CHECK(diff_images(x, y, 0.01).ncc == Approx(0.5));
}

TEST_CASE("Z-test: Šidák level and critical z", "[compare]") {
  Image m = constant(10, 10, 1.f), v = constant(10, 10, 0.01f);
  ZTestResult r = z_test(m, 16, m, v, 1024);
  CHECK(r.tested == 300);
  CHECK(r.alpha_sidak == Approx(1 - std::pow(0.99, 1.0 / 300)).epsilon(1e-9));
  CHECK(std::erfc(r.z_critical / std::sqrt(2.0)) == Approx(r.alpha_sidak).epsilon(1e-6));
  CHECK(r.passed);
  CHECK(r.global_z == 0.0);
}

TEST_CASE("Z-test: same distribution passes, a small shift or an outlier fails", "[compare]") {
  const int w = 64, h = 64, ref_spp = 4096, test_spp = 16;
  const float per_sample_var = 0.1f;
  Image ref = constant(w, h, 0.5f), var = constant(w, h, per_sample_var / ref_spp);
  Image test(w, h, 3);
  const float sd = std::sqrt(per_sample_var / test_spp);  // ~0.079
  for (size_t i = 0; i < test.data.size(); ++i) {
    Sampler s(11, i, 0);
    test.data[i] = 0.5f + sd * normal(s);
  }
  ZTestResult same = z_test(test, test_spp, ref, var, ref_spp);
  CHECK(same.passed);
  CHECK(std::fabs(same.global_z) < 3.0);
  CHECK(same.fail_share < 0.001);

  // Every pixel 0.2 sigma too bright: no single pixel fails, the global z does.
  Image shifted = test;
  for (float& x : shifted.data) x += 0.2f * sd;
  ZTestResult shift = z_test(shifted, test_spp, ref, var, ref_spp);
  CHECK(shift.failed_pixels <= same.failed_pixels + 1);
  CHECK(shift.global_z > 4.0);
  CHECK_FALSE(shift.passed);

  // One pixel 20 sigma off: judged by the share of failing pixels.
  Image outlier = test;
  outlier.pixel(5, 5)[1] += 20 * sd;
  ZTestResult one = z_test(outlier, test_spp, ref, var, ref_spp);
  CHECK(one.failed_pixels == same.failed_pixels + 1);
  CHECK(one.pixel_z[5 * w + 5] > 19.f);
  CHECK(std::fabs(one.global_z - same.global_z) < 0.1);  // clamped: one firefly cannot move it
  ZTestOptions strict;
  strict.max_fail_share = 0;
  CHECK_FALSE(z_test(outlier, test_spp, ref, var, ref_spp, strict).passed);

  // A region of 5% of the pixels 10 sigma off fails the share criterion.
  Image region = test;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 52; ++x) region.pixel(x, y)[0] += 10 * sd;
  CHECK_FALSE(z_test(region, test_spp, ref, var, ref_spp).passed);
}

TEST_CASE("Z-test: zero variance passes only exact agreement", "[compare]") {
  Image ref = constant(8, 8, 0.25f), var = constant(8, 8, 0.f);
  CHECK(z_test(ref, 4, ref, var, 64).passed);
  Image off = ref;
  off.pixel(2, 3)[0] = 0.26f;
  ZTestResult r = z_test(off, 4, ref, var, 64);
  CHECK(r.failed_pixels == 1);
  CHECK(r.pixel_z[3 * 8 + 2] >= 1e30f);  // infinite z, stored as the largest float we keep
}

TEST_CASE("heatmap runs from black to white", "[compare]") {
  Image h = heatmap({0.f, 0.5f, 1.f, 7.f, NAN}, 5, 1, 1.f);
  REQUIRE(h.width == 5);
  CHECK(h.pixel(0, 0)[0] == 0.f);
  CHECK(h.pixel(2, 0)[0] == Approx(1.f));
  CHECK(h.pixel(2, 0)[2] == Approx(1.f));
  CHECK(h.pixel(3, 0)[1] == Approx(1.f));  // clamped
  CHECK(h.pixel(4, 0)[1] == Approx(1.f));  // non-finite: as the maximum
  float mid = h.pixel(1, 0)[0];
  CHECK(mid > 0.f);
  CHECK(mid < 1.f);
}

TEST_CASE("Z-test: a change confined to 3% of the frame fails by the regional test alone", "[compare]") {
  const int w = 32, h = 32, ref_spp = 4096, test_spp = 16;
  const float per_sample_var = 0.1f, sd = std::sqrt(per_sample_var / test_spp);
  Image ref = constant(w, h, 0.5f), var = constant(w, h, per_sample_var / ref_spp);
  // Several noise draws: the unchanged image passes every time, the changed one fails every time.
  for (uint64_t seed = 0; seed < 5; ++seed) {
    Image test(w, h, 3);
    for (size_t i = 0; i < test.data.size(); ++i) {
      Sampler s(seed, i, 0);
      test.data[i] = 0.5f + sd * normal(s);
    }
    ZTestResult same = z_test(test, test_spp, ref, var, ref_spp);
    INFO("seed " << seed << ": unchanged, block |z| " << same.block_z_max << " of " << same.block_z_critical);
    CHECK(same.passed);
    CHECK(same.failed_blocks == 0);
    // 32 pixels (6 x 5 + 2: 3.1% of the frame) one sigma too bright: too weak for any pixel
    // (critical |z| ~4.6) and for the global mean (32 / 32 = 1 < 4).
    Image local = test;
    for (int y = 10; y < 16; ++y)
      for (int x = 12; x < 17; ++x)
        for (int c = 0; c < 3; ++c) local.pixel(x, y)[c] += sd;
    for (int c = 0; c < 3; ++c) local.pixel(17, 10)[c] += sd, local.pixel(17, 11)[c] += sd;
    ZTestResult changed = z_test(local, test_spp, ref, var, ref_spp);
    INFO("changed: global z " << changed.global_z << ", block |z| " << changed.block_z_max << " of " << changed.block_z_critical);
    CHECK(std::fabs(changed.global_z) < 4.0);
    CHECK(changed.failed_blocks > 0);
    CHECK_FALSE(changed.passed);
    ZTestOptions no_blocks;
    no_blocks.block_size = 0;
    CHECK(z_test(local, test_spp, ref, var, ref_spp, no_blocks).passed);  // what the regional test adds
  }
}
