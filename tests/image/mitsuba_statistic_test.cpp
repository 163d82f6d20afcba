// Mitsuba's render-test statistic (renderer/image/mitsuba_test.h) against hand-computed cases:
// the XYZ conversion, the variance floor, the Šidák level and the 0.25% rule at its edge.
#include <catch2/catch.hpp>

#include <cmath>

#include "renderer/image/mitsuba_test.h"

using namespace dray;

namespace {

Image constant(int w, int h, float v) {
  Image img(w, h, 3);
  for (float& x : img.data) x = v;
  return img;
}

}  // namespace

TEST_CASE("Mitsuba's statistic: z in XYZ, the variance floor, Šidák over pixels, 0.25% of values", "[image]") {
  const Image ref = constant(20, 20, 0.5f), var = constant(20, 20, 0.04f);  // 400 pixels
  SECTION("the reference itself passes, and the level is Šidák's over the pixels") {
    const MitsubaTestResult r = mitsuba_test(ref, 100, ref, var);
    CHECK(r.passed);
    CHECK(r.failed == 0);
    CHECK(r.values == 1200);
    CHECK(r.alpha == Approx(1.0 - std::pow(0.99, 1.0 / 400)).epsilon(1e-12));
  }
  SECTION("z of a red offset: |0.412453 d| sqrt(spp / (0.950456 var)) in X") {
    Image test = ref;
    test.pixel(3, 4)[0] += 0.01f;
    const MitsubaTestResult r = mitsuba_test(test, 100, ref, var);
    // X: 0.412453 d / sqrt(0.950456 * 0.04 / 100); Y: 0.212671 d / sqrt(1.0 * 0.04 / 100);
    // Z: 0.019334 d / sqrt(1.088754 * 0.04 / 100): X is the largest.
    const double z = 0.412453 * 0.01 / std::sqrt(0.950456 * 0.04 / 100);
    CHECK(r.pixel_z[4 * 20 + 3] == Approx(z).epsilon(1e-4));
    CHECK(r.failed == 0);
  }
  SECTION("one pixel failing in all three channels is 0.25%: passes; two pixels fail the image") {
    Image test = ref;
    for (int c = 0; c < 3; ++c) test.pixel(0, 0)[c] = 2.f;
    MitsubaTestResult r = mitsuba_test(test, 100, ref, var);
    CHECK(r.failed == 3);
    CHECK(r.passed);
    CHECK(r.worst_x == 0);
    CHECK(r.worst_y == 0);
    for (int c = 0; c < 3; ++c) test.pixel(19, 7)[c] = 2.f;
    r = mitsuba_test(test, 100, ref, var);
    CHECK(r.failed == 6);
    CHECK_FALSE(r.passed);
    CHECK(r.pixel_fail[7 * 20 + 19] == 3.f);
  }
  SECTION("a variance below 1e-4 counts as 1e-4") {
    const Image zero = constant(20, 20, 0.f);
    Image test = ref;
    for (float& x : test.data) x += 0.001f;  // z = 0.001 · row sum · sqrt(100 / (1e-4)) ≈ 1: passes
    CHECK(mitsuba_test(test, 100, ref, zero).passed);
    for (float& x : test.data) x += 0.009f;  // ≈ 10: every value fails
    const MitsubaTestResult r = mitsuba_test(test, 100, ref, zero);
    CHECK(r.failed == 1200);
    CHECK_FALSE(r.passed);
  }
  SECTION("a non-finite value fails") {
    Image test = ref;
    test.pixel(5, 5)[1] = NAN;
    CHECK(mitsuba_test(test, 100, ref, var).failed >= 1);
  }
}
