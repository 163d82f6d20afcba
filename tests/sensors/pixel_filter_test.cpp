// Pixel filters (box, tent, gaussian as Mitsuba 3's): the profiles, their integrals and inverse
// CDFs against quadrature, χ² of the film jitter against the filter's density, and a filtered
// step edge against its closed form: the image, its derivative images (the boundary term spread
// over the footprint) and the reverse-mode gradient.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "renderer/integrators/boundary.h"
#include "renderer/sensors/pixel_filter.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/mitsuba/xml_writer.h"
#include "renderer/io/scene_loader.h"
#include "tests/chi2.h"

using namespace dray;
using nlohmann::json;

namespace {

// ∫ f over [a, b] by composite Simpson with m (even) intervals.
double simpson(const PixelFilter& f, double a, double b, int m = 20000) {
  const double h = (b - a) / m;
  double sum = f.eval(a) + f.eval(b);
  for (int i = 1; i < m; ++i) sum += f.eval(a + i * h) * (i % 2 ? 4.0 : 2.0);
  return sum * h / 3.0;
}

const PixelFilter kFilters[] = {PixelFilter::box(), PixelFilter::tent(), PixelFilter::tent(1.5), PixelFilter::gaussian(),
                                PixelFilter::gaussian(0.3)};

}  // namespace

TEST_CASE("pixel filters: Mitsuba's profiles, their integrals, and sampling by the inverse CDF", "[filter]") {
  // Mitsuba 3's src/rfilters: tent max(0, 1 - |x|/r); gaussian max(0, exp(-x²/2σ²) - exp(-(4σ)²/2σ²)).
  CHECK(PixelFilter::tent().eval(0.25) == Approx(0.75));
  CHECK(PixelFilter::tent().eval(1.0) == 0.0);
  CHECK(PixelFilter::gaussian().radius == 2.0);
  CHECK(PixelFilter::gaussian().eval(0.5) == Approx(std::exp(-0.5) - std::exp(-8.0)).epsilon(1e-12));
  CHECK(PixelFilter::gaussian().eval(2.0) == 0.0);
  CHECK(PixelFilter::box().integral() == 1.0);
  CHECK(PixelFilter::tent().integral() == Approx(1.0));
  for (const PixelFilter& f : kFilters) {
    INFO(f.name() << " radius " << f.radius);
    CHECK(f.integral() == Approx(simpson(f, -f.radius, f.radius)).epsilon(1e-9));
    for (double x : {-0.9, -0.3, 0.0, 0.2, 0.7}) {
      const double xx = x * f.radius;
      CHECK(f.cdf(xx) == Approx(simpson(f, -f.radius, xx)).epsilon(1e-9).margin(1e-12));
    }
    // sample(u) against the inverse by bisection on the cdf: exact for the box; for the tent (a
    // closed form) and the Gaussian (an interpolated table, Newton in its tails) within 1e-7
    // pixels, the bisection's own resolution where the cdf is flat (measured: 1e-8 and 2e-8).
    double last = -f.radius, worst = 0;
    for (int i = 0; i <= 20000; ++i) {
      const double u = i / 20000.0, x = f.sample(u);
      REQUIRE(x >= last);  // monotone
      double lo = -f.radius, hi = f.radius;
      for (int it = 0; it < 200 && hi - lo > 1e-14; ++it) (f.cdf(0.5 * (lo + hi)) < u * f.integral() ? lo : hi) = 0.5 * (lo + hi);
      worst = std::max(worst, std::fabs(x - 0.5 * (lo + hi)));
      last = x;
    }
    INFO("largest error of the inverse CDF: " << worst << " pixels");
    CHECK(worst <= (f.kind == PixelFilter::Kind::box ? 1e-12 : 1e-7));
  }
}

