// Mitsuba's sunsky (renderer/emitters/sunsky.h): the sky against Hosek & Wilkie's reference
// implementation (ArHosekSkyModel.c, version 1.4a) and against Mitsuba's own reference images
// (its test_sunsky.py test01); the sun's position by the PSA algorithm against NOAA's
// independent solar-position formulas; the sun's irradiance whatever its aperture; sampling by χ²
// against its pdf; a plane's radiance under the sky against quadrature of the model; XML in and
// out; refusals.
#include <catch2/catch.hpp>

#include <cmath>

#include <glm/geometric.hpp>

#include "../temp_dir.h"
#include "renderer/emitters/sunsky.h"
#include "renderer/emitters/sunsky_tables.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/mitsuba/xml_writer.h"
#include "renderer/io/scene_loader.h"
#include "renderer/core/spectrum_rgb.h"
#include "tests/chi2.h"
#include "tests/emitters/sunsky_references.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

constexpr double kDeg = M_PI / 180;

glm::vec3 spherical(double theta, double phi) {
  return glm::vec3(float(std::sin(theta) * std::cos(phi)), float(std::sin(theta) * std::sin(phi)), float(std::cos(theta)));
}

SunSky sky_only(double turbidity, double albedo, const glm::vec3& sun) {
  SunSkySettings s;
  s.turbidity = turbidity;
  s.albedo = glm::vec3(float(albedo));
  s.sun_direction = sun;
  s.sun_scale = 0;
  return SunSky(s);
}

// The Sun's position by NOAA's solar calculator (Meeus, "Astronomical Algorithms", ch. 25's low
// accuracy solar coordinates and the equation of time): zenith and azimuth (from north, clockwise)
// in degrees. An estimator independent of PSA's, good to about 0.01°; neither refracts.
glm::dvec2 noaa_sun(const SunTime& t) {
  const double ut = t.hour - t.timezone + t.minute / 60 + t.second / 3600;
  int y = t.year, m = t.month;
  if (m <= 2) {
    y -= 1;
    m += 12;
  }
  const int a = y / 100, b = 2 - a + a / 4;
  const double jd = std::floor(365.25 * (y + 4716)) + std::floor(30.6001 * (m + 1)) + t.day + b - 1524.5 + ut / 24;
  const double T = (jd - 2451545) / 36525;
  const double L0 = std::fmod(280.46646 + T * (36000.76983 + 0.0003032 * T), 360.0);
  const double M = 357.52911 + T * (35999.05029 - 0.0001537 * T);
  const double e = 0.016708634 - T * (0.000042037 + 0.0000001267 * T);
  const double C = std::sin(M * kDeg) * (1.914602 - T * (0.004817 + 0.000014 * T)) + std::sin(2 * M * kDeg) * (0.019993 - 0.000101 * T) +
                   std::sin(3 * M * kDeg) * 0.000289;
  const double omega = 125.04 - 1934.136 * T;
  const double lambda = L0 + C - 0.00569 - 0.00478 * std::sin(omega * kDeg);
  const double eps0 = 23 + (26 + (21.448 - T * (46.815 + T * (0.00059 - T * 0.001813))) / 60) / 60;
  const double eps = eps0 + 0.00256 * std::cos(omega * kDeg);
  const double decl = std::asin(std::sin(eps * kDeg) * std::sin(lambda * kDeg));
  const double yy = std::pow(std::tan(eps * kDeg / 2), 2);
  const double eqtime = 4 / kDeg *
                        (yy * std::sin(2 * L0 * kDeg) - 2 * e * std::sin(M * kDeg) + 4 * e * yy * std::sin(M * kDeg) * std::cos(2 * L0 * kDeg) -
                         0.5 * yy * yy * std::sin(4 * L0 * kDeg) - 1.25 * e * e * std::sin(2 * M * kDeg));
  const double ha = (ut * 60 + eqtime + 4 * t.longitude) / 4 - 180, lat = t.latitude * kDeg;
  const double zenith = std::acos(std::sin(lat) * std::sin(decl) + std::cos(lat) * std::cos(decl) * std::cos(ha * kDeg));
  const double c = std::clamp((std::sin(lat) * std::cos(zenith) - std::sin(decl)) / (std::cos(lat) * std::sin(zenith)), -1.0, 1.0);
  const double az = std::fmod(std::remainder(ha, 360.0) > 0 ? std::acos(c) / kDeg + 180 : 540 - std::acos(c) / kDeg, 360.0);
  return {zenith / kDeg, az};
}

