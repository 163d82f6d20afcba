#include "renderer/emitters/sunsky.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include "renderer/core/frame.h"
#include "renderer/core/vec.h"
#include "renderer/emitters/envmap.h"
#include "renderer/emitters/sunsky_tables.h"
#include "renderer/core/spectrum_rgb.h"

namespace dray {

namespace {

constexpr double kPiD = 3.14159265358979323846;
constexpr double kSpecToRgbSun = 467.069280386;  // Mitsuba's SPEC_TO_RGB_SUN_CONV
constexpr double kEarthRadius = 6371.01, kAstronomicalUnit = 149597890;  // km

glm::vec3 spherical(double theta, double phi) {
  return glm::vec3(float(std::sin(theta) * std::cos(phi)), float(std::sin(theta) * std::sin(phi)), float(std::cos(theta)));
}

// The angle between unit vectors, accurate near 0 and π (Mitsuba's unit_angle).
float unit_angle(const glm::vec3& a, const glm::vec3& b) {
  const float d = glm::dot(a, b);
  return d < 0.f ? kPi - 2.f * std::asin(std::min(1.f, 0.5f * glm::length(a + b)))
                 : 2.f * std::asin(std::min(1.f, 0.5f * glm::length(a - b)));
}

float luminance(const glm::vec3& c) { return 0.212671f * c.x + 0.715160f * c.y + 0.072169f * c.z; }

// Linear interpolation weights between the nodes i0 and i1 = min(i0 + 1, n - 1) at index x.
struct Lerp {
  int i0, i1;
  double w;
};
Lerp lerp_at(double x, int n) {
  x = std::clamp(x, 0.0, double(n - 1));
  const int i0 = std::min(int(std::floor(x)), n - 1);
  return {i0, std::min(i0 + 1, n - 1), x - i0};
}

}  // namespace

glm::dvec2 sun_coordinates(const SunTime& t) {
  // Days since JD 2451545.0 (noon UT, 1 January 2000), from the date's Julian day number.
  const double ut_hours = t.hour - t.timezone + (t.minute + t.second / 60.0) / 60.0;
  const long a = (t.month - 14) / 12;  // C's truncating division, as the algorithm's
  const long jdn = (1461 * (t.year + 4800 + a)) / 4 + (367 * (t.month - 2 - 12 * a)) / 12 -
                   (3 * ((t.year + 4900 + a) / 100)) / 4 + t.day - 32075;
  const double n = double(jdn) - 0.5 + ut_hours / 24.0 - 2451545.0;
  // Ecliptic longitude and obliquity.
  const double omega = 2.1429 - 0.0010394594 * n, mean_longitude = 4.8950630 + 0.017202791698 * n;
  const double anomaly = 6.2400600 + 0.0172019699 * n;
  const double lambda = mean_longitude + 0.03341607 * std::sin(anomaly) + 0.00034894 * std::sin(2 * anomaly) - 0.0001134 -
                        0.0000203 * std::sin(omega);
  const double epsilon = 0.4090928 - 6.2140e-9 * n + 0.0000396 * std::cos(omega);
  // Right ascension and declination.
  double ra = std::atan2(std::cos(epsilon) * std::sin(lambda), std::cos(lambda));
  if (ra < 0) ra += 2 * kPiD;
  const double declination = std::asin(std::sin(epsilon) * std::sin(lambda));
  // Local coordinates: zenith angle and azimuth (from north, toward east), with parallax.
  const double gmst = 6.6974243242 + 0.0657098283 * n + ut_hours;
  const double lmst = (gmst * 15 + t.longitude) * kPiD / 180;
  const double lat = t.latitude * kPiD / 180, hour_angle = lmst - ra;
  double zenith = std::acos(std::cos(lat) * std::cos(hour_angle) * std::cos(declination) + std::sin(declination) * std::sin(lat));
  double azimuth = std::atan2(-std::sin(hour_angle), std::tan(declination) * std::cos(lat) - std::sin(lat) * std::cos(hour_angle));
  if (azimuth < 0) azimuth += 2 * kPiD;
  zenith += kEarthRadius / kAstronomicalUnit * std::sin(zenith);
  return {zenith, azimuth - kPiD};
}

SunSky::SunSky(const SunSkySettings& s) : settings_(s), to_world_(s.to_world), to_local_(glm::transpose(s.to_world)) {
  if (s.sun_direction) {
    sun_ = glm::normalize(to_local_ * *s.sun_direction);
  } else {
    const glm::dvec2 angles = sun_coordinates(s.time);
    sun_ = spherical(angles.x, angles.y);
  }
  cos_alpha_ = float(std::cos(s.sun_aperture * 0.5 * kPiD / 180));
  if (!below_horizon()) {
    const double elevation = 0.5 * kPiD - std::acos(std::clamp(double(sun_.z), -1.0, 1.0));
    build_sky(elevation);
    build_default_sun(elevation);
    if (s.complex_sun) build_complex_sun(s.turbidity - 1);
  }
  build_sampling();
}

glm::vec3 SunSky::sky_radiance(const glm::vec3& w) const {
  if (below_horizon() || w.z < 0.f) return glm::vec3(0.f);
  const float cos_theta = w.z, gamma = unit_angle(sun_, w), cos_gamma = std::cos(gamma);
  glm::vec3 out;
  for (int c = 0; c < 3; ++c) {
    const float* p = params_[c];
    const float c1 = 1.f + p[0] * std::exp(p[1] / (cos_theta + 0.01f));
    const float chi = (1.f + cos_gamma * cos_gamma) / std::pow(1.f + p[8] * p[8] - 2.f * p[8] * cos_gamma, 1.5f);
    const float c2 = p[2] + p[3] * std::exp(p[4] * gamma) + p[5] * cos_gamma * cos_gamma + p[6] * chi + p[7] * std::sqrt(cos_theta);
    out[c] = c1 * c2 * scale_[c];
  }
  return out;
}

// The sky's parameters and radiance per channel: turbidity and albedo linearly, the sun's elevation
// by the quintic Bézier in (2η/π)^(1/3) over the six control points.
void SunSky::build_sky(double elevation) {
  const Lerp turbidity = lerp_at(settings_.turbidity - 1, 10);
  const double x = std::min(std::cbrt(2 * elevation / kPiD), 1.0 - 1e-7);
  const double binomial[6] = {1, 5, 10, 10, 5, 1};
  double bezier[6];
  for (int cp = 0; cp < 6; ++cp) bezier[cp] = binomial[cp] * std::pow(x, cp) * std::pow(1 - x, 5 - cp);
  for (int c = 0; c < 3; ++c) {
    const double w_albedo[2] = {1.0 - settings_.albedo[c], settings_.albedo[c]};
    double params[9] = {}, scale = 0;
    for (int alb = 0; alb < 2; ++alb)
      for (int k = 0; k < 2; ++k) {
        const double w = w_albedo[alb] * (k == 0 ? 1 - turbidity.w : turbidity.w);
        if (w == 0) continue;
        const size_t base = size_t((c * 2 + alb) * 10 + (k == 0 ? turbidity.i0 : turbidity.i1));
        for (int cp = 0; cp < 6; ++cp) {
          for (int p = 0; p < 9; ++p) params[p] += w * bezier[cp] * sunsky::kSkyParams[base * 54 + size_t(cp) * 9 + size_t(p)];
          scale += w * bezier[cp] * sunsky::kSkyRadiance[base * 6 + size_t(cp)];
        }
      }
    for (int p = 0; p < 9; ++p) params_[c][p] = float(params[p]);
    scale_[c] = float(scale * settings_.sky_scale * kCieYNormalization);
  }
}

// Mitsuba's default sun: the solar disc's irradiance at this elevation (nodes every 3° from 2°) and
// turbidity, as RGB by the mean of linear sRGB colour matching times it over the 11 wavelengths,
// spread evenly over the disc.
void SunSky::build_default_sun(double elevation) {
  const Lerp turbidity = lerp_at(settings_.turbidity - 1, 10), e = lerp_at((elevation * 180 / kPiD - 2) / 3, 30);
  glm::dvec3 rgb(0.0);
  for (int i = 0; i < 11; ++i) {
    double irradiance = 0;
    for (int k = 0; k < 4; ++k) {
      const int t = k & 1 ? turbidity.i1 : turbidity.i0, el = k & 2 ? e.i1 : e.i0;
      const double w = (k & 1 ? turbidity.w : 1 - turbidity.w) * (k & 2 ? e.w : 1 - e.w);
      irradiance += w * sunsky::kSunIrradiance[(size_t(t) * 30 + size_t(el)) * 11 + size_t(i)];
    }
    rgb += xyz_to_srgb(cie1931_xyz(320.0 + 40.0 * i)) * irradiance / 11.0;
  }
  const double solid_angle = 2 * kPiD * (1 - double(cos_alpha_));
  sun_radiance_ = glm::vec3(rgb * (settings_.sun_scale * kSpecToRgbSun * kCieYNormalization / solid_angle));
}

// Hosek & Wilkie's solar radiance in RGB for the interpolated turbidity: per wavelength a cubic in
// the elevation within each of 45 segments (their breaks at (π/2)(i/45)³), times the limb
// darkening polynomial in cos ψ; weighed by linear sRGB colour matching / 11 (Mitsuba's
// generator). Mitsuba's units: × 467.069 / 106.75 × the reference disc's solid angle over this one's.
void SunSky::build_complex_sun(double turbidity_index) {
  const Lerp t = lerp_at(turbidity_index, 10);
  sun_coefficients_.assign(45 * 3 * 24, 0.f);
  for (int w = 0; w < 10; ++w) {
    const glm::dvec3 rgb = xyz_to_srgb(cie1931_xyz(360.0 + 40.0 * w)) / 11.0;
    const double* ld = &sunsky::kLimbDarkening[size_t(w) * 6];
    for (int seg = 0; seg < 45; ++seg)
      for (int k = 0; k < 4; ++k) {
        auto coefficient = [&](int turbidity) {
          return sunsky::kSolarRadiance[((size_t(w) * 10 + size_t(turbidity)) * 45 + size_t(seg)) * 4 + size_t(3 - k)];
        };
        const double solar = coefficient(t.i0) * (1 - t.w) + coefficient(t.i1) * t.w;
        for (int c = 0; c < 3; ++c)
          for (int j = 0; j < 6; ++j) sun_coefficients_[(size_t(seg) * 3 + size_t(c)) * 24 + size_t(k) * 6 + size_t(j)] += float(rgb[c] * solar * ld[j]);
      }
  }
  // Both cones' 1 - cos in float, as the disc's own test: at the default aperture the ratio is 1
  // (in double, the reference's against this float cosine was 0.2% off).
  const double reference = 1 - double(float(std::cos(0.5 * 0.5358 * kPiD / 180)));
  sun_factor_ = float(settings_.sun_scale * kSpecToRgbSun * kCieYNormalization * reference / (1 - double(cos_alpha_)));
}

glm::vec3 SunSky::complex_sun(const glm::vec3& w) const {
  const double elevation = 0.5 * kPiD - std::acos(std::clamp(double(w.z), -1.0, 1.0));
  const int seg = std::min(int(std::cbrt(2 * elevation / kPiD) * 45), 44);
  const double x = elevation - 0.5 * kPiD * std::pow(seg / 45.0, 3);
  // sin α from the angle (from the float cos α, 1 - cos² α loses 0.3% to cancellation).
  const double sin_alpha = std::sin(0.5 * settings_.sun_aperture * kPiD / 180), sin_gamma = std::sin(unit_angle(sun_, w));
  const double cos_psi = std::sqrt(std::max(0.0, 1 - sin_gamma * sin_gamma / (sin_alpha * sin_alpha)));
  glm::vec3 out(0.f);
  for (int c = 0; c < 3; ++c) {
    const float* a = &sun_coefficients_[(size_t(seg) * 3 + size_t(c)) * 24];
    double sum = 0, xk = 1;
    for (int k = 0; k < 4; ++k, xk *= x) {
      double cj = 1;
      for (int j = 0; j < 6; ++j, cj *= cos_psi) sum += xk * cj * a[k * 6 + j];
    }
    out[c] = float(sum) * sun_factor_;
  }
  return out;
}

glm::vec3 SunSky::radiance(const glm::vec3& d) const {
  const glm::vec3 w = to_local_ * d;
  if (below_horizon() || w.z < 0.f) return glm::vec3(0.f);
  glm::vec3 out = sky_radiance(w);
  if (glm::dot(sun_, w) >= cos_alpha_) out += settings_.complex_sun ? complex_sun(w) : sun_radiance_;
  return out;
}

void SunSky::build_sampling() {
  const double d_theta = 0.5 * kPiD / kRows, d_phi = 2 * kPiD / kCols;
  std::vector<double> rows(kRows, 0.0);
  col_cdf_.assign(size_t(kRows) * (kCols + 1), 0.f);
  double sky_power = 0;
  for (int i = 0; i < kRows; ++i) {
    const double theta = (i + 0.5) * d_theta, sin_t = std::sin(theta);
    std::vector<double> acc(kCols + 1, 0.0);
    for (int j = 0; j < kCols; ++j)
      acc[size_t(j) + 1] = acc[size_t(j)] + std::max(0.0, double(luminance(sky_radiance(spherical(theta, (j + 0.5) * d_phi))))) * sin_t;
    const double sum = acc[kCols];
    for (int j = 0; j <= kCols; ++j) col_cdf_[size_t(i) * (kCols + 1) + size_t(j)] = sum > 0 ? float(acc[size_t(j)] / sum) : float(j) / kCols;
    rows[size_t(i)] = sum;
    sky_power += sum * d_theta * d_phi;
  }
  row_cdf_.assign(kRows + 1, 0.f);
  double total = 0;
  for (double r : rows) total += r;
  double run = 0;
  for (int i = 0; i < kRows; ++i) {
    run += rows[size_t(i)];
    row_cdf_[size_t(i) + 1] = total > 0 ? float(run / total) : float(i + 1) / kRows;
  }
  const double sun_power = below_horizon() ? 0.0 : luminance(sun_radiance_) * 2 * kPiD * (1 - double(cos_alpha_));
  sky_weight_ = sky_power + sun_power > 0 ? float(sky_power / (sky_power + sun_power)) : 1.f;
}

float SunSky::sky_pdf(const glm::vec3& w) const {
  if (!(w.z >= 0.f)) return 0.f;
  const float theta = std::acos(std::min(w.z, 1.f));
  float phi = std::atan2(w.y, w.x);
  if (phi < 0.f) phi += 2.f * kPi;
  const int i = std::clamp(int(theta / (0.5f * kPi) * kRows), 0, kRows - 1), j = std::clamp(int(phi / (2.f * kPi) * kCols), 0, kCols - 1);
  const float* cdf = &col_cdf_[size_t(i) * (kCols + 1)];
  const float p = (row_cdf_[size_t(i) + 1] - row_cdf_[size_t(i)]) * (cdf[j + 1] - cdf[j]);
  const float sin_t = std::sin(theta);
  return sin_t > 0.f ? p * float(kRows * kCols) / (kPi * kPi * sin_t) : 0.f;  // cell: (π/2R)(2π/C) sin θ
}

float SunSky::pdf(const glm::vec3& d) const {
  const glm::vec3 w = to_local_ * d;
  const float sun = glm::dot(sun_, w) >= cos_alpha_ ? 1.f / (2.f * kPi * (1.f - cos_alpha_)) : 0.f;
  return sky_weight_ * sky_pdf(w) + (1.f - sky_weight_) * sun;
}

glm::vec3 SunSky::sample(float u1, float u2, float& pdf_out) const {
  glm::vec3 w;
  if (u1 < sky_weight_) {
    float ru, rv;
    const int i = detail::pick_cell(row_cdf_.data(), kRows, u1 / sky_weight_, rv);
    const int j = detail::pick_cell(&col_cdf_[size_t(i) * (kCols + 1)], kCols, u2, ru);
    w = spherical((i + rv) * 0.5 * kPiD / kRows, (j + ru) * 2 * kPiD / kCols);
  } else {  // uniform in the sun's cone
    const float u = (u1 - sky_weight_) / (1.f - sky_weight_);
    const float cos_t = 1.f - u * (1.f - cos_alpha_), sin_t = std::sqrt(std::max(0.f, 1.f - cos_t * cos_t));
    const Frame<float> f{Vec3<float>(sun_)};
    w = to_glm(f.to_world(Vec3<float>(sin_t * std::cos(2.f * kPi * u2), sin_t * std::sin(2.f * kPi * u2), cos_t)));
  }
  const glm::vec3 d = to_world_ * w;
  pdf_out = pdf(d);
  return d;
}

SunSkyEmitter SunSkyEmitter::read(EmitterProps& p) {
  static const char* kTime[] = {"latitude", "longitude", "timezone", "year", "month", "day", "hour", "minute", "second"};
  p.keys({"turbidity", "albedo", "sun_direction", "latitude", "longitude", "timezone", "year", "month", "day", "hour", "minute",
          "second", "sun_scale", "sky_scale", "sun_aperture", "complex_sun", "matrix"});
  SunSkySettings s;
  auto number = [&](const char* key, double fallback, double lo, double hi, const char* range) {
    if (!p.has(key)) return fallback;
    const double v = p.number(key);
    if (!(v >= lo && v <= hi)) p.fail(key, std::string("must be in ") + range + ", got " + fmt_number(float(v)));
    return v;
  };
  s.turbidity = number("turbidity", 3, 1, 10, "[1, 10]");
  s.albedo = p.colour_or("albedo", glm::vec3(0.3f));
  for (int c = 0; c < 3; ++c)
    if (!(s.albedo[c] >= 0.f && s.albedo[c] <= 1.f)) p.fail("albedo", "must be in [0, 1]");
  s.sun_scale = number("sun_scale", 1, 0, INFINITY, "[0, inf)");
  s.sky_scale = number("sky_scale", 1, 0, INFINITY, "[0, inf)");
  s.sun_aperture = number("sun_aperture", 0.5358, 1e-9, 180 - 1e-9, "(0, 180) degrees");
  if (p.has("complex_sun")) s.complex_sun = p.boolean("complex_sun");
  if (p.has("matrix")) s.to_world = p.rotation("matrix", "a sunsky");
  if (p.has("sun_direction")) {
    for (const char* key : kTime)
      if (p.has(key)) p.fail(key, "give either sun_direction or a place and time, not both (as Mitsuba)");
    const glm::vec3 d = p.vec3_value("sun_direction");
    if (!(glm::length(d) > 0.f)) p.fail("sun_direction", "must not be zero");
    s.sun_direction = glm::normalize(d);
  } else {
    SunTime& t = s.time;
    t.latitude = number("latitude", t.latitude, -90, 90, "[-90, 90] degrees");
    t.longitude = number("longitude", t.longitude, -360, 360, "[-360, 360] degrees");
    t.timezone = number("timezone", t.timezone, -24, 24, "[-24, 24] hours");
    if (p.has("year")) t.year = int(p.integer("year", -4000, 10000));
    if (p.has("month")) t.month = int(p.integer("month", 1, 12));
    if (p.has("day")) t.day = int(p.integer("day", 1, 31));
    t.hour = number("hour", t.hour, 0, 24, "[0, 24]");
    t.minute = number("minute", t.minute, 0, 60, "[0, 60]");
    t.second = number("second", t.second, 0, 60, "[0, 60]");
  }
  SunSkyEmitter e;
  e.model = std::make_shared<const SunSky>(s);
  if (e.model->below_horizon())
    p.warn("light " + p.name() + " (sunsky): the sun is below the horizon: the sun and the sky are black, as in Mitsuba");
  return e;
}

}  // namespace dray