TEST_CASE("pixel filters: the film jitter follows the filter's density (chi-square)", "[filter]") {
  for (const PixelFilter& f : kFilters) {
    INFO(f.name() << " radius " << f.radius);
    // Offsets from the pixel centre on each axis, 40 bins over the support.
    constexpr int bins = 40, n = 200000;
    std::vector<double> seen(2 * bins, 0.0);
    Sampler sampler(3, 11, 0);
    for (int i = 0; i < n; ++i) {
      const glm::vec2 j = film_jitter(f, sampler);
      for (int a = 0; a < 2; ++a) {
        const double x = double(j[a]) - 0.5;
        REQUIRE(std::fabs(x) <= f.radius + 1e-6);
        seen[size_t(a * bins + std::clamp(int((x + f.radius) / (2 * f.radius) * bins), 0, bins - 1))] += 1;
      }
    }
    double x2 = 0;
    int dof = 0;
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < bins; ++b) {
        const double lo = -f.radius + 2 * f.radius * b / bins, hi = lo + 2 * f.radius / bins;
        const double expected = n * (f.cdf(hi) - f.cdf(lo)) / f.integral();
        if (expected < 5) continue;
        x2 += std::pow(seen[size_t(a * bins + b)] - expected, 2) / expected;
        ++dof;
      }
    const double p = test::gamma_q((dof - 2) / 2.0, x2 / 2.0);
    INFO("chi2 " << x2 << " over " << dof << " bins: p = " << p);
    REQUIRE(p > 1e-3);
  }
}

namespace {

// A uniformly emitting (radiance 1) half-plane at depth 3 whose right edge crosses the film at
// column kEdge (a vertical step edge), on black; the camera at the origin looks down -z.
constexpr int kW = 32, kH = 8;
constexpr double kEdge = 16.3, kDepth = 3.0;
const double kHalfH = std::tan(20.0 * M_PI / 180.0), kHalfW = kHalfH * kW / kH;
const double kPixelsPerUnit = kW / (2.0 * kDepth * kHalfW);  // film motion of the edge per unit of x

Scene step_scene(const json& filter, int spp, double edge = kEdge, bool sample_border = false, bool splat = false) {
  const double a = (edge / (kW / 2.0) - 1.0) * kDepth * kHalfW;  // the edge's world x
  return load_scene(json{{"camera", {{"origin", {0, 0, 0}}, {"target", {0, 0, -1}}, {"up", {0, 1, 0}}, {"fov_y", 40},
                                     {"width", kW}, {"height", kH}}},
                         {"render", {{"spp", spp}, {"max_depth", 1}, {"boundary_samples", 40000}, {"filter", filter},
                                     {"sample_border", sample_border}, {"splat", splat}}},
                         {"materials", {{"lamp", {{"type", "diffuse"}, {"reflectance", {0, 0, 0}}, {"emission", {1, 1, 1}}}}}},
                         {"shapes", {{{"name", "s"}, {"type", "quad"}, {"corner", {-40, -40, -kDepth}},
                                      {"edge_u", {40 + a, 0, 0}}, {"edge_v", {0, 80, 0}}, {"material", "lamp"}}}}},
                    "step.json");
}

// A column's mean over the rows of one channel.
double column_mean(const Image& im, int c, int x) {
  double sum = 0;
  for (int y = 0; y < im.height; ++y) sum += im.pixel(x, y)[c];
  return sum / im.height;
}

// Renders the step at `edge` and checks every column, its derivative by the edge's position and a
// reverse-mode gradient against the closed form: column i (centre c = i + 0.5) holds the filter's
// mass left of the edge, over the footprint's mass (cut at the film's edges [0, kW] unless
// sample_border: Mitsuba's hdrfilm); moving the edge by dx changes it by f(edge - c) / mass · dx,
// the boundary term spread over the footprint (every row's vertical footprint lies on the edge,
// whose radiance step is 1).
void check_step(const json& spec, double edge, bool sample_border, bool splat = false) {
  Scene scene = step_scene(spec, 256, edge, sample_border, splat);
  const PixelFilter& f = scene.render.filter;
  INFO("filter " << spec.dump() << ", edge " << edge << ", sample_border " << sample_border << ", splat " << splat);
  RenderOutputs out;
  out.wrt = {resolve_scalars(scene.params, {"shapes.s.corner[0]"}).at(0).slot};
  const Image im = render_local(scene, 2, out);
  Image dloss(kW, kH, 3);  // a loss weighting columns unevenly, for the reverse mode
  double expected_gradient = 0;
  for (int x = 0; x < kW; ++x) {
    const double c = x + 0.5, lo = sample_border ? -1e9 : -c, hi = sample_border ? 1e9 : kW - c;
    const double mass = f.cdf(hi) - f.cdf(lo), value = (f.cdf(std::min(edge - c, hi)) - f.cdf(lo)) / mass;
    const double slope = f.eval(edge - c) / mass * kPixelsPerUnit;
    // The mean of kH · spp Bernoulli samples (the box and the others alike: each sample is
    // either side of the edge), within 5 standard errors (the splatting film's weighted mean of
    // its neighbourhood's samples varies less).
    // (|value (1 - value)|: a negative lobe's ringing takes a column below 0 or above 1.)
    const double se = std::sqrt(std::fabs(value * (1 - value)) / (kH * scene.render.spp));
    INFO("column " << x << ": value " << column_mean(im, 0, x) << " expected " << value << " (se " << se << "); slope "
                   << column_mean(im, out.derivative_channel(0), x) << " expected " << slope);
    REQUIRE(std::fabs(column_mean(im, 0, x) - value) <= 5 * se + 1e-6);
    REQUIRE(std::fabs(column_mean(im, out.derivative_channel(0), x) - slope) <= 0.03 * kPixelsPerUnit * f.eval(0) / f.integral() + 1e-6);
    for (int y = 0; y < kH; ++y) dloss.pixel(x, y)[1] = float(std::cos(0.7 * x));
    expected_gradient += std::cos(0.7 * x) * slope * kH;
  }
  std::vector<ad::FixedSum> g(1);
  boundary_gradient(scene, scene.shot(), dloss, out.wrt, 40000, 0, 1, 2, g);
  INFO("gradient " << g[0].value() << " expected " << expected_gradient);
  REQUIRE(std::fabs(g[0].value() - expected_gradient) <= 0.03 * kPixelsPerUnit * kH);
}

const json kFilterSpecs[] = {"box", "tent", "gaussian", {{"type", "gaussian"}, {"stddev", 0.3}}, {{"type", "tent"}, {"radius", 2}}};

}  // namespace

