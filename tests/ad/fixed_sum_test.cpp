// FixedSum: exact, order-independent sums.
#include <catch2/catch.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "ad/exact_gradient.h"
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

// The library's rounding of x 2^80 to an integer (ties to even), by whole part and fraction: what
// FixedSum::scaled computes from x's bits.
dray::ad::int128 library_scaled(double x) {
  const double whole = std::trunc(x);
  return (dray::ad::int128(int64_t(whole)) << FixedSum::kFractionBits) +
         dray::ad::int128(std::nearbyint(std::ldexp(x - whole, FixedSum::kFractionBits)));
}

TEST_CASE("an addend's bits scaled by 2^80 round as the library rounds, ties to even", "[fixed_sum]") {
  std::mt19937_64 rng(11);
  int checked = 0;
  auto check = [&](double x) {
    for (double y : {x, -x}) {
      if (!(std::fabs(y) < FixedSum::kLimit)) continue;
      REQUIRE(FixedSum::scaled(y) == library_scaled(y));
      ++checked;
    }
  };
  for (int i = 0; i < 200000; ++i) {
    std::uniform_real_distribution<double> u(0.5, 1);
    check(u(rng) * std::ldexp(1.0, int(rng() % 140) - 110));  // magnitudes 2^-111 .. 2^29
  }
  // Exact ties and their neighbours: k + 1/2 units (k even and odd), and a unit's quarters.
  for (double k : {0.0, 1.0, 2.0, 3.0, 1e6, 1e6 + 1, 0x1p40, 0x1p40 + 1})
    for (double f : {0.5, 0.25, 0.75})
      for (double x : {(k + f) * 0x1p-80, std::nextafter((k + f) * 0x1p-80, 0.0), std::nextafter((k + f) * 0x1p-80, 1.0)})
        check(x);
  for (double x : {0.0, 5e-324, 0x1p-1022, 0x1p-81, 0x1p-80, 1.0, 0x1p29, std::nextafter(0x1p30, 0.0)}) check(x);
  REQUIRE(checked > 400000);
}

TEST_CASE("fixed-point sums are exact for representable values and refuse what they cannot hold", "[fixed_sum]") {
  FixedSum s;
  REQUIRE(s.add(1e8));
  REQUIRE(s.add(0x1p-78));
  REQUIRE(s.add(-1e8));
  REQUIRE(s.value() == 0x1p-78);  // floating point would give 0
  REQUIRE(s.add(-3.25));
  REQUIRE(s.value() == -3.25 + 0x1p-78);
  REQUIRE_FALSE(s.add(std::nan("")));
  REQUIRE_FALSE(s.add(INFINITY));
  REQUIRE_FALSE(s.add(2e9));
  REQUIRE(s.value() == -3.25 + 0x1p-78);
  // Contributions down to 2^-80 count.
  FixedSum tiny;
  for (int i = 0; i < 1024; ++i) REQUIRE(tiny.add(0x1p-80));
  REQUIRE(tiny.value() == 0x1p-70);
  // The sum's own range: refused when it would reach 2^30, unchanged after.
  FixedSum big;
  REQUIRE(big.add(0x1p29));
  REQUIRE(big.add(0x1p29 - 1));
  REQUIRE_FALSE(big.add(1.0));
  REQUIRE(big.value() == 0x1p30 - 1);
  FixedSum neg;
  neg.add(-0.1);
  REQUIRE(neg.value() == -0.1);
}

TEST_CASE("per-thread exact gradients: staged per unit, committed all or none, the same bits for any split", "[fixed_sum]") {
  using dray::ad::ExactGradient;
  using dray::ad::ThreadGradient;
  // Units of work (each: a few (parameter, adjoint) pairs staged in order), as pixels are.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::vector<std::pair<size_t, double>>> units(2000);
  for (auto& unit : units)
    for (int k = 0; k < 5; ++k) unit.push_back({size_t(rng() % 50), u(rng) * std::ldexp(1.0, int(rng() % 40) - 30)});
  auto run = [&](int threads, int chunk) {
    ExactGradient acc(threads, 50);
    for (size_t i = 0; i < units.size(); ++i) {
      ThreadGradient& t = acc.thread(int((i / size_t(chunk)) % size_t(threads)));
      for (auto [g, x] : units[i]) t.stage(g, x);
      REQUIRE(t.commit());
    }
    std::vector<FixedSum> out(50);
    REQUIRE(acc.merge_into(out) == 0);
    return out;
  };
  const std::vector<FixedSum> one = run(1, 1);
  for (auto [threads, chunk] : {std::pair{2, 1}, std::pair{3, 7}, std::pair{8, 100}}) {
    const std::vector<FixedSum> other = run(threads, chunk);
    for (size_t g = 0; g < 50; ++g) REQUIRE(other[g].bits == one[g].bits);
  }
  // A unit with a non-finite or out-of-range adjoint leaves every sum as it was; discarded stages
  // add nothing. Dense staging (few parameters) and sparse (over a million) alike.
  for (size_t n : {size_t(4), size_t(3) << 20}) {
    ExactGradient acc(1, n);
    ThreadGradient& t = acc.thread(0);
    const size_t far = n - 1;
    t.stage(0, 1.5);
    REQUIRE(t.commit());
    t.stage(0, 2.0);
    t.stage(far, 1.0);
    t.stage(2, std::nan(""));
    REQUIRE_FALSE(t.commit());
    t.stage(3, 2e9);
    REQUIRE_FALSE(t.commit());
    REQUIRE(t.refused() == 2);
    t.stage(far, 5.0);
    t.discard();
    t.stage(far, 0.25);
    t.stage(far, 0.5);
    REQUIRE(t.commit());
    std::vector<FixedSum> out(n);
    REQUIRE(acc.merge_into(out) == 2);
    REQUIRE(out[0].value() == 1.5);
    REQUIRE(out[far].value() == 0.75);
    REQUIRE(out[2].value() == 0.0);
  }
}

