#pragma once
// Bad input and how its messages print numbers: the loaders, the parameter table's checks and the
// command line share them (DESIGN.md invariant 7: errors are for people; the command line exits 2).
#include <sstream>
#include <stdexcept>
#include <string>

namespace dray {

struct LoadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A number as an error message shows it: the shortest form that reads back (%g-like).
inline std::string fmt_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace dray
