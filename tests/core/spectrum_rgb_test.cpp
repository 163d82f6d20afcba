// Spectra to RGB as Mitsuba 3's RGB variants: the tables reproduce Mitsuba's normalisation
// constants, D65 is white in sRGB, and the integration of piecewise-linear spectra.
#include <catch2/catch.hpp>

#include <vector>

#include "renderer/core/spectrum_rgb.h"

using namespace dray;

namespace {

// ∫ f over [360, 830] nm as Mitsuba integrates (1000 points, step 470/1000).
template <class F>
double mitsuba_integral(F&& f) {
  double sum = 0;
  for (int i = 0; i < 1000; ++i) sum += f(kCieMin + i / 999.0 * (kCieMax - kCieMin));
  return sum * (kCieMax - kCieMin) / 1000.0;
}

}  // namespace

TEST_CASE("CIE tables: Mitsuba's Y normalisation, D65 white, the BT.709 matrix", "[spectrum]") {
  // ∫ ȳ is Mitsuba's MI_CIE_Y_NORMALIZATION (its float table: to 1e-6).
  CHECK(mitsuba_integral([](double w) { return cie1931_xyz(w).y; }) * kCieYNormalization == Approx(1.0).epsilon(1e-6));
  CHECK(cie1931_xyz(555).y == 1.0);
  CHECK(cie1931_xyz(600).x == Approx(1.0622));
  CHECK(cie1931_xyz(350).x == 0.0);
  CHECK(cie_d65(560) == Approx(100 * kCieD65Normalization));
  CHECK(cie_d65(456) == Approx(117.49 * kCieD65Normalization).epsilon(1e-4));  // Mitsuba's d65 test spot values
  CHECK(cie_d65(700) == Approx(71.6091 * kCieD65Normalization));
  // D65's XYZ is sRGB white: equal channels to 3e-4 (the matrix's 6 digits), 1 to Mitsuba's D65
  // normalisation (0.2%).
  const glm::dvec3 xyz(mitsuba_integral([](double w) { return cie1931_xyz(w).x * cie_d65(w); }),
                       mitsuba_integral([](double w) { return cie1931_xyz(w).y * cie_d65(w); }),
                       mitsuba_integral([](double w) { return cie1931_xyz(w).z * cie_d65(w); }));
  const glm::dvec3 white = xyz_to_srgb(xyz * kCieYNormalization);
  CHECK(white.x == Approx(white.y).epsilon(3e-4));
  CHECK(white.z == Approx(white.y).epsilon(3e-4));
  CHECK(white.y == Approx(1.0).epsilon(2e-3));
}

TEST_CASE("spectrum_to_srgb integrates the piecewise-linear spectrum over its range only", "[spectrum]") {
  // A box spectrum [500, 600] of height 1 (steep edges) against the integral of the table there.
  const std::vector<double> w = {500, 600}, v = {1, 1};
  const glm::dvec3 expected = xyz_to_srgb(glm::dvec3(
      mitsuba_integral([](double x) { return x >= 500 && x <= 600 ? cie1931_xyz(x).x : 0.0; }),
      mitsuba_integral([](double x) { return x >= 500 && x <= 600 ? cie1931_xyz(x).y : 0.0; }),
      mitsuba_integral([](double x) { return x >= 500 && x <= 600 ? cie1931_xyz(x).z : 0.0; })));
  const glm::dvec3 got = spectrum_to_srgb(w, v, false, false);
  for (int c = 0; c < 3; ++c) CHECK(got[c] == Approx(std::max(expected[c], 0.0)));
  // A ramp is linear: the spectrum 2x gives twice the colour, unbounded.
  const std::vector<double> ramp = {0, 2}, ramp2 = {0, 4};
  const glm::dvec3 a = spectrum_to_srgb(w, ramp, false, true), b = spectrum_to_srgb(w, ramp2, false, true);
  for (int c = 0; c < 3; ++c) CHECK(b[c] == Approx(2 * a[c]));
  // Bounded: within [0, 1].
  const std::vector<double> big = {500, 500};
  const glm::dvec3 clamped = spectrum_to_srgb(w, big, true, false);
  for (int c = 0; c < 3; ++c) CHECK((clamped[c] >= 0.0 && clamped[c] <= 1.0));
}
