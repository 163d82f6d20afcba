#pragma once
// Mitsuba 3's curve files (src/shapes/linearcurve.cpp, bsplinecurve.cpp): one control point per
// line, "x y z radius", curves separated by empty lines. A linear curve needs two control points,
// a cubic B-spline four.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <glm/vec4.hpp>

namespace dray {

struct CurveFile {
  std::vector<glm::vec4> points;  // xyz position, w radius, every curve's in file order
  std::vector<uint32_t> starts;   // each curve's first point; then points.size()
  size_t curve_count() const { return starts.size() - 1; }
  uint32_t curve_size(size_t c) const { return starts[c + 1] - starts[c]; }
};

// Reads the file; a curve with fewer than `min_points` points, a line that is not four finite
// numbers or a negative radius throws LoadError(where + problem, naming the line).
CurveFile read_curve_file(const std::filesystem::path& file, uint32_t min_points, const std::string& where);

}  // namespace dray
