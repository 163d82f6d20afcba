#pragma once
// Mitsuba 3's curve files (src/shapes/linearcurve.cpp, bsplinecurve.cpp): one control point per
// line, "x y z radius", curves separated by empty lines. A linear curve needs two control points,
// a cubic B-spline four.
#include <cstdint>
#include <filesystem>
#include <string>

#include "renderer/shapes/curve_points.h"

namespace dray {

// Reads the file; a curve with fewer than `min_points` points, a line that is not four finite
// numbers or a negative radius throws LoadError(where + problem, naming the line).
CurvePoints read_curve_file(const std::filesystem::path& file, uint32_t min_points, const std::string& where);

}  // namespace dray
