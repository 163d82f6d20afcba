#include <catch2/catch.hpp>

#include <set>

#include "renderer/samplers/sampler.h"

using dray::Sampler;

TEST_CASE("sampler: the same (seed, pixel, sample) gives the same sequence", "[sampler]") {
  Sampler a(7, 1234, 5), b(7, 1234, 5);
  for (int i = 0; i < 100; ++i) REQUIRE(a.next() == b.next());
}

TEST_CASE("sampler: different seed, pixel or sample give different sequences", "[sampler]") {
  auto first4 = [](Sampler s) { return std::vector<float>{s.next(), s.next(), s.next(), s.next()}; };
  auto base = first4(Sampler(7, 1234, 5));
  CHECK(first4(Sampler(8, 1234, 5)) != base);
  CHECK(first4(Sampler(7, 1235, 5)) != base);
  CHECK(first4(Sampler(7, 1234, 6)) != base);
  // No two pixels of a 256 x 256 image start with the same number.
  std::set<float> starts;
  for (uint64_t p = 0; p < 256 * 256; ++p) starts.insert(Sampler(0, p, 0).next());
  CHECK(starts.size() > 256 * 256 * 99 / 100);
}

TEST_CASE("sampler: values are uniform in [0, 1)", "[sampler]") {
  const int n = 200000, bins = 20;
  std::vector<int> hist(bins, 0);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    Sampler s(1, uint64_t(i), 0);
    float u = s.next();
    REQUIRE(u >= 0.f);
    REQUIRE(u < 1.f);
    sum += u;
    ++hist[int(u * bins)];
  }
  CHECK(sum / n == Approx(0.5).margin(0.005));
  // Chi-square over 20 bins, 19 degrees of freedom: the 99.9% quantile is 43.8.
  double chi2 = 0.0, expect = double(n) / bins;
  for (int h : hist) chi2 += (h - expect) * (h - expect) / expect;
  CHECK(chi2 < 43.8);
  CHECK(Sampler::to_unit(~0ull) < 1.f);
}
