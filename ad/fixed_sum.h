#pragma once
// Exact, order-independent sums of doubles (DESIGN.md invariant 3): each addend is rounded once
// to a multiple of 2^-64 and added as a 128-bit integer. Integer addition is associative, so a
// sum over samples split across any number of threads and ranks is bitwise the same. The range
// is |sum| < 2^63 (9.2e18), the resolution 2^-64 (5.4e-20) per addend.
#include <cmath>
#include <cstdint>

namespace dray::ad {

__extension__ typedef __int128 int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet
__extension__ typedef unsigned __int128 uint128;

struct FixedSum {
  int128 bits = 0;

  static constexpr double kScale = 0x1p64;   // one unit of the integer is 2^-64
  static constexpr double kLimit = 0x1p62;   // addends beyond (in units of 1) are refused

  // Adds x (rounded to the nearest multiple of 2^-64). A non-finite or out-of-range addend is
  // refused (returns false) and leaves the sum unchanged.
  bool add(double x) {
    if (!(std::fabs(x) < kLimit)) return false;
    // The whole part and the fraction, each exact; the fraction times 2^64 is exact too.
    const double hi = std::trunc(x);
    const double frac = x - hi;
    const auto frac_bits = static_cast<int128>(std::nearbyint(frac * kScale));
    bits += (static_cast<int128>(static_cast<int64_t>(hi)) << 64) + frac_bits;
    return true;
  }

  FixedSum& operator+=(const FixedSum& o) {
    bits += o.bits;
    return *this;
  }

  // The sum as a double (within one rounding of the exact sum; a function of the bits alone).
  double value() const {
    const bool neg = bits < 0;
    const uint128 m = neg ? -static_cast<uint128>(bits) : static_cast<uint128>(bits);
    const double v = double(uint64_t(m >> 64)) + std::ldexp(double(uint64_t(m)), -64);
    return neg ? -v : v;
  }
};

}  // namespace dray::ad
