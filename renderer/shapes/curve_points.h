#pragma once
// A set of curves' control points, as Mitsuba 3's curve shapes hold them (src/shapes/linearcurve.cpp,
// bsplinecurve.cpp): per point a position and a radius, the curves one after another.
#include <cstdint>
#include <vector>

#include <glm/vec4.hpp>

namespace dray {

struct CurvePoints {
  std::vector<glm::vec4> points;  // xyz position, w radius, every curve's in order
  std::vector<uint32_t> starts;   // each curve's first point; then points.size()
  size_t curve_count() const { return starts.size() - 1; }
  uint32_t curve_size(size_t c) const { return starts[c + 1] - starts[c]; }
};

}  // namespace dray