json sky_scene(const json& light, int size = 16, int spp = 64) {
  return {{"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"up", {0, 1, 0}}, {"fov_y", 20}, {"width", size}, {"height", size}}},
          {"render", {{"spp", spp}, {"max_depth", 1}}},
          {"materials", {{"m", {{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}}}}},
          {"shapes", json::array({{{"name", "plane"}, {"type", "quad"}, {"corner", {-50, -50, 0}}, {"edge_u", {100, 0, 0}},
                                   {"edge_v", {0, 100, 0}}, {"material", "m"}}})},
          {"lights", json::array({light})}};
}

}  // namespace

TEST_CASE("the sky against Hosek & Wilkie's reference implementation", "[sunsky]") {
  // ArHosekSkyModel.c 1.4a, arhosek_rgb_skymodelstate_alloc_init + arhosek_tristim_skymodel_radiance,
  // at (turbidity, albedo, solar elevation°) and views (zenith°, azimuth° from the sun's): Hosek's
  // units, which Mitsuba's RGB sky divides by 106.75 (its CIE Y normalization).
  struct Case {
    double turbidity, albedo, elevation, zenith, azimuth;
    glm::dvec3 hosek;
  };
  const Case cases[] = {{2.0, 0.2, 10, 0, 0, {0.822197272, 1.71505725, 3.08315089}},
                        {2.0, 0.2, 10, 60, 30, {4.0341881, 5.87318559, 7.70933058}},
                        {2.0, 0.2, 10, 85, 3, {36.7028105, 31.5881689, 18.7202871}},
                        {2.0, 0.2, 10, 45, 150, {1.72960847, 3.07873209, 4.85548665}},
                        {5.2, 0.0, 45, 0, 0, {3.85421198, 5.35460852, 8.73350361}},
                        {5.2, 0.0, 45, 60, 30, {17.8412323, 20.265451, 23.8021678}},
                        {5.2, 0.0, 45, 85, 3, {31.5417418, 34.2807111, 33.394398}},
                        {5.2, 0.0, 45, 45, 150, {2.8092305, 4.9684098, 9.03676042}},
                        {9.8, 0.5, 70, 0, 0, {54.0600431, 53.8026709, 49.5236316}},
                        {9.8, 0.5, 70, 60, 30, {29.4563869, 32.0668146, 33.0512387}},
                        {9.8, 0.5, 70, 85, 3, {33.9469572, 34.6537596, 31.8516031}},
                        {9.8, 0.5, 70, 45, 150, {11.5489879, 13.7637471, 17.4170474}}};
  for (const Case& c : cases) {
    const SunSky sky = sky_only(c.turbidity, c.albedo, spherical((90 - c.elevation) * kDeg, 0));
    const glm::vec3 L = sky.radiance(spherical(c.zenith * kDeg, c.azimuth * kDeg)) / float(kCieYNormalization);
    INFO("T " << c.turbidity << " albedo " << c.albedo << " elevation " << c.elevation << " view " << c.zenith << ", " << c.azimuth);
    for (int k = 0; k < 3; ++k) CHECK(L[k] == Approx(c.hosek[k]).epsilon(2e-4));
  }
}

