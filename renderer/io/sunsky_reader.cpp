// The `sunsky` light of /lights (Mitsuba 3's, renderer/emitters/sunsky.h): turbidity, albedo, the
// sun by `sun_direction` or by a place and time, the scales and the sun's aperture, a rotation
// `matrix` (Mitsuba's to_world). Constants: no parameters.
#include <cmath>

#include <glm/matrix.hpp>

#include "renderer/io/light_reader.h"

namespace dray {

using nlohmann::json;

glm::mat3 LightReader::rotation(const json& m, const std::string& p, const std::string& what) const {
  if (!m.is_array() || m.size() != 16) rd_.fail(p, "must be an array of 16 numbers (4x4, row-major)");
  glm::mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) r[k][i] = float(rd_.number(m[size_t(4 * i + k)], p + "/" + std::to_string(4 * i + k)));
  const glm::mat3 should_be_one = glm::transpose(r) * r;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k)
      if (std::fabs(should_be_one[i][k] - (i == k ? 1.f : 0.f)) > 1e-5f || !(glm::determinant(r) > 0.f))
        rd_.fail(p, what + "'s matrix must be a rotation (orthonormal, no mirror, no scale)");
  return r;
}

void LightReader::read_sunsky(const json& l, const std::string& p, Light& light) {
  static const char* kTime[] = {"latitude", "longitude", "timezone", "year", "month", "day", "hour", "minute", "second"};
  rd_.object(l, p, {"name", "type", "turbidity", "albedo", "sun_direction", "latitude", "longitude", "timezone", "year", "month", "day",
                    "hour", "minute", "second", "sun_scale", "sky_scale", "sun_aperture", "complex_sun", "matrix"});
  if (scene_.environment >= 0) rd_.fail(p, "only one environment light is allowed");
  light.kind = Light::Kind::environment;
  SunSkySettings s;
  auto number = [&](const char* key, double fallback, double lo, double hi, const char* range) {
    if (!l.contains(key)) return fallback;
    const double v = rd_.number(l[key], p + "/" + key);
    if (!(v >= lo && v <= hi)) rd_.fail(p + "/" + key, std::string("must be in ") + range + ", got " + fmt_number(float(v)));
    return v;
  };
  s.turbidity = number("turbidity", 3, 1, 10, "[1, 10]");
  s.albedo = rd_.colour_or(l, "albedo", p, glm::vec3(0.3f));
  for (int c = 0; c < 3; ++c)
    if (!(s.albedo[c] >= 0.f && s.albedo[c] <= 1.f)) rd_.fail(p + "/albedo", "must be in [0, 1]");
  s.sun_scale = number("sun_scale", 1, 0, INFINITY, "[0, inf)");
  s.sky_scale = number("sky_scale", 1, 0, INFINITY, "[0, inf)");
  s.sun_aperture = number("sun_aperture", 0.5358, 1e-9, 180 - 1e-9, "(0, 180) degrees");
  if (l.contains("complex_sun")) s.complex_sun = rd_.boolean(l["complex_sun"], p + "/complex_sun");
  if (l.contains("matrix")) s.to_world = rotation(l["matrix"], p + "/matrix", "a sunsky");
  if (l.contains("sun_direction")) {
    for (const char* key : kTime)
      if (l.contains(key)) rd_.fail(p + "/" + key, "give either sun_direction or a place and time, not both (as Mitsuba)");
    const glm::vec3 d = rd_.vec3(l["sun_direction"], p + "/sun_direction");
    if (!(glm::length(d) > 0.f)) rd_.fail(p + "/sun_direction", "must not be zero");
    s.sun_direction = glm::normalize(d);
  } else {
    SunTime& t = s.time;
    t.latitude = number("latitude", t.latitude, -90, 90, "[-90, 90] degrees");
    t.longitude = number("longitude", t.longitude, -360, 360, "[-360, 360] degrees");
    t.timezone = number("timezone", t.timezone, -24, 24, "[-24, 24] hours");
    if (l.contains("year")) t.year = int(rd_.integer(l["year"], p + "/year", -4000, 10000));
    if (l.contains("month")) t.month = int(rd_.integer(l["month"], p + "/month", 1, 12));
    if (l.contains("day")) t.day = int(rd_.integer(l["day"], p + "/day", 1, 31));
    t.hour = number("hour", t.hour, 0, 24, "[0, 24]");
    t.minute = number("minute", t.minute, 0, 60, "[0, 60]");
    t.second = number("second", t.second, 0, 60, "[0, 60]");
  }
  light.sunsky = std::make_shared<const SunSky>(s);
  if (light.sunsky->below_horizon())
    scene_.warnings.push_back("light " + light.name + " (sunsky): the sun is below the horizon: the sun and the sky are black, as in Mitsuba");
  scene_.environment = int(scene_.lights.size());
}

}  // namespace dray
