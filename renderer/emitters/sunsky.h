#pragma once
// Mitsuba 3's `sunsky` (src/emitters/sunsky.cpp, include/mitsuba/render/sunsky.h) in its RGB form:
// the Hosek-Wilkie sky (Hosek & Wilkie, "An Analytic Model for Full Spectral Sky-Dome Radiance",
// SIGGRAPH 2012: nine parameters and a radiance scale per channel, interpolated over turbidity,
// ground albedo and, by a quintic Bézier in the cube root of the sun's elevation, the sun's
// elevation) and the sun, a disc of half-angle α of constant radiance whose irradiance is that of
// Hosek & Wilkie's solar disc ("Adding a Solar Radiance Function to the Hosek Skylight Model",
// IEEE CG&A 2013) at the sun's elevation (or, with complex_sun, that radiance itself, limb darkened),
// both in Mitsuba's units (× 1 / 106.75, its CIE Y
// normalization; the sun also × Mitsuba's 467.069280386). The frame is Z-up (world = to_world ·
// local). The sun is placed by a direction or, for a place and a time, by Blanco-Muriel et al.'s
// PSA algorithm ("Computing the Solar Vector", Solar Energy 70(5), 2001), as Mitsuba does. Below
// the horizon the sun and the sky are black. Constant (no parameters). Sampled as a mixture of the
// sky by a table of its luminance and the sun's cone, weighed by their powers.
#include <memory>
#include <optional>
#include <vector>

#include <glm/mat3x3.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "renderer/emitters/emitter_props.h"
#include "renderer/emitters/sky.h"

namespace dray {

// A place and a time (Mitsuba's LocationRecord and DateTimeRecord, with its defaults: Tokyo,
// 2010-07-10 15:00 local time).
struct SunTime {
  double latitude = 35.6894, longitude = 139.6917, timezone = 9;  // degrees, degrees east, hours
  int year = 2010, month = 7, day = 10;
  double hour = 15, minute = 0, second = 0;
};

struct SunSkySettings {
  double turbidity = 3;
  glm::vec3 albedo{0.3f};                    // the ground's, per channel, in [0, 1]
  std::optional<glm::vec3> sun_direction;    // world, toward the sun; else from `time`
  SunTime time;
  double sun_scale = 1, sky_scale = 1;
  double sun_aperture = 0.5358;  // degrees, the disc's full angle
  // Mitsuba's complex_sun: Hosek & Wilkie's solar radiance, varying with the view's elevation and
  // darkening toward the limb, in RGB (the mean over 360, 400, ..., 720 nm of linear sRGB colour
  // matching times it, and 0 at 320 nm as Mitsuba's), stretched over the disc.
  bool complex_sun = false;
  glm::mat3 to_world{1.f};       // a rotation
};

// The sun's zenith angle θ and azimuth φ (radians) in the local frame for a place and time, as
// Mitsuba's sun_coordinates: φ = PSA azimuth (from north, clockwise) − π.
glm::dvec2 sun_coordinates(const SunTime& t);

class SunSky {
 public:
  explicit SunSky(const SunSkySettings& s);

  const SunSkySettings& settings() const { return settings_; }
  glm::vec3 sun_world() const { return to_world_ * sun_; }  // toward the sun
  bool below_horizon() const { return sun_.z < 0.f; }
  glm::vec3 sun_radiance() const { return sun_radiance_; }  // inside the disc (complex_sun: its mean, nearly)
  float cos_aperture() const { return cos_alpha_; }          // cos α, α the disc's half-angle
  float sky_weight() const { return sky_weight_; }           // the probability of drawing the sky

  // The radiance arriving from world direction d (unit, toward the sky): sky and sun.
  glm::vec3 radiance(const glm::vec3& d) const;
  glm::vec3 sky_radiance(const glm::vec3& local) const;  // the sky alone, local direction
  // The solid-angle density with which sample() draws d, and a draw.
  float pdf(const glm::vec3& d) const;
  glm::vec3 sample(float u1, float u2, float& pdf_out) const;

 private:
  float sky_pdf(const glm::vec3& local) const;
  glm::vec3 complex_sun(const glm::vec3& local) const;
  void build_sky(double elevation);
  void build_default_sun(double elevation);
  void build_complex_sun(double turbidity_index);
  void build_sampling();

  SunSkySettings settings_;
  glm::mat3 to_world_, to_local_;
  glm::vec3 sun_;                // local, unit
  float params_[3][9] = {}, scale_[3] = {};  // the interpolated sky, per channel
  glm::vec3 sun_radiance_{0.f};
  // complex_sun: per elevation segment and channel, the coefficients of x^k cos ψ^j (k < 4, j < 6),
  // and the factor that takes them to Mitsuba's units over this disc.
  std::vector<float> sun_coefficients_;
  float sun_factor_ = 0.f;
  float cos_alpha_ = 1.f;
  // Sampling: the upper hemisphere as rows in θ and columns in φ, each cell's luminance × sin θ.
  static constexpr int kRows = 64, kCols = 128;
  std::vector<float> row_cdf_, col_cdf_;
  float sky_weight_ = 1.f;
};

// The plugin: turbidity, albedo, the sun by `sun_direction` or by a place and time, the scales and
// the sun's aperture, a rotation `matrix` (Mitsuba's to_world). Constants: no parameters.
struct SunSkyEmitter : SkyEmitter<SunSkyEmitter> {
  static constexpr std::string_view kPlugins[] = {"sunsky"};
  static SunSkyEmitter read(EmitterProps& p);  // sunsky.cpp

  std::shared_ptr<const SunSky> model;

  EmitterParams params() const { return {}; }
  template <class T>
  Vec3<T> radiance(const ParamView<T>&, const glm::vec3& d) const {
    return Vec3<T>(model->radiance(d));
  }
  float pdf(const glm::vec3& d) const { return model->pdf(d); }
  glm::vec3 sample_direction(float u1, float u2, float& pdf) const { return model->sample(u1, u2, pdf); }
};

}  // namespace dray
