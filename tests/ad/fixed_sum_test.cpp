// FixedSum: exact, order-independent sums.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "ad/fixed_sum.h"

using dray::ad::FixedSum;

TEST_CASE("a fixed-point sum does not depend on the order of its addends", "[fixed_sum]") {
  std::mt19937_64 rng(7);
  std::vector<double> xs;
  for (int i = 0; i < 10000; ++i) {
    std::uniform_real_distribution<double> u(-1, 1);
    xs.push_back(u(rng) * std::ldexp(1.0, int(rng() % 60) - 40));  // magnitudes 2^-40 .. 2^20
  }
  FixedSum a;
  for (double x : xs) REQUIRE(a.add(x));
  // Shuffled, and split into 7 partial sums added in another order: bitwise the same.
  std::shuffle(xs.begin(), xs.end(), rng);
  FixedSum parts[7];
  for (size_t i = 0; i < xs.size(); ++i) parts[i % 7].add(xs[i]);
  FixedSum b;
  for (int k = 6; k >= 0; --k) b += parts[k];
  REQUIRE(a.bits == b.bits);
  // And within rounding of the exact sum (long double as a check, 2^-64 per addend).
  long double exact = 0;
  for (double x : xs) exact += x;
  REQUIRE(std::fabs(double(exact) - a.value()) <= 1e-12 * std::fabs(double(exact)) + 1e-15);
}

TEST_CASE("fixed-point sums are exact for representable values and refuse what they cannot hold", "[fixed_sum]") {
  FixedSum s;
  REQUIRE(s.add(1e15));
  REQUIRE(s.add(0x1p-60));
  REQUIRE(s.add(-1e15));
  REQUIRE(s.value() == 0x1p-60);  // floating point would give 0
  REQUIRE(s.add(-3.25));
  REQUIRE(s.value() == -3.25 + 0x1p-60);
  REQUIRE_FALSE(s.add(std::nan("")));
  REQUIRE_FALSE(s.add(INFINITY));
  REQUIRE_FALSE(s.add(1e19));
  REQUIRE(s.value() == -3.25 + 0x1p-60);
  FixedSum neg;
  neg.add(-0.1);
  REQUIRE(neg.value() == -0.1);
}
