#pragma once
// Pixel (reconstruction) filters, Mitsuba 3's: `box` (radius 0.5), `tent` (radius 1:
// f(x) = max(0, 1 - |x| / r)) and `gaussian` (stddev σ = 0.5, radius 4σ:
// f(x) = max(0, exp(-x²/2σ²) - exp(-r²/2σ²))), each separable: f(x) f(y); and those with negative
// lobes, drawn only by the splatting film (Mitsuba's hdrfilm, whose pixels divide by their
// weights, negative ones included): `mitchell` (Mitchell-Netravali's cubic, B = C = 1/3, radius
// 2), `catmullrom` (B = 0, C = 1/2) and `lanczos` (sin(πx) sin(πx/a) / (π²x²/a), a = `lobes`, 3).
//
// dray draws them by filter importance sampling (pbrt-v4, Sec. 8.8): a pixel's samples are placed
// at its centre plus an offset drawn with density f / ∫f, so that the plain mean of the pixel's
// samples estimates ∫ f(x - c) L(x) dx / ∫ f, a pixel a function of its own samples only; or, with
// render.splat, by Mitsuba's splatting film (renderer/integrators/splat.h). The boundary term, whose samples are points on edges
// rather than pixel samples, is spread over the pixels whose footprint holds the point, each with
// weight f(x - c) / ∫ f per axis (for_each_footprint_pixel).
//
// Mitsuba's hdrfilm draws samples only inside the film (its crop) unless `sample_border`, and
// divides each pixel by the filter weight its samples bring: a pixel near the film's edge sees its
// filter cut there and renormalized, ∫_film f(x - c) L(x) dx / ∫_film f. dray does the same where it
// is given the film (`film`): a pixel's offsets drawn from f restricted to the film, a boundary
// point outside the film dropped, and the weights divided by the pixel's mass within the film.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>
#include <type_traits>

#include <glm/vec2.hpp>

#include "renderer/samplers/sampler.h"
#include "renderer/core/tile.h"

namespace dray {

struct PixelFilter {
  enum class Kind { box, tent, gaussian, mitchell, catmullrom, lanczos };
  Kind kind = Kind::box;
  double radius = 0.5;  // the support is [-radius, radius] pixels about the pixel centre
  double stddev = 0.5;  // gaussian only
  double b = 1.0 / 3.0, c = 1.0 / 3.0;  // mitchell's B and C (catmullrom: 0 and 1/2)
  // Gaussian: the inverse CDF at u = k / kTable (exact to 1e-15) and its slope dx/du = ∫f / f,
  // interpolated by sample().
  static constexpr int kTable = 2048;
  std::array<double, kTable + 1> inverse{}, slope{};
  double total = 1.0;  // ∫ f, once (cdf(radius): the Gaussian's costs two erf and an exp)
  double tail = 0.0;   // the Gaussian's exp(-r²/2σ²), subtracted from its profile
  // A filter with negative lobes: the cdfs of f and of |f| at -r + 2r k / kTable (Simpson's rule),
  // linear between; its offsets are drawn from |f|'s (piecewise constant between the knots) and
  // weighed by offset_weight.
  std::array<double, kTable + 1> cumulative{}, abs_cumulative{};

  static PixelFilter box() { return {}; }
  static PixelFilter tent(double radius = 1.0) {
    PixelFilter f{Kind::tent, radius, 0.5, {}, {}};
    f.total = f.cdf(radius);
    return f;
  }
  static PixelFilter gaussian(double stddev = 0.5);
  static PixelFilter mitchell(double b = 1.0 / 3.0, double c = 1.0 / 3.0) { return with_lobes(Kind::mitchell, 2.0, b, c); }
  static PixelFilter catmull_rom() { return with_lobes(Kind::catmullrom, 2.0, 0.0, 0.5); }
  static PixelFilter lanczos(int lobes = 3) { return with_lobes(Kind::lanczos, double(lobes), 0.0, 0.0); }
  // Whether f < 0 somewhere: only the splatting film draws it (render.splat).
  bool negative_lobes() const { return kind == Kind::mitchell || kind == Kind::catmullrom || kind == Kind::lanczos; }

  std::string name() const;

