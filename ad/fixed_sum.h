#pragma once
// Exact, order-independent sums of doubles (DESIGN.md invariant 3): each addend is rounded once
// to a multiple of 2^-80 and added as a 128-bit integer. Integer addition is associative, so a
// sum over samples split across any number of threads and ranks is bitwise the same.
//
// Range: one accumulator refuses an addend that would take it to 2^30 (1.07e9) or beyond, so
// that up to 2^16 accumulators (threads times ranks) merge without leaving the 128 bits. A
// gradient pass sums loss derivatives of order one over pixels: realistic sums stay below 1e4,
// and a contribution as small as 2^-80 (8.3e-25) still counts.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace dray::ad {

__extension__ typedef __int128 int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet
__extension__ typedef unsigned __int128 uint128;

struct FixedSum {
  int128 bits = 0;

  static constexpr int kFractionBits = 80;  // one unit of the integer is 2^-80
  static constexpr double kLimit = 0x1p30;  // |sum| of one accumulator stays below this

  // Adds x (rounded to the nearest multiple of 2^-80, ties to even). A non-finite addend, or one
  // that would take the sum to kLimit or beyond, is refused (returns false) and leaves the sum
  // unchanged.
  bool add(double x) {
    if (!(std::fabs(x) < kLimit)) return false;
    const int128 sum = bits + scaled(x);
    constexpr int128 cap = int128(1) << (30 + kFractionBits);
    if (sum >= cap || sum <= -cap) return false;
    bits = sum;
    return true;
  }

  // x times 2^80 rounded to the nearest integer, ties to even, for |x| < 2^30: from x's bits, as
  // its 53-bit significand shifted (the gradient pass adds millions of addends a second; the
  // library's double-to-int128 conversion and nearbyint cost a tenth of a media gradient pass).
  static int128 scaled(double x) {
    uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    const int biased = int(u >> 52 & 0x7ff);
    if (biased == 0) return 0;  // zero or subnormal: below 2^-1022, far below half a unit
    const uint64_t mant = (u & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52);
    // x = mant 2^(biased - 1075), so x 2^80 = mant 2^shift.
    const int shift = biased - 1075 + kFractionBits;
    uint128 m;
    if (shift >= 0) {
      m = uint128(mant) << shift;  // shift <= 57 below kLimit: within 110 bits
    } else if (-shift >= 64) {
      m = 0;  // below 2^-11 of a unit
    } else {
      const int k = -shift;
      uint64_t q = mant >> k;
      const uint64_t rem = mant & ((uint64_t(1) << k) - 1), half = uint64_t(1) << (k - 1);
      if (rem > half || (rem == half && (q & 1))) ++q;
      m = q;
    }
    return u >> 63 ? -int128(m) : int128(m);
  }

  FixedSum& operator+=(const FixedSum& o) {
    bits += o.bits;
    return *this;
  }

  // The sum as a double (a function of the bits alone: the same bits give the same double).
  double value() const {
    if (bits == 0) return 0.0;
    const bool neg = bits < 0;
    const uint128 m = neg ? -static_cast<uint128>(bits) : static_cast<uint128>(bits);
    // Scaling by powers of two is exact: the same as ldexp, without its call.
    constexpr double hi_unit = 0x1p-16, lo_unit = 0x1p-80;  // 2^(64 - 80), 2^-80
    const double v = double(uint64_t(m >> 64)) * hi_unit + double(uint64_t(m)) * lo_unit;
    return neg ? -v : v;
  }
};

}  // namespace dray::ad