TEST_CASE("the sky against Mitsuba's reference images (test_sunsky.py test01)", "[sunsky][mitsuba]") {
  // Mitsuba's metric, mean |L - ref| / (|ref| + 0.001), bounded by 0.017 over its whole images, whose
  // lower half is black (0 error): 0.034 over the sky, which the quoted grid samples (its references
  // came from an earlier Mitsuba; over the whole images dray's errors are 0.0090, 0.0166, 0.0131).
  for (const SunskyReference& ref : kSunskyReferences) {
    SunSkySettings s;
    s.turbidity = ref.turbidity;
    s.albedo = glm::vec3(float(ref.albedo));
    s.time.hour = ref.hour;
    s.sun_scale = 0;
    const SunSky sky(s);
    double error = 0;
    for (int k = 0; k < 8; ++k)
      for (int l = 0; l < 8; ++l) {
        const glm::vec3 L = sky.radiance(-spherical(M_PI * (1 - (1 + 2 * k) / 31.0), 2 * M_PI * (8 * l) / 63.0));
        for (int c = 0; c < 3; ++c) error += std::fabs(L[c] - ref.rgb[k][l][c]) / (std::fabs(ref.rgb[k][l][c]) + 0.001) / 192;
      }
    INFO("hour " << ref.hour << ": mean relative error " << error);
    CHECK(error < 0.034);
  }
}

TEST_CASE("the sun's position by PSA against NOAA's formulas", "[sunsky]") {
  std::vector<SunTime> times;
  times.push_back(SunTime{});  // Mitsuba's default: Tokyo, 2010-07-10 15:00
  times.push_back({51.48, 0.0, 0, 2021, 3, 20, 12, 7, 0});    // Greenwich at the equinox, near noon
  times.push_back({-33.87, 151.21, 10, 2019, 12, 22, 9, 30, 0});  // Sydney, a summer morning
  times.push_back({64.14, -21.94, 0, 2015, 6, 21, 23, 0, 0});   // Reykjavik, midsummer night
  for (const SunTime& t : times) {
    const glm::dvec2 psa = sun_coordinates(t), noaa = noaa_sun(t);
    double azimuth = psa.y / kDeg + 180;  // Mitsuba's φ = azimuth - π
    if (azimuth >= 360) azimuth -= 360;
    double d_az = std::fabs(azimuth - noaa.y);
    d_az = std::min(d_az, 360 - d_az);
    INFO(t.year << "-" << t.month << "-" << t.day << " " << t.hour << "h at " << t.latitude << ", " << t.longitude << ": zenith "
                << psa.x / kDeg << " (NOAA " << noaa.x << "), azimuth " << azimuth << " (NOAA " << noaa.y << ")");
    CHECK(std::fabs(psa.x / kDeg - noaa.x) < 0.05);
    CHECK(d_az * std::sin(psa.x) < 0.05);  // azimuth matters as far as the zenith angle lets it
  }
}

TEST_CASE("the sun: a disc whose irradiance is its table's whatever the aperture", "[sunsky]") {
  // At a node of the table (turbidity 3, elevation 32°): irradiance = 467.069 / 106.75 · the mean
  // over 320, 360, ..., 720 nm of linear sRGB colour matching times the table (Mitsuba's units).
  SunSkySettings s;
  s.sun_direction = spherical((90 - 32) * kDeg, 0.3);
  s.sky_scale = 0;
  glm::dvec3 irradiance[2];
  for (int k = 0; k < 2; ++k) {
    s.sun_aperture = k == 0 ? 0.5358 : 5.0;
    const SunSky sky(s);
    const double cone = 2 * M_PI * (1 - double(sky.cos_aperture()));
    irradiance[k] = glm::dvec3(sky.sun_radiance()) * cone;
    CHECK(sky.radiance(*s.sun_direction) == sky.sun_radiance());
    CHECK(sky.radiance(spherical((90 - 32) * kDeg - 0.5 * s.sun_aperture * kDeg * 1.01, 0.3)) == glm::vec3(0.f));
  }
  glm::dvec3 expected(0.0);
  for (int i = 0; i < 11; ++i)  // turbidity 3 is row 2, elevation 32° node 10
    expected += xyz_to_srgb(cie1931_xyz(320.0 + 40.0 * i)) * sunsky::kSunIrradiance[(2 * 30 + 10) * 11 + i] / 11.0;
  expected *= 467.069280386 * kCieYNormalization;
  for (int c = 0; c < 3; ++c) {
    CHECK(irradiance[0][c] == Approx(expected[c]).epsilon(1e-5));
    CHECK(irradiance[1][c] == Approx(expected[c]).epsilon(1e-5));
  }
  CHECK(expected.y > 0.1);
}

