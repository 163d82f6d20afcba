#pragma once
// Mitsuba 3's render-test statistic (src/render/tests/test_renders.py), so that a dray image is
// judged against Mitsuba's references exactly as Mitsuba judges its own: the image, the reference
// and the reference's per-sample variance converted from linear sRGB to XYZ (Mitsuba's matrix,
// include/mitsuba/core/spectrum.h srgb_to_xyz); per channel value z = |test − ref| ·
// √(spp / max(var, 1e−4)), p = 2 (1 − Φ(z)); a value fails when p ≤ 1 − (1 − 0.01)^(1/pixels)
// (Šidák over the pixels); the image passes when at most 0.25% of its channel values fail.
#include <vector>

#include "renderer/image/image.h"

namespace dray {

struct MitsubaTestResult {
  long values = 0;           // channel values tested (3 per pixel)
  long failed = 0;           // of them, failing
  double fail_share = 0;     // failed / values
  double alpha = 0;          // the Šidák-corrected level
  double min_p = 1;          // the smallest p-value
  int worst_x = -1, worst_y = -1;  // the pixel with the smallest p-value
  bool passed = false;
  std::vector<float> pixel_fail;   // per pixel: how many of its channels failed (0-3)
  std::vector<float> pixel_z;      // per pixel: the largest z
};

// `test` a mean of `spp` samples per pixel; `ref` Mitsuba's reference, `ref_var` its per-sample
// variance (the moment integrator's E[x²] − E[x]²), all linear RGB of one size (checked by the
// caller). significance 0.01 and max_fail_share 0.0025 are Mitsuba's.
MitsubaTestResult mitsuba_test(const Image& test, int spp, const Image& ref, const Image& ref_var,
                               double significance = 0.01, double max_fail_share = 0.0025);

}  // namespace dray