  // f(x), Mitsuba's unnormalised 1D profile, 0 outside the support.
  double eval(double x) const;
  // f'(x) (0 for the box, and outside the support): how a film point's weight in a pixel moves
  // as the point does (the particle tracer's derivatives).
  double eval_slope(double x) const;
  // ∫ f over [-radius, x] (x clamped to the support), and its total ∫ f.
  double cdf(double x) const;
  double integral() const { return total; }
  // ∫ f over [a, b]: the filter's mass between two offsets.
  double mass(double a, double b) const { return cdf(b) - cdf(a); }
  // The offset x in [-radius, radius] with cdf(x) = u · integral() (density f / ∫ f): exact for
  // box and tent; for the Gaussian the tabulated inverse, cubic (Hermite, with its slopes)
  // between entries where f changes by less than 5% over an interval, and Newton's method
  // elsewhere (the tails, where the inverse is too steep to interpolate): within 2e-8 pixels,
  // far below a float film coordinate's resolution (the test measures it).
  double sample(double u) const;
  // An offset within [a, b] (density f / mass(a, b)): sample(u) itself when [a, b] holds the
  // support.
  double sample_within(double u, double a, double b) const {
    if (negative_lobes()) return sample_abs(u, a, b);
    if (a <= -radius && b >= radius) return sample(u);
    const double ca = cdf(a), cb = cdf(b);
    return std::clamp(sample((ca + u * (cb - ca)) / integral()), std::max(a, -radius), std::min(b, radius));
  }

  // The weight of an offset drawn by sample_within(u, a, b): 1 for a filter without negative
  // lobes (drawn with density f / mass(a, b)); otherwise f(x) / (p(x) mass(a, b)), p the density
  // it was drawn with, so that the weighted mean estimates ∫ f L / ∫ f all the same.
  double offset_weight(double x, double a, double b) const;

  // Whole pixels beyond a window that its footprint reaches: edges that far out still count.
  int reach() const { return kind == Kind::box ? 0 : int(std::ceil(radius - 0.5)); }