TEST_CASE("complex_sun against Hosek & Wilkie's solar radiance, and its disc's irradiance against the default sun's", "[sunsky]") {
  // ArHosekSkyModel.c 1.4a, arhosekskymodel_solar_radiance_internal2 (solar radius Mitsuba's
  // 0.5358°/2) at (turbidity, the view's elevation°, γ / the disc's radius), 360, 400, ..., 720 nm; in
  // RGB as Mitsuba: the mean over 320..720 nm (0 at 320) of linear sRGB colour matching times it,
  // × 467.069 / 106.75.
  struct Case {
    double turbidity, elevation, gamma;
    double spectrum[10];
  };
  const Case cases[] = {
      {2.0, 20.0, 0.0, {1568.87087, 5359.09184, 10373.3362, 15559.7897, 16850.7833, 17436.7624, 18732.1865, 18394.538, 17857.8202, 17065.6152}},
      {4.5, 45.0, 0.5, {3840.06672, 9011.9986, 14126.4825, 18562.9512, 18482.296, 18092.5365, 18793.7628, 17995.9643, 17223.4957, 16306.4829}},
      {7.3, 5.0, 0.9, {1.76721812, 26.1347222, 131.364695, 367.685217, 616.109397, 901.02958, 1338.69881, 1642.69035, 1993.29809, 2309.34592}},
      {10.0, 80.0, 0.3, {4147.24993, 8504.64735, 12098.0886, 14954.5774, 14359.0092, 13832.7543, 14428.8425, 13823.9327, 13384.9629, 12841.2296}}};
  const double alpha = 0.5 * 0.5358 * kDeg;
  for (const Case& c : cases) {
    SunSkySettings s;
    s.turbidity = c.turbidity;
    s.sky_scale = 0;
    s.complex_sun = true;
    s.sun_direction = spherical((90 - c.elevation) * kDeg - c.gamma * alpha, 0);  // higher than the view by γ
    const SunSky sky(s);
    glm::dvec3 expected(0.0);
    for (int w = 0; w < 10; ++w) expected += xyz_to_srgb(cie1931_xyz(360.0 + 40 * w)) * c.spectrum[w] / 11.0;
    expected *= 467.069280386 * kCieYNormalization;
    const glm::vec3 L = sky.radiance(spherical((90 - c.elevation) * kDeg, 0));
    INFO("T " << c.turbidity << " elevation " << c.elevation << " gamma " << c.gamma);
    for (int k = 0; k < 3; ++k) CHECK(L[k] == Approx(expected[k]).epsilon(1e-3));
  }
  // Mitsuba's test09: the complex sun over its disc (Gauss–Legendre-free: a fine polar midpoint rule)
  // gives the default sun's irradiance within 1%.
  for (double turbidity : {2.0, 4.0, 6.0})
    for (double zenith : {20.0, 45.0})
      for (double aperture : {0.5358, 5.0}) {
        SunSkySettings s;
        s.turbidity = turbidity;
        s.sky_scale = 0;
        s.sun_aperture = aperture;
        s.sun_direction = spherical(zenith * kDeg, 0.4);
        const SunSky simple(s);
        s.complex_sun = true;
        const SunSky complex(s);
        const double a = 0.5 * aperture * kDeg;
        const glm::vec3 sun = *s.sun_direction, u = glm::normalize(glm::cross(sun, glm::vec3(0, 0, 1))), v = glm::cross(sun, u);
        glm::dvec3 E(0.0);
        const int n = 200;
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) {
            const double r = (i + 0.5) * a / n, phi = (j + 0.5) * 2 * M_PI / n;
            const glm::vec3 d = float(std::cos(r)) * sun + float(std::sin(r)) * (float(std::cos(phi)) * u + float(std::sin(phi)) * v);
            E += glm::dvec3(complex.radiance(d)) * std::sin(r) * (a / n) * (2 * M_PI / n);
          }
        const glm::dvec3 E_simple = glm::dvec3(simple.sun_radiance()) * (2 * M_PI * (1 - std::cos(a)));
        INFO("T " << turbidity << " zenith " << zenith << " aperture " << aperture << ": " << E.y << " against " << E_simple.y);
        for (int k = 0; k < 3; ++k) CHECK(E[k] == Approx(E_simple[k]).epsilon(0.01));
      }
}