TEST_CASE("exact gradients committed by concurrent threads into one array: the same bits as one thread", "[fixed_sum]") {
  using dray::ad::ExactGradient;
  // Units touching parameters across all lock stripes, committed from 1 and 4 OpenMP threads, in
  // dense and sparse staging.
  for (size_t n : {size_t(300000), size_t(1) << 21}) {
    std::mt19937_64 rng(5);
    std::vector<std::vector<std::pair<size_t, double>>> units(4000);
    for (auto& unit : units)
      for (int k = 0; k < 8; ++k) unit.push_back({size_t(rng() % n), std::ldexp(double(rng() % 1000) - 500., int(rng() % 30) - 20)});
    auto run = [&](int threads) {
      ExactGradient acc(threads, n);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 3)
      for (int i = 0; i < int(units.size()); ++i) {
        auto& t = acc.thread(omp_get_thread_num());
        for (auto [g, x] : units[size_t(i)]) t.stage(g, x);
        t.commit();
      }
      return acc.take_sums();
    };
    const dray::ad::FixedSums one = run(1), four = run(4);
    bool same = true;
    for (size_t g = 0; g < n; ++g) same = same && one[g].bits == four[g].bits;
    REQUIRE(same);
  }
}

TEST_CASE("sparse staging sums a unit's repeated parameters in staging order, as dense staging does", "[fixed_sum]") {
  using dray::ad::ExactGradient;
  // Units with many repeats of few parameters and adjoints of very different sizes: a double sum
  // of them depends on its order, so any reordering within a parameter shows in the bits.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::vector<std::pair<size_t, double>>> units(500);
  for (auto& unit : units)
    for (int k = 0; k < 64; ++k) unit.push_back({size_t(rng() % 7), u(rng) * std::ldexp(1.0, int(rng() % 50) - 42)});
  auto run = [&](size_t n) {
    ExactGradient acc(1, n);
    for (const auto& unit : units) {
      for (auto [g, x] : unit) acc.thread(0).stage(g, x);
      REQUIRE(acc.thread(0).commit());
    }
    std::vector<FixedSum> out(n);
    acc.merge_into(out);
    out.resize(7);
    return out;
  };
  const std::vector<FixedSum> dense = run(7), sparse = run(size_t(3) << 20);
  for (size_t g = 0; g < 7; ++g) REQUIRE(sparse[g].bits == dense[g].bits);
}

TEST_CASE("an array of sums starts at zero, also where a freed array's memory is reused", "[fixed_sum]") {
  using dray::ad::FixedSums;
  const size_t big = (dray::ad::detail::SumsCache::kMinBytes / sizeof(FixedSum)) * 3;  // kept when freed
  for (size_t n : {size_t(0), size_t(5), big}) {
    FixedSums a(n);
    bool zero = a.size() == n;
    for (const FixedSum& s : a) zero = zero && s.bits == 0;
    REQUIRE(zero);
  }
  const FixedSum *kept_a = nullptr, *kept_copy = nullptr;
  {
    FixedSums a(big);
    bool added = true;
    for (size_t k = 0; k < big; ++k) added = a[k].add(double(k) + 0.5) && added;
    REQUIRE(added);
    FixedSums copy = a;  // a copy has the same bits in memory of its own
    REQUIRE(copy.begin() != a.begin());
    REQUIRE(std::equal(copy.begin(), copy.end(), a.begin(), [](const FixedSum& x, const FixedSum& y) { return x.bits == y.bits; }));
    REQUIRE(copy[big - 1].value() == double(big - 1) + 0.5);
    kept_a = a.begin();
    kept_copy = copy.begin();
  }
  // The freed arrays are kept; an array of about their size takes one, zeroed over its length.
  FixedSums again(big - 100);
  REQUIRE((again.begin() == kept_a || again.begin() == kept_copy));
  bool zero = true;
  for (const FixedSum& s : again) zero = zero && s.bits == 0;
  REQUIRE(zero);
  again.truncate(7);
  REQUIRE(again.size() == 7);
  // An array over twice the size of every kept one gets fresh memory, zeroed too.
  FixedSums larger(3 * big);
  REQUIRE((larger.begin() != kept_a && larger.begin() != kept_copy));
  zero = true;
  for (const FixedSum& s : larger) zero = zero && s.bits == 0;
  REQUIRE(zero);
}
