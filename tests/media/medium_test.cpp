// Media (renderer/media; phase functions: phase_test.cpp): free flights and
// transmittance against closed forms (homogeneous, RGB σt) and against quadrature of the
// grid's own values (delta and ratio tracking), and the majorant supergrid bounding the grid.
#include <catch2/catch.hpp>

#include <cmath>

#include "ad/dual.h"
#include "renderer/media/medium.h"
#include "tests/chi2.h"

using namespace dray;

namespace {

// A table of parameters and the media and grids that read it.
struct Fixture {
  ParamTable params;
  std::vector<GridVolume> volumes;
  Medium medium;
  ParamView<float> view() const { return ParamView<float>(params); }
};

Fixture homogeneous(glm::vec3 sigma_t, glm::vec3 albedo, float scale = 1.f) {
  Fixture f;
  HomogeneousMedium m;
  m.sigma_t = f.params.add("m.sigma_t", sigma_t);
  m.albedo.constant = f.params.add("m.albedo", albedo);
  f.medium.model = m;
  f.medium.scale = f.params.add("m.scale", scale);
  return f;
}

// A grid on [0, 1]³ (world = unit cube) of res³ voxels, one or three channels, from `density`.
Fixture grid(int res, int channels, glm::vec3 albedo, float scale, const std::function<glm::vec3(glm::vec3)>& density) {
  Fixture f;
  GridVolume g;
  g.res = glm::ivec3(res);
  g.channels = channels;
  std::vector<float> v;
  for (int z = 0; z < res; ++z)
    for (int y = 0; y < res; ++y)
      for (int x = 0; x < res; ++x) {
        const glm::vec3 d = density((glm::vec3(x, y, z) + 0.5f) / float(res));
        for (int c = 0; c < channels; ++c) v.push_back(d[c]);
      }
  g.data = f.params.add_block("m.sigma_t", v, {uint32_t(res), uint32_t(res), uint32_t(res), uint32_t(channels)});
  g.refresh_majorants(f.params);
  f.volumes.push_back(g);
  HeterogeneousMedium m;
  m.sigma_t.grid = 0;
  m.albedo.constant = f.params.add("m.albedo", albedo);
  f.medium.model = m;
  f.medium.scale = f.params.add("m.scale", scale);
  return f;
}

// ∫ σt along r over [0, t] by the midpoint rule on the grid's own (trilinear) values, inside its
// unit cube (outside it the medium is empty, as Mitsuba's: its bounding box).
glm::vec3 optical_depth(const Fixture& f, const Ray& r, float t, int n = 20000) {
  glm::vec3 sum(0.f);
  for (int i = 0; i < n; ++i) {
    const glm::vec3 p = r.o + r.d * (t * (float(i) + 0.5f) / float(n));
    if (glm::any(glm::lessThan(p, glm::vec3(0.f))) || glm::any(glm::greaterThan(p, glm::vec3(1.f)))) continue;
    sum += to_glm(medium_sigma_t(f.medium, f.volumes, f.view(), p));
  }
  return sum * (t / float(n));
}

// Mean and standard error of x over n draws.
struct Stat {
  glm::dvec3 sum{0.}, sum2{0.};
  int n = 0;
  void add(glm::vec3 x) { sum += glm::dvec3(x), sum2 += glm::dvec3(x) * glm::dvec3(x), ++n; }
  glm::dvec3 mean() const { return sum / double(n); }
  glm::dvec3 error() const { return glm::sqrt(glm::max(sum2 / double(n) - mean() * mean(), 0.) / double(n)); }
};

void check_within(const Stat& s, glm::vec3 expected, const char* what) {
  for (int c = 0; c < 3; ++c) {
    INFO(what << " channel " << c << ": " << s.mean()[c] << " +- " << s.error()[c] << ", expected " << expected[c]);
    CHECK(std::fabs(s.mean()[c] - expected[c]) <= 4. * s.error()[c] + 1e-6);
  }
}

}  // namespace

