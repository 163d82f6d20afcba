// The scene document's /media and Mitsuba's <medium>: what loads, the parameters it names, and
// the errors for bad input (a truncated or mis-sized .vol, σt < 0, albedo outside [0, 1], a
// medium inside an open surface), each naming the file and the element.
#include <catch2/catch.hpp>

#include <cmath>

#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"
#include "tests/media/vol_writer.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;

namespace {

// A .vol file of n³ voxels of `channels`, all `value`, with `drop` bytes cut from the end.
std::string write_vol(const testing::TempDir& t, const std::string& name, int n, int channels, float value, size_t drop = 0) {
  testing::write_vol((t.dir / name).string(), n, channels, std::vector<float>(size_t(n * n * n * channels), value), drop);
  return (t.dir / name).string();
}

json scene_with(const json& medium, const json& shape = json()) {
  json s = shape.is_null() ? json{{"name", "ball"}, {"type", "sphere"}, {"material", "none"}, {"interior", "fog"}} : shape;
  return {{"camera", {{"origin", {0, 0, 5}}, {"target", {0, 0, 0}}, {"width", 8}, {"height", 8}}},
          {"render", {{"integrator", "volpath"}}},
          {"media", {{"fog", medium}}},
          {"materials", {{"none", {{"type", "null"}}}}},
          {"shapes", {s}},
          {"lights", {{{"type", "environment"}, {"radiance", 1}}}}};
}

std::string error_of(const json& doc, const std::string& path) {
  try {
    load_scene(doc, path);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(loaded)";
}

}  // namespace

TEST_CASE("media load with Mitsuba's defaults and name their parameters media.ID.KEY", "[media][io]") {
  testing::TempDir t("dray-media-");
  write_vol(t, "d.vol", 4, 1, 0.5f);
  const json grid = {{"type", "heterogeneous"}, {"sigma_t", {{"type", "gridvolume"}, {"filename", "d.vol"}}}, {"phase", {{"type", "hg"}}}};
  const Scene s = load_scene(scene_with(grid), (t.dir / "scene.json").string());
  REQUIRE(s.media.size() == 1);
  REQUIRE(s.volumes.size() == 1);
  CHECK(integrator_traits(s.render).media);
  CHECK(s.shapes[0].interior == 0);
  CHECK(s.shapes[0].exterior == -1);
  CHECK(s.params.find("media.fog.sigma_t")->shape == std::vector<uint32_t>{4, 4, 4, 1});
  CHECK(s.params.get(s.params.find("media.fog.albedo")->slot) == 0.75f);  // Mitsuba's default
  CHECK(s.params.get(s.params.find("media.fog.phase.g")->slot) == 0.8f);
  CHECK(s.volumes[0].max == 0.5f);
  CHECK(std::get<HeterogeneousMedium>(s.media[0].model).majorant_factor == 1.01f);  // Mitsuba's default
  json slack = grid;
  slack["majorant_factor"] = 1.3;
  CHECK(std::get<HeterogeneousMedium>(load_scene(scene_with(slack), (t.dir / "scene.json").string()).media[0].model).majorant_factor ==
        1.3f);
  const Scene h = load_scene(scene_with({{"type", "homogeneous"}, {"sigma_t", {1, 2, 3}}, {"scale", 2}}), "scene.json");
  CHECK(h.params.get_vec3(std::get<HomogeneousMedium>(h.media[0].model).sigma_t) == glm::vec3(1, 2, 3));
  CHECK(h.params.get(h.media[0].scale) == 2.f);
}

TEST_CASE("bad media input fails naming the file and the element", "[media][io]") {
  testing::TempDir t("dray-media-bad-");
  const std::string path = (t.dir / "scene.json").string();
  auto with_grid = [&](const std::string& file, const char* key = "sigma_t") {
    return scene_with({{"type", "heterogeneous"}, {key, {{"type", "gridvolume"}, {"filename", file}}}});
  };
  write_vol(t, "short.vol", 4, 1, 1.f, 5);
  CHECK_THAT(error_of(with_grid("short.vol"), path),
             Catch::Contains("/media/fog/sigma_t/filename") && Catch::Contains("short.vol") && Catch::Contains("truncated or mis-sized"));
  t.write("text.vol", "not a volume");
  CHECK_THAT(error_of(with_grid("text.vol"), path), Catch::Contains("text.vol: not a Mitsuba volume file"));
  write_vol(t, "two.vol", 2, 2, 1.f);
  CHECK_THAT(error_of(with_grid("two.vol"), path), Catch::Contains("2 channels (supported: 1 or 3)"));
  CHECK_THAT(error_of(with_grid("missing.vol"), path), Catch::Contains("missing.vol: cannot open"));
  write_vol(t, "negative.vol", 2, 1, -0.5f);
  CHECK_THAT(error_of(with_grid("negative.vol"), path), Catch::Contains("voxel value 0: sigma_t must be >= 0, got -0.5"));
  write_vol(t, "bright.vol", 2, 3, 1.5f);
  CHECK_THAT(error_of(with_grid("bright.vol", "albedo"), path),
             Catch::Contains("/media/fog/albedo/filename") && Catch::Contains("albedo must be in [0, 1], got 1.5"));
  CHECK_THAT(error_of(scene_with({{"type", "homogeneous"}, {"sigma_t", {1, -1, 1}}}), path),
             Catch::Contains("/media/fog/sigma_t: must be >= 0, got -1"));
  CHECK_THAT(error_of(scene_with({{"type", "homogeneous"}, {"albedo", 1.2}}), path),
             Catch::Contains("/media/fog/albedo: must be in [0, 1], got 1.2"));
  CHECK_THAT(error_of(scene_with({{"type", "homogeneous"}, {"phase", {{"type", "hg"}, {"g", 1}}}}), path),
             Catch::Contains("/media/fog/phase/g: must be in (-1, 1), got 1"));
  CHECK_THAT(error_of(scene_with({{"type", "fog"}}), path), Catch::Contains("unknown medium \"fog\""));
  write_vol(t, "ok.vol", 2, 1, 1.f);
  json below = with_grid("ok.vol");
  below["media"]["fog"]["majorant_factor"] = 0.9;
  CHECK_THAT(error_of(below, path), Catch::Contains("/media/fog/majorant_factor: must be >= 1") && Catch::Contains("got 0.9"));
  CHECK_THAT(error_of(scene_with({{"type", "homogeneous"}, {"majorant_factor", 1.2}}), path),
             Catch::Contains("/media/fog/majorant_factor: unknown key (expected one of: type, sigma_t, albedo, scale"));
  CHECK_THAT(error_of(scene_with({{"type", "homogeneous"}, {"sigma_t", {{"type", "gridvolume"}, {"filename", "ok.vol"}}}}), path),
             Catch::Contains("/media/fog/sigma_t: a homogeneous medium takes a colour (a grid needs a medium that takes volumes: "
                             "heterogeneous)"));
  CHECK_THAT(error_of(scene_with({{"type", "fog"}}), path), Catch::Contains("(known: homogeneous, heterogeneous)"));
  const json quad = {{"name", "pane"}, {"type", "quad"}, {"material", "none"}, {"interior", "fog"}};
  // A medium behind an open surface loads, as Mitsuba renders it (its documentation's bunny is
  // open at its base), with a warning naming the shape and its open edges.
  const Scene open = load_scene(scene_with({{"type", "homogeneous"}}, quad), path, false);
  REQUIRE(open.warnings.size() >= 1);
  CHECK_THAT(open.warnings.back(), Catch::Contains("/shapes/0 (pane)/interior: the shape is not closed (4 open edges)") &&
                                       Catch::Contains("as in Mitsuba"));
  const json typo = {{"name", "ball"}, {"type", "sphere"}, {"material", "none"}, {"interior", "smoke"}};
  CHECK_THAT(error_of(scene_with({{"type", "homogeneous"}}, typo), path), Catch::Contains("no medium named \"smoke\" in /media"));
}

TEST_CASE("Mitsuba's <medium>, <volume> and <phase> convert, with shapes' interior and exterior", "[media][io][mitsuba]") {
  testing::TempDir t("dray-media-xml-");
  write_vol(t, "d.vol", 4, 1, 2.f);
  const std::string xml = t.write("scene.xml", R"(<scene version="3.0.0">
  <integrator type="volpathmis"><integer name="max_depth" value="8"/></integrator>
  <sensor type="perspective"><film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="8"/></film></sensor>
  <medium id="smoke" type="heterogeneous">
    <volume name="sigma_t" type="gridvolume"><string name="filename" value="d.vol"/>
      <transform name="to_world"><scale value="2"/></transform></volume>
    <rgb name="albedo" value="0.5, 0.6, 0.7"/>
    <float name="scale" value="3"/>
    <float name="majorant_factor" value="1.25"/>
    <phase type="rayleigh"/>
  </medium>
  <shape type="sphere"><bsdf type="null"/><ref name="interior" id="smoke"/>
    <medium name="exterior" type="homogeneous"><rgb name="sigma_t" value="0.1"/></medium></shape>
  <emitter type="constant"/>
</scene>)");
  const Scene s = load_scene(xml);
  REQUIRE(s.media.size() == 2);
  CHECK(integrator_traits(s.render).media);
  CHECK(s.render.max_depth == 7);
  CHECK(s.media[s.shapes[0].interior].name == "smoke");
  CHECK(std::holds_alternative<HomogeneousMedium>(s.media[s.shapes[0].exterior].model));
  CHECK(std::holds_alternative<RayleighPhase>(s.media[s.shapes[0].interior].phase));
  CHECK(s.params.get(s.media[s.shapes[0].interior].scale) == 3.f);
  CHECK(std::get<HeterogeneousMedium>(s.media[s.shapes[0].interior].model).majorant_factor == 1.25f);
  CHECK(s.volumes[0].hi == glm::vec3(2.f));
  // A medium's volume `key` (the file a.vol, values 0.5) with wrap_mode `wrap`, as file `name`.
  write_vol(t, "a.vol", 2, 1, 0.5f);
  auto wrapped = [&](const std::string& name, const std::string& type, const std::string& key, const std::string& wrap) {
    return t.write(name, R"(<scene version="3.0.0">
  <sensor type="perspective"/>
  <medium id="m" type=")" + type + R"("><volume name=")" + key + R"(" type="gridvolume"><string name="filename" value="a.vol"/>
    <string name="wrap_mode" value=")" + wrap + R"("/></volume></medium>
</scene>)");
  };
  CHECK_THROWS_WITH(load_scene(wrapped("bad.xml", "heterogeneous", "sigma_t", "repeat")),
                    Catch::Contains("bad.xml:3:") && Catch::Contains("a medium's sigma_t volume bounds it"));
  const Scene tiled = load_scene(wrapped("tiled.xml", "homogeneous", "albedo", "repeat"));  // Mitsuba's sss_textured
  REQUIRE(tiled.volumes.size() == 1);
  CHECK(tiled.volumes[0].repeat);
  CHECK_THROWS_WITH(load_scene(wrapped("mirror.xml", "homogeneous", "albedo", "mirror")),
                    Catch::Contains("mirror.xml:3:") && Catch::Contains("wrap_mode must be clamp or repeat"));
}

TEST_CASE("Mitsuba's sensor in a medium: from the centre of an absorbing sphere the sky times exp(-sigma_t r)", "[media][io][mitsuba]") {
  // Every camera ray crosses r = 2 of σt 0.5 before the sky of 1: a pixel's mean is e^−1 (a path
  // passes or is absorbed: 0 or 1, 8² pixels × 256 samples, standard error 0.0038). Without the
  // sensor's medium the camera would see the sky, 1.
  testing::TempDir t("dray-media-sensor-");
  auto scene = [&](const std::string& sensor_medium) {
    return t.write("s.xml", R"(<scene version="3.0.0">
  <integrator type="volpath"/>
  <medium id="fog" type="homogeneous"><rgb name="sigma_t" value="0.5"/><rgb name="albedo" value="0"/></medium>
  <bsdf id="clear" type="null"/>
  <sensor type="perspective"><float name="fov" value="60"/>)" + sensor_medium + R"(
    <film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="8"/></film>
    <sampler type="independent"><integer name="sample_count" value="256"/></sampler></sensor>
  <shape type="sphere"><float name="radius" value="2"/><ref id="clear"/><ref name="interior" id="fog"/></shape>
  <emitter type="constant"/>
</scene>)");
  };
  const Scene s = load_scene(scene(R"(<ref id="fog"/>)"));
  REQUIRE(s.camera_medium(s.shot()) >= 0);
  CHECK(s.media[size_t(s.camera_medium(s.shot()))].name == "fog");
  const Image img = render_local(s, 2);
  double mean = 0;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) mean += img.pixel(x, y)[1] / 64.0;
  CHECK(mean == Approx(std::exp(-1.0)).margin(0.015));
  const Image outside = render_local(load_scene(scene("")), 2);
  CHECK(outside.pixel(4, 4)[1] == Approx(1.f));
  // An inline medium is the sensor's too; two are refused, and a reference to something else.
  const Scene fogged = load_scene(scene(R"(<medium type="homogeneous"><rgb name="sigma_t" value="1"/></medium>)"));
  CHECK(fogged.camera_medium(fogged.shot()) >= 0);
  CHECK_THROWS_WITH(load_scene(scene(R"(<ref id="fog"/><ref id="fog"/>)")), Catch::Contains("a sensor sits in one medium"));
  CHECK_THROWS_WITH(load_scene(scene(R"(<ref id="clear"/>)")), Catch::Contains("refers to a <bsdf>, expected a <medium>"));
}

