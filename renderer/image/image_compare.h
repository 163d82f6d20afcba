#pragma once
// Comparing images: plain error statistics, and a statistical test of a Monte Carlo image
// against a reference mean and variance.
#include <vector>

#include "renderer/image/image.h"

namespace dray {

struct DiffStats {
  double rmse = 0, psnr = 0, mean_abs = 0, max_abs = 0;  // over every channel of every compared pixel
  long pixels_over_tol = 0;                               // pixels with a channel off by > tol
  double share_over_tol = 0;                              // of the compared pixels
  long compared = 0;                                      // pixels compared (all, or the mask's)
  // Normalized cross-correlation of the compared values (every channel): 1 for images equal up to
  // brightness and offset, 0 for unrelated ones; 0 when either is constant.
  double ncc = 0;
  std::vector<float> pixel_error;  // per pixel: the largest absolute channel error (0 outside the mask)
};

// Images of the same size (checked by the caller). PSNR is relative to a peak of 1. With a
// mask (the same size), only its pixels with a channel above 0.5 are compared.
DiffStats diff_images(const Image& a, const Image& b, double tol, const Image* mask = nullptr);

struct ZTestOptions {
  double alpha = 0.01;            // family-wise significance over all pixel channels
  double max_fail_share = 0.005;  // pass when at most this share of pixels fails
  double max_global_z = 4.0;      // pass when |global z| is at most this
  int block_size = 8;             // regional test: blocks of block_size^2 pixels (0: off)
};

struct ZTestResult {
  long tested = 0;            // pixel channels tested
  double alpha_sidak = 0;     // per-channel significance after the Šidák correction
  double z_critical = 0;      // |z| above which a channel fails
  long failed_pixels = 0;
  double fail_share = 0;
  double global_z = 0;        // sum over pixels of the mean clamped channel z, / sqrt(pixels)
  long blocks = 0;            // regional test: block channels tested (two grids, the second offset by half a block)
  double block_z_critical = 0;  // |block z| above which a block fails (Šidák over the blocks)
  double block_z_max = 0;     // the largest |block z|: a block's global z
  long failed_blocks = 0;
  bool passed = false;
  std::vector<float> pixel_z;  // per pixel: the largest |z| over channels
};

// Tests TEST (a mean of test_spp samples per pixel) against REF (mean) and REF_VAR (variance
// of the reference mean, from ref_spp samples). Under the null hypothesis that both estimate
// the same image, each channel's z = (test - ref) / sqrt(var_test + var_ref) is standard
// normal, with var_test = REF_VAR * ref_spp / test_spp. A pixel fails when a channel's
// two-sided p-value is below the Šidák-corrected level 1 - (1 - alpha)^(1 / tested) (the
// method of Mitsuba 3's render tests). Per-pixel tests cannot see a small change spread over
// many pixels (a 5% albedo error moves each pixel by well under one sigma at test sample
// counts), so the mean z over pixels (each channel's z clamped to +-3), scaled to unit
// variance, is tested as well. Rare bright paths make some pixel distributions heavy-tailed
// at test sample counts, so a small share of failing pixels is allowed (max_fail_share). A
// change confined to a small region (one object) moves the global mean too little, so the same
// clamped z is also summed per channel over blocks of block_size^2 pixels (/ sqrt(pixels)), on
// two grids (the second shifted by half a block, so that no region is only ever seen split), and
// each block channel is tested at the Šidák-corrected level over all of them: any failing block
// fails the image.
ZTestResult z_test(const Image& test, int test_spp, const Image& ref, const Image& ref_var, int ref_spp,
                   const ZTestOptions& opt = {});

}  // namespace dray