 private:
  static PixelFilter with_lobes(Kind kind, double radius, double b, double c);
  double table_at(const std::array<double, kTable + 1>& table, double x) const;
  double sample_abs(double u, double a, double b) const;
};

// A pixel sample's film position relative to the pixel's corner, from the sampler's next two
// numbers: uniform in the pixel for the box filter (exactly as before filters existed), the
// pixel centre plus a filter-distributed offset otherwise; with `film`, the offset kept within
// it for pixel (px, py).
inline glm::vec2 film_jitter(const PixelFilter& f, Sampler& sampler, int px = 0, int py = 0, const Tile* film = nullptr) {
  const glm::vec2 uv = sampler.next_2d();
  const float u = uv.x, v = uv.y;
  if (f.kind == PixelFilter::Kind::box) return {u, v};
  if (!film) return {float(0.5 + f.sample(u)), float(0.5 + f.sample(v))};
  const double cx = px + 0.5, cy = py + 0.5;
  return {float(0.5 + f.sample_within(u, film->x0 - cx, film->x1 - cx)),
          float(0.5 + f.sample_within(v, film->y0 - cy, film->y1 - cy))};
}

// The weight of film_jitter's offset j for pixel (px, py) (PixelFilter::offset_weight on both
// axes): 1 but for a filter with negative lobes.
inline double film_jitter_weight(const PixelFilter& f, glm::vec2 j, int px = 0, int py = 0, const Tile* film = nullptr) {
  if (!f.negative_lobes()) return 1.0;
  const double cx = px + 0.5, cy = py + 0.5, r = f.radius;
  const double ax = film ? film->x0 - cx : -r, bx = film ? film->x1 - cx : r, ay = film ? film->y0 - cy : -r, by = film ? film->y1 - cy : r;
  return f.offset_weight(double(j.x) - 0.5, ax, bx) * f.offset_weight(double(j.y) - 0.5, ay, by);
}

namespace detail {

// for_each_footprint_pixel's body with the divisors given: column_mass(i), row_mass(j).
template <class ColumnMass, class RowMass, class Body>
void footprint_pixels(const PixelFilter& f, glm::vec2 x, const Tile& w, const Tile* film, ColumnMass&& column_mass,
                      RowMass&& row_mass, Body&& body) {
  constexpr bool kSlopes = std::is_invocable_v<Body, int, int, double, double, double>;
  if (film && !(x.x >= float(film->x0) && x.x <= float(film->x1) && x.y >= float(film->y0) && x.y <= float(film->y1))) return;
  if (f.kind == PixelFilter::Kind::box) {
    if (x.x >= float(w.x0) && x.x < float(w.x1) && x.y >= float(w.y0) && x.y < float(w.y1)) {
      if constexpr (kSlopes) body(int(x.x), int(x.y), 1.0, 0.0, 0.0);
      else body(int(x.x), int(x.y), 1.0);
    }
    return;
  }
  // Pixel i's centre i + 0.5 lies within radius of x.
  const int i0 = std::max(w.x0, int(std::floor(double(x.x) - 0.5 - f.radius))),
            i1 = std::min(w.x1 - 1, int(std::ceil(double(x.x) - 0.5 + f.radius)));
  const int j0 = std::max(w.y0, int(std::floor(double(x.y) - 0.5 - f.radius))),
            j1 = std::min(w.y1 - 1, int(std::ceil(double(x.y) - 0.5 + f.radius)));
  // The x weights once per column (an exp each for the Gaussian), not once per pixel.
  constexpr int kMaxSpan = 64;
  double wxs[kMaxSpan];
  const int span = std::min(i1 - i0 + 1, kMaxSpan);
  for (int k = 0; k < span; ++k) wxs[k] = f.eval(double(x.x) - (i0 + k + 0.5)) / column_mass(i0 + k);
  for (int j = j0; j <= j1; ++j) {
    const double my = row_mass(j);
    const double wy = f.eval(double(x.y) - (j + 0.5)) / my;
    if (wy == 0.0) continue;  // a negative lobe's weight counts
    for (int i = i0; i <= i1; ++i) {
      const double wx = i - i0 < span ? wxs[i - i0] : f.eval(double(x.x) - (i + 0.5)) / column_mass(i);
      if (wx == 0.0) continue;
      if constexpr (kSlopes)
        body(i, j, wx * wy, f.eval_slope(double(x.x) - (i + 0.5)) / column_mass(i) * wy, wx * f.eval_slope(double(x.y) - (j + 0.5)) / my);
      else
        body(i, j, wx * wy);
    }
  }
}

}  // namespace detail

// The pixels of `window` whose filter footprint holds film point x, each with its weight
// f(x - c) f(y - c') / (∫f)²: body(px, py, weight). The box filter gives the one pixel holding x,
// weight exactly 1. With `film`, a point outside it reaches no pixel, and each weight is divided
// by the pixel's mass within the film instead. A body taking two more doubles also receives the
// weight's derivatives by x and y (f' in place of f on that axis).
template <class Body>
void for_each_footprint_pixel(const PixelFilter& f, glm::vec2 x, const Tile& w, const Tile* film, Body&& body) {
  const double z = f.integral();
  auto mass = [&](int lo, int hi, int i) { return film ? f.mass(lo - (i + 0.5), hi - (i + 0.5)) : z; };
  detail::footprint_pixels(
      f, x, w, film, [&](int i) { return mass(film ? film->x0 : 0, film ? film->x1 : 0, i); },
      [&](int j) { return mass(film ? film->y0 : 0, film ? film->y1 : 0, j); }, body);
}

// The film a footprint is cut to (or none) and the filter's mass within it for every column and
// row of a window: the divisors of for_each_footprint_pixel, computed once for many film points
// (two erf each for the Gaussian: the particle tracer's splats spent a fifth of their time there).
struct FootprintMasses {
  std::optional<Tile> film;
  Tile window;
  std::vector<double> columns, rows;
  FootprintMasses(const PixelFilter& f, const std::optional<Tile>& film_, const Tile& window_) : film(film_), window(window_) {
    const double z = f.integral();
    for (int i = window.x0; i < window.x1; ++i) columns.push_back(film ? f.mass(film->x0 - (i + 0.5), film->x1 - (i + 0.5)) : z);
    for (int j = window.y0; j < window.y1; ++j) rows.push_back(film ? f.mass(film->y0 - (j + 0.5), film->y1 - (j + 0.5)) : z);
  }
};

// The same over masses.window, its divisors looked up.
template <class Body>
void for_each_footprint_pixel(const PixelFilter& f, glm::vec2 x, const FootprintMasses& masses, Body&& body) {
  const Tile& w = masses.window;
  detail::footprint_pixels(
      f, x, w, masses.film ? &*masses.film : nullptr, [&](int i) { return masses.columns[size_t(i - w.x0)]; },
      [&](int j) { return masses.rows[size_t(j - w.y0)]; }, body);
}

// The window widened by the filter's reach: where boundary samples may still touch its pixels.
inline Tile widened(const Tile& w, const PixelFilter& f) {
  const int r = f.reach();
  return {w.x0 - r, w.y0 - r, w.x1 + r, w.y1 + r};
}

}  // namespace dray