TEST_CASE("sunsky sampling: χ² against its pdf, sky and a wide sun", "[sunsky]") {
  for (double aperture : {30.0, 0.5358}) {
    SunSkySettings s;
    s.turbidity = 4.8;
    s.albedo = glm::vec3(0.5f);
    s.sun_direction = spherical(50 * kDeg, -0.8 * M_PI);
    s.sun_aperture = aperture;
    s.sun_scale = aperture > 1 ? 1.0 : 0.0;  // a wide sun (Mitsuba's test07); a real one off (too small for the cells)
    const SunSky sky(s);
    auto draw = [&](Sampler& sampler) {
      float pdf;
      const float u1 = sampler.next(), u2 = sampler.next();
      const glm::vec3 d = sky.sample(u1, u2, pdf);
      return pdf > 0.f ? test::Chi2Draw{test::Chi2Draw::direction, d} : test::Chi2Draw{};
    };
    const test::Chi2Result r = test::chi2_sphere(draw, [&](const glm::vec3& d) { return double(sky.pdf(d)); }, false, 5);
    INFO("aperture " << aperture << ": sky weight " << sky.sky_weight() << ", chi2 " << r.statistic << " dof " << r.dof << " p " << r.p_value);
    CHECK(r.dof > 50);
    CHECK(r.p_value > 0.005);
  }
}

TEST_CASE("a plane under the sunsky against quadrature of the model", "[sunsky]") {
  // A diffuse plane (albedo 0.5) facing +z: radiance 0.5 / π · (∫ L_sky cos θ dω + L_sun Ω cos θ_sun),
  // the sky's integral by a fine midpoint rule.
  const json light = {{"name", "sky"}, {"type", "sunsky"}, {"hour", 10.5}, {"turbidity", 4}};
  const Scene scene = load_scene(sky_scene(light, 16, 256), "sky.json");  // measured: 0.7% low at 64 spp, 0.3% at 512, 0.09% at 2048
  const SunSky& sky = *std::get<SunSkyEmitter>(scene.lights[0].model).model;
  glm::dvec3 E(0.0);
  const int n = 1000;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 2 * n; ++j) {
      const double theta = (i + 0.5) * 0.5 * M_PI / n, phi = (j + 0.5) * M_PI / n;
      E += glm::dvec3(sky.sky_radiance(spherical(theta, phi))) * std::cos(theta) * std::sin(theta) * (0.5 * M_PI / n) * (M_PI / n);
    }
  const glm::vec3 sun = sky.sun_world();
  E += glm::dvec3(sky.sun_radiance()) * (2 * M_PI * (1 - double(sky.cos_aperture()))) * double(sun.z);
  const Image im = render_local(scene, 2);
  glm::dvec3 mean(0.0);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x)
      for (int c = 0; c < 3; ++c) mean[c] += im.pixel(x, y)[c] / 256.0;
  INFO("rendered " << mean.x << ", " << mean.y << ", " << mean.z << "; closed form " << 0.5 / M_PI * E.x << ", " << 0.5 / M_PI * E.y
                   << ", " << 0.5 / M_PI * E.z);
  for (int c = 0; c < 3; ++c) CHECK(mean[c] == Approx(0.5 / M_PI * E[c]).epsilon(0.01));
}