TEST_CASE("a homogeneous medium: free flights and transmittance match the closed forms per channel", "[media]") {
  // σt differs per channel (one channel is sampled, the mean pdf weighs): the passing weight's
  // mean is exp(−σt L), the scattered weight's (σs / σt)(1 − exp(−σt L)).
  const glm::vec3 sigma(1.f, 0.2f, 3.f), albedo(0.9f, 0.5f, 0.7f);
  const Fixture f = homogeneous(sigma * 0.5f, albedo, 2.f);
  const Ray r{glm::vec3(0.f), glm::vec3(0.f, 0.f, 1.f), INFINITY};
  const float L = 1.3f;
  Stat pass, scatter;
  Sampler s(1, 2, 3);
  for (int i = 0; i < 400000; ++i) {
    const FreeFlight<float> ff = sample_free_flight(f.medium, f.volumes, f.view(), r, L, s);
    pass.add(ff.scattered ? glm::vec3(0.f) : to_glm(ff.weight));
    scatter.add(ff.scattered ? to_glm(ff.weight) : glm::vec3(0.f));
    if (ff.scattered) REQUIRE((ff.t >= 0.f && ff.t < L));
  }
  const glm::vec3 tr = glm::exp(-sigma * L);
  check_within(pass, tr, "passed");
  check_within(scatter, albedo * (1.f - tr), "scattered");
  Sampler unused(0, 0, 0);
  const glm::vec3 exact = to_glm(medium_transmittance(f.medium, f.volumes, f.view(), r, L, unused));
  for (int c = 0; c < 3; ++c) CHECK(exact[c] == Approx(tr[c]).epsilon(1e-6));
  CHECK(unused.dimension() == 0);  // exact: no random numbers
}

TEST_CASE("a grid medium: delta and ratio tracking against the grid's optical depth", "[media]") {
  // A ramp in x and a blob, grey and RGB: both the passing probability of delta tracking and the
  // ratio-tracking transmittance have mean exp(−∫σt) (σt integrated by quadrature), and the
  // scattered weight's mean is the albedo times the probability of not passing.
  for (int channels : {1, 3}) {
    auto density = [&](glm::vec3 p) {
      const float blob = std::exp(-20.f * glm::dot(p - glm::vec3(0.6f, 0.5f, 0.4f), p - glm::vec3(0.6f, 0.5f, 0.4f)));
      const float v = 0.3f * p.x + 2.f * blob;
      return channels == 1 ? glm::vec3(v) : glm::vec3(v, 0.5f * v, 1.5f * v);
    };
    const glm::vec3 albedo(0.8f, 0.6f, 0.9f);
    const Fixture f = grid(12, channels, albedo, 1.5f, density);
    const Ray r{glm::vec3(-0.2f, 0.45f, 0.35f), glm::normalize(glm::vec3(1.f, 0.1f, 0.05f)), INFINITY};
    const float L = 1.6f;  // enters at x = 0, leaves past x = 1: the part outside the grid is empty
    const glm::vec3 tr = glm::exp(-optical_depth(f, r, L));
    Stat pass, scatter, ratio;
    Sampler s(5, uint64_t(channels), 0);
    for (int i = 0; i < 200000; ++i) {
      const FreeFlight<float> ff = sample_free_flight(f.medium, f.volumes, f.view(), r, L, s);
      pass.add(ff.scattered ? glm::vec3(0.f) : to_glm(ff.weight));
      scatter.add(ff.scattered ? to_glm(ff.weight) : glm::vec3(0.f));
      ratio.add(to_glm(medium_transmittance(f.medium, f.volumes, f.view(), r, L, s)));
    }
    INFO(channels << " channel(s)");
    check_within(pass, tr, "delta tracking passed");
    check_within(ratio, tr, "ratio tracking");
    // ∫ σs e^{−τ(t)} dt = a (1 − e^{−τ(L)}) for a constant albedo a, per channel.
    check_within(scatter, albedo * (1.f - tr), "scattered");
    REQUIRE(tr.x < 0.9f);  // the ray crosses real density
  }
}