TEST_CASE("Mitsuba's constvolume bounds a heterogeneous medium by its box, the unit cube under its to_world", "[media][io][mitsuba]") {
  // An orthographic camera looks down −z through a clear cube [−1, 1]³ holding a heterogeneous
  // medium of σt 1 (no scattering) before a sky of 1. Mitsuba's medium lives in its sigma_t
  // volume's box: [−0.5, 0.5]³ under the translate, so the film's centre (x, y in ±0.5) sees
  // e^−1 and its rim (outside the box, inside the cube) 1. Without a to_world the box is [0, 1]³,
  // as Mitsuba's, and the film's centre sees the sky through its corner only.
  testing::TempDir t("dray-media-constvolume-");
  auto scene = [&](const std::string& volume) {
    return t.write("s.xml", R"(<scene version="3.0.0">
  <integrator type="volpath"/>
  <medium id="fog" type="heterogeneous">)" + volume + R"(<rgb name="albedo" value="0"/></medium>
  <sensor type="orthographic"><transform name="to_world"><scale value="1.5"/><lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="12"/><integer name="height" value="12"/><rfilter type="box"/></film>
    <sampler type="independent"><integer name="sample_count" value="64"/></sampler></sensor>
  <shape type="cube"><bsdf type="null"/><ref name="interior" id="fog"/></shape>
  <emitter type="constant"/>
</scene>)");
  };
  // The film spans x, y in [−1.5, 1.5]: 4 pixels a unit. Pixels 4..7 lie in [−0.5, 0.5], pixel 1
  // at x ≈ −1.1 outside the cube, pixel 2 at x ≈ −0.9 inside the cube but outside the box.
  const Image boxed = render_local(load_scene(scene(R"(<volume name="sigma_t" type="constvolume"><rgb name="value" value="1"/>
    <transform name="to_world"><translate x="-0.5" y="-0.5" z="-0.5"/></transform></volume>)")), 2);
  double centre = 0;
  for (int y = 4; y < 8; ++y)
    for (int x = 4; x < 8; ++x) centre += boxed.pixel(x, y)[1] / 16.0;
  CHECK(centre == Approx(std::exp(-1.0)).margin(0.03));  // 16 × 64 samples of 0 or 1: σ 0.015
  CHECK(boxed.pixel(2, 6)[1] == Approx(1.f));
  CHECK(boxed.pixel(1, 6)[1] == Approx(1.f));
  // A plain sigma_t is a constvolume too (Mitsuba wraps it): its box is [0, 1]³, which the film's
  // pixels 6..9 see (x, y in [0, 1]), and pixels 4..5 (x in [−0.5, 0)) miss.
  const Image unit = render_local(load_scene(scene(R"(<rgb name="sigma_t" value="1"/>)")), 2);
  double inside = 0;
  for (int y = 2; y < 4; ++y)  // rows count down from +y: rows 2..3 hold y in [0.5, 1]
    for (int x = 6; x < 10; ++x) inside += unit.pixel(x, y)[1] / 8.0;
  CHECK(inside == Approx(std::exp(-1.0)).margin(0.04));
  CHECK(unit.pixel(4, 3)[1] == Approx(1.f));
  CHECK(unit.pixel(5, 8)[1] == Approx(1.f));
}

TEST_CASE("a homogeneous medium's albedo may be a gridvolume, clamped or repeating as Mitsuba's wrap_mode", "[media][io]") {
  // 4³ voxels whose albedo grows along x: 0.1, 0.3, 0.5, 0.7 at the voxel centres x = 1/8, 3/8, 5/8, 7/8.
  testing::TempDir t("dray-media-albedo-grid-");
  const std::string path = (t.dir / "scene.json").string();
  std::vector<float> ramp;
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) ramp.push_back(0.1f + 0.2f * float(x));
  testing::write_vol((t.dir / "ramp.vol").string(), 4, 1, ramp);
  auto medium_with = [&](const json& albedo) { return scene_with({{"type", "homogeneous"}, {"sigma_t", 2}, {"albedo", albedo}}); };
  auto albedo_at = [](const Scene& s, float x) {
    const auto& m = std::get<HomogeneousMedium>(s.media[0].model);
    return m.albedo_at(s.volumes, ParamView<float>(s.params), glm::vec3(x, 0.5f, 0.5f)).x;
  };
  const json grid = {{"type", "gridvolume"}, {"filename", "ramp.vol"}};
  const Scene clamped = load_scene(medium_with(grid), path);
  REQUIRE(std::get<HomogeneousMedium>(clamped.media[0].model).albedo.grid == 0);
  CHECK(clamped.params.find("media.fog.albedo")->shape == std::vector<uint32_t>{4, 4, 4, 1});
  CHECK(albedo_at(clamped, 0.125f) == Approx(0.1f));
  CHECK(albedo_at(clamped, 0.5f) == Approx(0.4f));   // halfway between voxels 1 and 2
  CHECK(albedo_at(clamped, 1.0f) == Approx(0.7f));   // past the last centre: clamped
  CHECK(albedo_at(clamped, 3.0f) == Approx(0.7f));
  json tiled = grid;
  tiled["wrap_mode"] = "repeat";
  const Scene repeating = load_scene(medium_with(tiled), path);
  CHECK(albedo_at(repeating, 0.125f) == Approx(0.1f));
  CHECK(albedo_at(repeating, 1.0f) == Approx(0.4f));    // between the last voxel and the first, wrapped
  CHECK(albedo_at(repeating, 2.375f) == Approx(0.3f));  // the tile two over: voxel 1
  CHECK(albedo_at(repeating, -0.375f) == Approx(0.5f));  // one tile back: voxel 2
  // The grid is where the path scatters: a grid of one value renders as that constant albedo.
  testing::write_vol((t.dir / "flat.vol").string(), 2, 1, std::vector<float>(8, 0.3f));
  const Image from_grid = render_local(load_scene(medium_with({{"type", "gridvolume"}, {"filename", "flat.vol"}, {"wrap_mode", "repeat"}}), path), 2);
  const Image from_colour = render_local(load_scene(medium_with(0.3), path), 2);
  double most = 0, worst = 0;
  for (size_t i = 0; i < from_grid.data.size(); ++i) {
    most = std::max(most, double(from_colour.data[i]));
    worst = std::max(worst, std::fabs(double(from_grid.data[i]) - double(from_colour.data[i])));
  }
  CHECK(most > 0.05);
  CHECK(worst <= 1e-5 * most);
  // A sigma_t grid bounds its medium: it may not repeat; a mirror is no wrap mode of dray's.
  CHECK_THAT(error_of(scene_with({{"type", "heterogeneous"}, {"sigma_t", tiled}}), path),
             Catch::Contains("/media/fog/sigma_t/wrap_mode: a medium's sigma_t volume bounds it"));
  json mirrored = grid;
  mirrored["wrap_mode"] = "mirror";
  CHECK_THAT(error_of(medium_with(mirrored), path), Catch::Contains("/media/fog/albedo/wrap_mode: must be \"clamp\" or \"repeat\""));
}
