// dray diff: error statistics between two images, or a statistical test against a reference
// mean and variance.
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

#include "renderer/image/image.h"
#include "renderer/image/colormap.h"
#include "renderer/image/image_compare.h"
#include "tools/cli.h"

namespace dray::cli {

void add_ztest_options(CLI::App* cmd, ZTestOptions& z) {
  cmd->add_option("--alpha", z.alpha, "Z-test: family-wise significance over all pixel channels (Šidák-corrected per channel)")
      ->check(real_number(1e-12, true, 0.5))
      ->capture_default_str();
  cmd->add_option("--max-fail-share", z.max_fail_share, "Z-test: largest share of failing pixels that still passes")
      ->check(real_number(0, true, 1))
      ->capture_default_str();
  cmd->add_option("--max-global-z", z.max_global_z, "Z-test: largest |mean z over pixels, scaled to unit variance| that passes")
      ->check(real_number(0, false))
      ->capture_default_str();
  cmd->add_option("--block-size", z.block_size,
                  "Z-test: edge of the blocks whose mean z is tested on its own (Šidák over blocks), to catch a change "
                  "confined to one region; 0: off")
      ->check(whole_number(0, 4096))
      ->capture_default_str();
}

CLI::App* add_diff_command(CLI::App& app, DiffArgs& a) {
  CLI::App* cmd = app.add_subcommand("diff", "Compare two images (PNG or EXR): RMSE, PSNR, mean and max error, "
                                             "pixels over tolerance; or a Z-test against a reference mean and variance");
  cmd->add_option("TEST", a.test, "Image to check")->required();
  cmd->add_option("REF", a.ref, "Reference image (PNG, JPEG or EXR; larger than TEST by one whole factor in both axes: averaged down to its size)")->required();
  cmd->add_option("--tol", a.tol, "Absolute tolerance per channel (linear values; PNGs are decoded from sRGB)")
      ->check(real_number(0, true))
      ->capture_default_str();
  cmd->add_option("--max-share", a.max_share, "Largest share of pixels over --tol that still passes")
      ->check(real_number(0, true, 1))
      ->capture_default_str();
  cmd->add_option("--mask", a.mask, "Compare only the pixels where this image (the same size) has a channel above 0.5 "
                                   "(e.g. the texels an optimization saw: OUTPUT/NAME-seen.png)");
  cmd->add_option("--heatmap", a.heatmap, "Write a false-colour error map (PNG, same size): |error| without "
                                          "--ref-variance, |z| with it");
  cmd->add_option("--ref-variance", a.ref_variance, "Variance of the reference mean (EXR from dray render --variance): "
                                                    "pass or fail by the Z-test instead of --tol");
  cmd->add_option("--test-spp", a.test_spp, "Samples per pixel of TEST (default: from its EXR header)")->check(whole_number(1));
  cmd->add_option("--ref-spp", a.ref_spp, "Samples per pixel of REF (default: from its EXR header)")->check(whole_number(1));
  add_ztest_options(cmd, a.z);
  return cmd;
}

namespace {
void same_size(const Image& a, const std::string& pa, const Image& b, const std::string& pb) {
  if (a.width != b.width || a.height != b.height)
    throw LoadError(pa + " is " + std::to_string(a.width) + "x" + std::to_string(a.height) + " but " + pb +
                             " is " + std::to_string(b.width) + "x" + std::to_string(b.height));
}
int known_spp(int given, const Image& img, const std::string& path, const char* flag) {
  int spp = given > 0 ? given : img.spp;
  if (spp <= 0)
    throw LoadError(path + ": sample count unknown (not an EXR written by dray render): give " + flag);
  return spp;
}
}  // namespace

int run_diff(const mpi::Context& ctx, const DiffArgs& a) {
  Image test, ref, var, mask;
  int test_spp = 0, ref_spp = 0;
  // Every rank reads its inputs; rank 0 reports and writes.
  mpi::Status status = mpi::agree_on(ctx, [&] {
    if (ctx.is_root() && !a.heatmap.empty()) {
      for (const std::string& input : {a.test, a.ref, a.ref_variance})
        if (!input.empty() && fs::weakly_canonical(fs::absolute(input)) == fs::weakly_canonical(fs::absolute(a.heatmap)))
          throw LoadError("--heatmap " + a.heatmap + " is also an input: give the heatmap its own file");
      check_outputs({{"--heatmap", a.heatmap}});
    }
    test = read_image(a.test);
    ref = read_image(a.ref);
    // A reference larger by whole factors (a photograph, a job's target) is averaged down.
    if (test.width > 0 && test.height > 0 && ref.width > test.width && ref.width % test.width == 0 &&
        ref.height % test.height == 0 && ref.width / test.width == ref.height / test.height)
      ref = downsampled(ref, ref.width / test.width, ref.height / test.height);
    same_size(test, a.test, ref, a.ref);
    if (!a.mask.empty()) {
      if (!a.ref_variance.empty()) throw LoadError("--mask and --ref-variance: give one of them");
      mask = read_image(a.mask);
      same_size(mask, a.mask, ref, a.ref);
    }
    if (!a.ref_variance.empty()) {
      if (fs::path(a.ref_variance).extension() != ".exr")
        throw LoadError(a.ref_variance + ": --ref-variance must be an EXR (the variance from dray render --variance); a PNG "
                        "holds neither the linear values nor the sample count");
      var = read_image(a.ref_variance);
      same_size(var, a.ref_variance, ref, a.ref);
      test_spp = known_spp(a.test_spp, test, a.test, "--test-spp");
      ref_spp = known_spp(a.ref_spp, var, a.ref_variance, "--ref-spp");
    }
  });
  if (status.code) return report(ctx, status);

  DiffStats d = diff_images(test, ref, a.tol, a.mask.empty() ? nullptr : &mask);
  bool passed = d.share_over_tol <= a.max_share;
  ZTestResult z;
  if (!a.ref_variance.empty()) {
    z = z_test(test, test_spp, ref, var, ref_spp, a.z);
    passed = z.passed;
  }
  status = mpi::agree_on(ctx, [&] {
    if (!ctx.is_root() || a.heatmap.empty()) return;
    if (a.ref_variance.empty()) write_image(heatmap(d.pixel_error, test.width, test.height, float(std::max(d.max_abs, a.tol))), a.heatmap);
    else write_image(heatmap(z.pixel_z, test.width, test.height, float(z.z_critical)), a.heatmap);
  });
  if (status.code) return report(ctx, status);
  if (ctx.is_root()) {
    std::printf("dray diff: %s vs %s (%dx%d)\n", a.test.c_str(), a.ref.c_str(), test.width, test.height);
    if (!a.mask.empty())
      std::printf("  mask          %s: %ld of %d pixels compared\n", a.mask.c_str(), d.compared, test.width * test.height);
    std::printf("  RMSE          %.6g\n  PSNR          %.2f dB\n  mean |error|  %.6g\n  max |error|   %.6g\n", d.rmse,
                d.psnr, d.mean_abs, d.max_abs);
    std::printf("  NCC           %.4f (normalized cross-correlation: 1 equal up to brightness and offset)\n", d.ncc);
    std::printf("  over --tol    %ld pixels (%.3f%%) with an error > %g\n", d.pixels_over_tol, 100 * d.share_over_tol, a.tol);
    if (!a.ref_variance.empty()) {
      std::printf("  Z-test        %ld channels, %d vs %d spp, alpha %g, Šidák per channel %.3g (|z| > %.2f fails)\n",
                  z.tested, test_spp, ref_spp, a.z.alpha, z.alpha_sidak, z.z_critical);
      std::printf("  failing       %ld pixels (%.3f%%), allowed %.3f%%\n", z.failed_pixels, 100 * z.fail_share,
                  100 * a.z.max_fail_share);
      std::printf("  global z      %.3f, allowed |z| <= %g\n", z.global_z, a.z.max_global_z);
      if (z.blocks > 0)
        std::printf("  blocks        %ld failing of %ld (%dx%d pixels), largest |z| %.2f, allowed %.2f\n", z.failed_blocks,
                    z.blocks, a.z.block_size, a.z.block_size, z.block_z_max, z.block_z_critical);
    }
    if (!a.heatmap.empty())
      std::printf("  heatmap       %s (white: %s %.4g)\n", a.heatmap.c_str(), a.ref_variance.empty() ? "|error| >=" : "|z| >=",
                  a.ref_variance.empty() ? std::max(d.max_abs, a.tol) : z.z_critical);
    std::printf("%s\n", passed ? "PASS" : "FAIL");
  }
  return passed ? 0 : kExitDifferent;
}

}  // namespace dray::cli
