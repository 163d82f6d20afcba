#include "renderer/io/curve_file.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "renderer/core/load_error.h"

namespace dray {

CurvePoints read_curve_file(const std::filesystem::path& file, uint32_t min_points, const std::string& where) {
  std::ifstream in(file);
  if (!in) throw LoadError(where + "cannot open curve file " + file.string());
  CurvePoints out;
  out.starts.push_back(0);
  auto close_curve = [&](size_t line) {
    const uint32_t n = uint32_t(out.points.size()) - out.starts.back();
    if (n == 0) return;
    if (n < min_points)
      throw LoadError(where + file.filename().string() + ": the curve ending before line " + std::to_string(line) + " has " +
                      std::to_string(n) + " control points (this curve type needs at least " + std::to_string(min_points) + ")");
    out.starts.push_back(uint32_t(out.points.size()));
  };
  std::string text;
  size_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) {
      close_curve(line);
      continue;
    }
    std::istringstream fields(text);
    glm::vec4 p;
    std::string rest;
    if (!(fields >> p.x >> p.y >> p.z >> p.w) || (fields >> rest) || !std::isfinite(p.x) || !std::isfinite(p.y) ||
        !std::isfinite(p.z) || !std::isfinite(p.w))
      throw LoadError(where + file.filename().string() + ", line " + std::to_string(line) +
                      ": expected four numbers \"x y z radius\", got \"" + text + "\"");
    if (p.w < 0.f) throw LoadError(where + file.filename().string() + ", line " + std::to_string(line) + ": a negative radius");
    out.points.push_back(p);
  }
  close_curve(line + 1);
  if (out.points.empty()) throw LoadError(where + file.filename().string() + ": no control points");
  return out;
}

}  // namespace dray
