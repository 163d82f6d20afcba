#pragma once
// A parameter's domain: the interval its values must lie in (finite; >= 0; > 0; [0, 1]; (0, 180)…).
// The one rule every way in checks (loaders, --set, scene.update, the optimizer's projection) and
// the one wording its errors use: "must be > 0, got -1".
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

namespace dray {

struct Domain {
  double lo = -std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::max();
  bool lo_open = false, hi_open = false;  // whether the bound itself is excluded

  static Domain finite() { return {}; }
  static Domain at_least(double lo) { return {lo, std::numeric_limits<float>::max(), false, false}; }
  static Domain positive() { return {0, std::numeric_limits<float>::max(), true, false}; }
  static Domain closed(double lo, double hi) { return {lo, hi, false, false}; }
  static Domain open(double lo, double hi) { return {lo, hi, true, true}; }
  static Domain left_open(double lo, double hi) { return {lo, hi, true, false}; }   // (lo, hi]
  static Domain right_open(double lo, double hi) { return {lo, hi, false, true}; }  // [lo, hi)

  bool contains(double v) const {
    if (!std::isfinite(v)) return false;
    return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  }

  // "must be in [0, 1]", "must be > 0", "must be a finite number".
  std::string rule() const {
    const bool has_lo = lo > -std::numeric_limits<float>::max(), has_hi = hi < std::numeric_limits<float>::max();
    if (has_lo && has_hi)
      return "must be in " + std::string(lo_open ? "(" : "[") + number(lo) + ", " + number(hi) + (hi_open ? ")" : "]");
    if (has_lo) return std::string("must be ") + (lo_open ? "> " : ">= ") + number(lo);
    if (has_hi) return std::string("must be ") + (hi_open ? "< " : "<= ") + number(hi);
    return "must be a finite number";
  }

  // The rule and the value, when v is outside: "must be > 0, got -1".
  std::optional<std::string> violation(double v) const {
    if (contains(v)) return std::nullopt;
    return (std::isfinite(v) || rule() == "must be a finite number" ? rule() : rule() + " (and finite)") + ", got " + number(v);
  }

  // The float of the domain nearest to v (an open bound: the next float inside it); NaN stays NaN.
  float project(double v) const {
    if (std::isnan(v)) return float(v);
    float x = float(v < lo ? lo : v > hi ? hi : v);
    if (lo_open && !(double(x) > lo)) x = std::nextafter(float(lo), std::numeric_limits<float>::max());
    if (hi_open && !(double(x) < hi)) x = std::nextafter(float(hi), -std::numeric_limits<float>::max());
    if (double(x) < lo) x = std::nextafter(x, std::numeric_limits<float>::max());  // float(lo) rounded below it
    if (double(x) > hi) x = std::nextafter(x, -std::numeric_limits<float>::max());
    return x;
  }

  static std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  }
};

}  // namespace dray