TEST_CASE("a filtered step edge: pixels, derivative images and gradient against the closed form", "[filter]") {
  for (const json& spec : kFilterSpecs) check_step(spec, kEdge, false);
}

TEST_CASE("sample_border: a step at the film's edge, the filter cut there (Mitsuba's default) or reaching past it", "[filter]") {
  // Edges 1.3 and 30.7 columns in: footprints of the outer columns cross the film's edge, where
  // the two rules differ (a tent of radius 2 at column 0 reads 0.75 cut, 0.82 whole).
  for (const PixelFilter& f : kFilters)  // offsets drawn within a cut: the cut's inverse CDF
    for (double u : {0.0, 0.1, 0.37, 0.5, 0.82, 1.0}) {
      const double a = -0.5, b = f.radius, x = f.sample_within(u, a, b);
      INFO(f.name() << " u " << u << " x " << x);
      CHECK(x >= a);
      CHECK(x <= b);
      CHECK((f.cdf(x) - f.cdf(a)) / f.mass(a, b) == Approx(u).margin(1e-6));
    }
  for (const json& spec : kFilterSpecs)
    for (double edge : {1.3, kW - 1.3})
      for (bool border : {false, true}) check_step(spec, edge, border);
}

TEST_CASE("pixel filters in the scene file: names, parameters and errors", "[filter]") {
  auto filter_of = [](const json& spec) {
    return load_scene(json{{"camera", {{"origin", {0, 0, 0}}, {"target", {0, 0, -1}}, {"up", {0, 1, 0}}}},
                           {"render", {{"filter", spec}}},
                           {"materials", {{"m", {{"type", "diffuse"}}}}},
                           {"shapes", {{{"type", "sphere"}, {"center", {0, 0, -3}}, {"radius", 1}, {"material", "m"}}}}},
                      "f.json", false)
        .render.filter;
  };
  CHECK(filter_of("tent").radius == 1.0);
  CHECK(filter_of({{"type", "tent"}, {"radius", 1.5}}).radius == 1.5);
  CHECK(filter_of({{"type", "gaussian"}, {"stddev", 0.25}}).radius == 1.0);
  CHECK(filter_of("box").kind == PixelFilter::Kind::box);
  auto error = [&](const json& spec) {
    try {
      filter_of(spec);
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error({{"type", "tent"}, {"radius", 1.5}}) == "no error");
  CHECK(error("sinc") == "f.json: /render/filter: unknown filter \"sinc\" (known: box, tent, gaussian, mitchell, catmullrom, lanczos)");
  CHECK(error("lanczos") == "f.json: /render/filter: the lanczos filter has negative lobes: dray draws it with the splatting film, "
                            "as Mitsuba's hdrfilm (give render.splat true)");
  CHECK(error({{"type", "mitchell"}, {"lobes", 2}}).find("/render/filter") != std::string::npos);
  CHECK(error({{"type", "gaussian"}, {"radius", 2}}) == "f.json: /render/filter/radius: the gaussian filter's radius is 4 stddev: give stddev");
  CHECK(error({{"type", "tent"}, {"radius", 0.1}}) == "f.json: /render/filter/radius: must be in [0.5, 16], got 0.1");
  CHECK(error({{"type", "box"}, {"radius", 1}}) == "f.json: /render/filter: the box filter takes no parameters (its radius is 0.5)");
  CHECK(error({{"radius", 1}}).find("/render/filter") != std::string::npos);
}

TEST_CASE("the splatting film: a filtered step edge against the closed form, cut at the film's edge or past it", "[filter]") {
  // Mitsuba's hdrfilm: samples uniform in their pixels, spread over the pixels their filter
  // reaches, each pixel divided by the weights it received; without sample_border no sample lies
  // outside the film, so a border pixel's filter is cut there, as the closed form's mass is.
  for (const json& spec : kFilterSpecs)
    for (double edge : {1.3, kEdge, kW - 1.3})
      for (bool border : {false, true}) check_step(spec, edge, border, true);
}

TEST_CASE("filters with negative lobes: Mitsuba's mitchell, catmullrom and lanczos", "[filter]") {
  // Their profiles at closed-form points (src/rfilters: B = C = 1/3 for mitchell), integrals against
  // quadrature, and a lobe below 0.
  const PixelFilter mitchell = PixelFilter::mitchell(), catmull = PixelFilter::catmull_rom(), lanczos = PixelFilter::lanczos();
  CHECK(mitchell.eval(0) == Approx(8.0 / 9.0));
  CHECK(mitchell.eval(1) == Approx(1.0 / 18.0));
  CHECK(mitchell.eval(1.5) == Approx(-0.2083333 / 6).epsilon(1e-5));
  CHECK(mitchell.eval(2.0) == 0.0);
  CHECK(catmull.eval(0) == Approx(1.0));
  CHECK(catmull.eval(1) == Approx(0.0).margin(1e-12));
  CHECK(catmull.eval(1.5) < 0.0);
  CHECK(lanczos.eval(0) == 1.0);
  CHECK(lanczos.eval(0.5) == Approx(6 / (M_PI * M_PI)));
  CHECK(lanczos.eval(1.5) < 0.0);
  CHECK(lanczos.radius == 3.0);
  CHECK(PixelFilter::lanczos(2).eval(2.5) == 0.0);
  for (const PixelFilter& f : {mitchell, catmull, lanczos}) {
    INFO(f.name());
    CHECK(f.negative_lobes());
    CHECK(f.integral() == Approx(simpson(f, -f.radius, f.radius)).epsilon(1e-7));
    CHECK(f.cdf(0.7) - f.cdf(-0.3) == Approx(simpson(f, -0.3, 0.7)).epsilon(1e-5));
    CHECK(f.eval_slope(0.8) == Approx((f.eval(0.8 + 1e-4) - f.eval(0.8 - 1e-4)) / 2e-4).epsilon(1e-5));
  }
  CHECK(mitchell.integral() == Approx(1.0).epsilon(1e-9));  // the Mitchell-Netravali family integrates to 1
  CHECK(catmull.integral() == Approx(1.0).epsilon(1e-9));
  // Offsets drawn from |f| and weighed by offset_weight estimate f's weighted means, on the whole
  // support and within a cut: E[w(x) g(x)] = ∫ f g / ∫ f (here g = cos 2x + x, against quadrature).
  for (const PixelFilter& f : {mitchell, lanczos})
    for (const auto& [a, b] : {std::pair{-f.radius, f.radius}, std::pair{-0.5, f.radius}}) {
      double sum = 0, num = 0;
      const int n = 200000, m = 20000;
      for (int i = 0; i < n; ++i) {
        const double x = f.sample_within((i + 0.5) / n, a, b), w = f.offset_weight(x, a, b) * (std::cos(2 * x) + x);
        sum += w;
      }
      const double h = (b - a) / m;
      for (int i = 0; i <= m; ++i) {
        const double x = a + i * h;
        num += f.eval(x) * (std::cos(2 * x) + x) * (i == 0 || i == m ? 1.0 : i % 2 ? 4.0 : 2.0);
      }
      num *= h / 3;
      INFO(f.name() << " on [" << a << ", " << b << "]");
      CHECK(sum / n == Approx(num / f.mass(a, b)).epsilon(2e-3));
    }
  // Rendered by the splatting film: the step edge's pixels (ringing past it), derivative images and
  // gradient against the closed form, cut at the film's edge or past it.
  for (const json& spec : {json("mitchell"), json("catmullrom"), json{{"type", "lanczos"}, {"lobes", 2}},
                           json{{"type", "mitchell"}, {"B", 1.0}, {"C", 0.0}}})
    for (double edge : {1.3, kEdge})
      for (bool border : {false, true}) check_step(spec, edge, border, true);
}

TEST_CASE("Mitsuba's rfilters with negative lobes in XML: mitchell's B and C, lanczos's lobes", "[filter][mitsuba]") {
  const std::string dir = std::filesystem::temp_directory_path() / ("dray-rfilter-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto filter_of = [&](const std::string& rfilter) {
    const std::string path = dir + "/f.xml";
    std::ofstream(path) << R"(<scene version="3.0.0"><sensor type="perspective"><film type="hdrfilm">)" << rfilter
                        << R"(</film></sensor><shape type="sphere"/></scene>)";
    return load_scene(path).render;
  };
  const RenderSettings m = filter_of(R"(<rfilter type="mitchell"><float name="B" value="0.5"/></rfilter>)");
  CHECK(m.filter.kind == PixelFilter::Kind::mitchell);
  CHECK(m.filter.b == 0.5);
  CHECK(m.filter.c == Approx(1.0 / 3.0));
  CHECK(m.splat);  // hdrfilm splats
  const RenderSettings l = filter_of(R"(<rfilter type="lanczos"><integer name="lobes" value="2"/></rfilter>)");
  CHECK(l.filter.kind == PixelFilter::Kind::lanczos);
  CHECK(l.filter.radius == 2.0);
  CHECK(filter_of(R"(<rfilter type="catmullrom"/>)").filter.kind == PixelFilter::Kind::catmullrom);
  std::string error;
  try {
    filter_of(R"(<rfilter type="catmullrom"><float name="B" value="0.5"/></rfilter>)");
  } catch (const LoadError& e) {
    error = e.what();
  }
  CHECK_THAT(error, Catch::Contains("unsupported catmullrom filter property"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a negative-lobed filter written as Mitsuba XML (dray convert -o) loads as itself", "[filter][mitsuba]") {
  const std::string dir = std::filesystem::temp_directory_path() / ("dray-rfilter-w-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const json& spec : {json{{"type", "mitchell"}, {"B", 0.5}, {"C", 0.25}}, json{{"type", "lanczos"}, {"lobes", 2}}}) {
    const json doc = {{"camera", {{"origin", {0, 0, 0}}, {"target", {0, 0, -1}}, {"up", {0, 1, 0}}, {"width", 8}, {"height", 8}}},
                      {"render", {{"filter", spec}, {"splat", true}}},
                      {"materials", {{"m", {{"type", "diffuse"}}}}},
                      {"shapes", {{{"name", "s"}, {"type", "sphere"}, {"center", {0, 0, -3}}, {"radius", 1}, {"material", "m"}}}}};
    std::vector<std::string> warnings;
    const std::string path = dir + "/w.xml";
    std::ofstream(path) << mitsuba::write_xml(doc, warnings);
    const PixelFilter f = load_scene(path).render.filter;
    INFO(spec.dump());
    CHECK(f.name() == spec["type"].get<std::string>());
    if (spec.contains("B")) CHECK((f.b == 0.5 && f.c == 0.25));
    if (spec.contains("lobes")) CHECK(f.radius == 2.0);
  }
  std::filesystem::remove_all(dir);
}
