#pragma once
// Spectra as RGB, the way Mitsuba 3's RGB variants read them (src/core/xml.cpp,
// create_texture_from_spectrum; src/core/spectrum.cpp, spectrum_list_to_srgb): a piecewise-linear
// spectrum is integrated against the CIE 1931 colour matching functions (times the D65
// illuminant for reflectances) at 1000 points over [360, 830] nm, and the XYZ result converted to
// linear sRGB (ITU-R BT.709 primaries).
#include <span>

#include <glm/vec3.hpp>

namespace dray {

inline constexpr double kCieMin = 360.0, kCieMax = 830.0;
inline constexpr int kCieSamples = 95;
// ∫ ȳ over [360, 830] nm as Mitsuba integrates it: dividing by it gives a unit spectrum Y = 1.
inline constexpr double kCieYNormalization = 1.0 / 106.7502593994140625;
// Mitsuba's scale of the D65 table, for a luminance of 1.
inline constexpr double kCieD65Normalization = 1.0 / 98.99741751876255;

glm::dvec3 cie1931_xyz(double wavelength_nm);  // x̄, ȳ, z̄ (unnormalised, ȳ(555) = 1)
double cie_d65(double wavelength_nm);          // D65 times kCieD65Normalization
glm::dvec3 xyz_to_srgb(const glm::dvec3& xyz);  // linear sRGB

// The linear sRGB colour of the spectrum (wavelengths in nm, increasing, at least two; values
// as given): ∫ (x̄, ȳ, z̄) v (D65 when `d65`) over the overlap of [360, 830] and the spectrum's
// range, converted to sRGB, clamped to [0, 1] when `bounded`, else to >= 0. Values are taken as
// they are: the caller applies kCieYNormalization as Mitsuba does.
glm::dvec3 spectrum_to_srgb(std::span<const double> wavelengths, std::span<const double> values, bool bounded, bool d65);

}  // namespace dray