TEST_CASE("Mitsuba's sunsky from XML and back; refusals name the key", "[sunsky][mitsuba]") {
  TempDir t("dray-sunsky-");
  const std::string xml = t.write("s.xml", R"(<scene version="3.0.0">
  <sensor type="perspective"><transform name="to_world"><lookat origin="0, 3, 1" target="0, 0, 0" up="0, 0, 1"/></transform>
    <film type="hdrfilm"><integer name="width" value="24"/><integer name="height" value="16"/></film>
    <sampler type="independent"><integer name="sample_count" value="4"/></sampler></sensor>
  <emitter type="sunsky"><float name="turbidity" value="5"/><rgb name="albedo" value="0.2, 0.3, 0.4"/><float name="hour" value="11"/>
    <float name="latitude" value="48.1"/><float name="longitude" value="11.6"/><float name="timezone" value="1"/>
    <transform name="to_world"><rotate x="1" angle="-90"/></transform></emitter>
  <shape type="sphere"><bsdf type="diffuse"/></shape>
</scene>)");
  const Scene scene = load_scene(xml);
  REQUIRE(scene.environment == 0);
  REQUIRE(std::get<SunSkyEmitter>(scene.lights[0].model).model);
  CHECK(std::get<SunSkyEmitter>(scene.lights[0].model).model->settings().time.latitude == Approx(48.1));
  CHECK(std::get<SunSkyEmitter>(scene.lights[0].model).model->settings().albedo == glm::vec3(0.2f, 0.3f, 0.4f));
  CHECK(std::get<SunSkyEmitter>(scene.lights[0].model).model->sun_world().y > 0.5f);  // Z-up turned to Y-up: a morning sun is up
  std::vector<std::string> warnings;
  const std::string written = mitsuba::write_xml(read_scene_document(xml, {}, warnings), warnings);
  CHECK_THAT(written, Catch::Contains("type=\"sunsky\""));
  CHECK(render_local(scene, 2).data == render_local(load_scene(t.write("w.xml", written)), 2).data);
  // Mitsuba's documented example: the sun set at 20:00 in Tokyo in July: black, with a warning.
  const Scene night = load_scene(t.write("n.xml", R"(<scene version="3.0.0"><sensor type="perspective"/><emitter type="sunsky"><float name="hour" value="20.0"/></emitter></scene>)"));
  CHECK(std::get<SunSkyEmitter>(night.lights[0].model).model->radiance(glm::vec3(0, 0, 1)) == glm::vec3(0.f));
  REQUIRE(!night.warnings.empty());
  CHECK_THAT(night.warnings.back(), Catch::Contains("below the horizon"));
  auto error = [&](const json& light) {
    try {
      load_scene(sky_scene(light), "sky.json");
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(error({{"name", "s"}, {"type", "sunsky"}, {"turbidity", 11}}), Catch::Contains("/lights/0 (s)/turbidity") && Catch::Contains("[1, 10]"));
  CHECK_THAT(error({{"name", "s"}, {"type", "sunsky"}, {"sun_direction", {0, 0, 1}}, {"hour", 3}}),
             Catch::Contains("/lights/0 (s)/hour") && Catch::Contains("not both"));
  CHECK_THAT(error({{"name", "s"}, {"type", "sunsky"}, {"complex_sun", 1}}), Catch::Contains("/lights/0 (s)/complex_sun") && Catch::Contains("true or false"));
  CHECK_THAT(error({{"name", "s"}, {"type", "sunsky"}, {"albedo", 1.5}}), Catch::Contains("/lights/0 (s)/albedo"));
}