TEST_CASE("the majorant supergrid bounds the grid's values in every cell", "[media]") {
  const Fixture f = grid(40, 3, glm::vec3(1.f), 1.f, [](glm::vec3 p) {
    const float v = std::max(0.f, std::sin(9.f * p.x) * std::cos(7.f * p.y) + p.z - 0.5f);
    return glm::vec3(v, 2.f * v, 0.5f * v);
  });
  const GridVolume& g = f.volumes[0];
  REQUIRE(g.cells == glm::ivec3(16));
  Sampler s(9, 9, 9);
  int tight = 0;
  for (int i = 0; i < 200000; ++i) {
    const glm::vec3 p(s.next(), s.next(), s.next());
    const glm::ivec3 c = glm::min(glm::ivec3(p * glm::vec3(g.cells)), g.cells - 1);
    const float m = g.cell_max[(size_t(c.z) * size_t(g.cells.y) + size_t(c.y)) * size_t(g.cells.x) + size_t(c.x)];
    const glm::vec3 v = to_glm(g.eval(f.view(), p));
    REQUIRE(std::max({v.x, v.y, v.z}) <= m);
    tight += std::max({v.x, v.y, v.z}) > 0.5f * m;
  }
  CHECK(g.max == Approx(2.f * 1.5f).epsilon(0.05));
  CHECK(tight > 50000);  // cells bound their own values, not the grid's maximum
}

TEST_CASE("medium weights carry derivatives at fixed distances: means match the closed forms' derivatives", "[media]") {
  // With scale s: E[passing weight] = exp(−σ s L) and E[scattered weight] = a (1 − exp(−σ s L)), so
  // the means of their Dual derivatives are ∓σ L exp(−σ s L) (times a), per channel; the values
  // are the float pass's bit for bit.
  using D1 = ad::Dual<1>;
  const glm::vec3 sigma(0.8f, 0.4f, 1.2f), albedo(0.7f, 0.5f, 0.9f);
  Fixture f = homogeneous(sigma, albedo, 1.f);
  const Ray r{glm::vec3(0.f), glm::vec3(1.f, 0.f, 0.f), INFINITY};
  const float L = 0.9f;
  std::vector<int> seeds(f.params.values().size(), -1);
  seeds[f.medium.scale] = 0;
  const ParamView<D1> PD(f.params, seeds.data());
  Sampler s(3, 3, 3);
  Stat d_pass, d_scatter;
  for (int i = 0; i < 400000; ++i) {
    Sampler a = s;
    const FreeFlight<D1> ff = sample_free_flight(f.medium, f.volumes, PD, r, L, a);
    const FreeFlight<float> fv = sample_free_flight(f.medium, f.volumes, f.view(), r, L, s);
    REQUIRE(ff.scattered == fv.scattered);
    REQUIRE(value(ff.weight.y) == fv.weight.y);
    const glm::vec3 d(ff.weight.x.d[0], ff.weight.y.d[0], ff.weight.z.d[0]);
    d_pass.add(ff.scattered ? glm::vec3(0.f) : d);
    d_scatter.add(ff.scattered ? d : glm::vec3(0.f));
  }
  const glm::vec3 tr = glm::exp(-sigma * L);
  check_within(d_pass, -sigma * L * tr, "d passed / d scale");
  check_within(d_scatter, albedo * sigma * L * tr, "d scattered / d scale");
}

TEST_CASE("an unbounded medium with an empty channel: finite weights and derivatives", "[media]") {
  // σt (1, 0, 2) to infinity: a flight drawn in the empty channel passes forever; the others'
  // transmittance is 0 there, with derivative 0 (not 0 · ∞).
  using D1 = ad::Dual<1>;
  Fixture f = homogeneous(glm::vec3(1.f, 0.f, 2.f), glm::vec3(0.5f), 1.f);
  std::vector<int> seeds(f.params.values().size(), -1);
  seeds[f.medium.scale] = 0;
  const ParamView<D1> PD(f.params, seeds.data());
  const Ray r{glm::vec3(0.f), glm::vec3(0.f, 1.f, 0.f), INFINITY};
  Sampler s(4, 4, 4);
  int passed = 0;
  for (int i = 0; i < 3000; ++i) {
    const FreeFlight<D1> ff = sample_free_flight(f.medium, f.volumes, PD, r, INFINITY, s);
    passed += !ff.scattered;
    for (int c = 0; c < 3; ++c) REQUIRE((std::isfinite(ff.weight[c].v) && std::isfinite(ff.weight[c].d[0])));
  }
  CHECK(passed > 700);  // a third of the flights draw the empty channel
  const Vec3<D1> tr = medium_transmittance(f.medium, f.volumes, PD, r, INFINITY, s);
  CHECK(tr.x.v == 0.f);
  CHECK(tr.y.v == 1.f);
  CHECK(tr.x.d[0] == 0.f);
}
