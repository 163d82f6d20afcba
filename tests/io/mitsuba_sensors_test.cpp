// Mitsuba's sensors in XML: the field of view on each axis, max_depth as bounces, orthographic
// (to_world's scale as the film's extent), thinlens, perspective's principal point and clip planes,
// as dray cameras; an orthographic view's image against its closed form; the rfilters with their
// parameters; what is refused.
#include <catch2/catch.hpp>

#include <cmath>

#include "../temp_dir.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

namespace {

// A scene with `sensor` (a <sensor> element's inside) of type `type` on a 40 x 20 film, looking
// from z = 5 at an emitting sphere of radius 0.5 at x = `x`.
std::string sensor_scene(const std::string& type, const std::string& sensor, double x = 0) {
  return R"(<scene version="3.0.0"><sensor type=")" + type + R"(">)" + sensor + R"(
    <film type="hdrfilm"><integer name="width" value="40"/><integer name="height" value="20"/><rfilter type="box"/></film>
    <sampler type="independent"><integer name="sample_count" value="64"/></sampler></sensor>
    <integrator type="direct"/>
    <shape type="sphere"><float name="radius" value="0.5"/><transform name="to_world"><translate x=")" +
         std::to_string(x) + R"("/></transform>
      <bsdf type="diffuse"><rgb name="reflectance" value="0"/></bsdf><emitter type="area"><rgb name="radiance" value="1"/></emitter></shape>
  </scene>)";
}

const char* kLookat = R"(<lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/>)";

json camera_of(TempDir& t, const std::string& xml) {
  std::vector<std::string> warnings;
  return read_scene_document(t.write("s.xml", xml), {}, warnings)["camera"];
}

// The image's mean and its centroid's column (channel 0).
std::pair<double, double> mean_and_column(const Image& im) {
  double sum = 0, x = 0;
  for (int j = 0; j < im.height; ++j)
    for (int i = 0; i < im.width; ++i) {
      sum += im.pixel(i, j)[0];
      x += im.pixel(i, j)[0] * (i + 0.5);
    }
  return {sum / (im.width * im.height), x / sum};
}

}  // namespace

TEST_CASE("Mitsuba's orthographic sensor: to_world's scale is the film's extent", "[mitsuba]") {
  // The film spans [-1, 1] x [-1/aspect, 1/aspect] in camera space: scaled by 2 and 3, half
  // extents 2 and 3 * 20 / 40. The sphere (radius 0.5) covers pi 0.25 / (4 * 2 * 1.5) of it.
  TempDir t("dray-mitsuba-ortho-");
  const std::string sensor = std::string(R"(<transform name="to_world"><scale x="2" y="3"/>)") + kLookat + "</transform>";
  const json cam = camera_of(t, sensor_scene("orthographic", sensor));
  CHECK(cam["type"] == "orthographic");
  CHECK(cam["half_width"].get<double>() == Approx(2));
  CHECK(cam["half_height"].get<double>() == Approx(1.5));
  CHECK(cam["near_clip"].get<double>() == Approx(0.01));  // Mitsuba's defaults
  CHECK(cam["far_clip"].get<double>() == Approx(1e4));
  const Scene scene = load_scene(t.write("o.xml", sensor_scene("orthographic", sensor)));
  const auto [mean, column] = mean_and_column(render(scene));
  CHECK(mean == Approx(M_PI * 0.25 / 12).epsilon(0.02));
  CHECK(column == Approx(20).margin(0.05));
  // Mitsuba's image orientation: world +x (seen from +z, up +y) on the right, by the same amount
  // as the perspective camera puts it there (the sphere at x = 1: a quarter of the half width).
  const Scene shifted = load_scene(t.write("o2.xml", sensor_scene("orthographic", sensor, 1)));
  CHECK(mean_and_column(render(shifted)).second == Approx(20 + 20 * 1 / 2.0).margin(0.1));
  const Scene persp = load_scene(t.write("p.xml", sensor_scene("perspective", std::string("<transform name=\"to_world\">") + kLookat + "</transform>", 1)));
  CHECK(mean_and_column(render(persp)).second > 21);
}

TEST_CASE("Mitsuba's thinlens and perspective extras become the dray camera's keys", "[mitsuba]") {
  TempDir t("dray-mitsuba-lens-");
  const std::string pose = std::string("<transform name=\"to_world\">") + kLookat + "</transform>";
  const json lens = camera_of(t, sensor_scene("thinlens", pose + R"(<float name="fov" value="30"/><string name="fov_axis" value="y"/>
      <float name="aperture_radius" value="0.2"/><float name="focus_distance" value="4"/><float name="near_clip" value="0.5"/>
      <float name="far_clip" value="50"/>)"));
  CHECK(lens["type"] == "thinlens");
  CHECK(lens["fov_y"].get<double>() == Approx(30));
  CHECK(lens["aperture_radius"].get<double>() == Approx(0.2));
  CHECK(lens["focus_distance"].get<double>() == Approx(4));
  CHECK(lens["near_clip"].get<double>() == Approx(0.5));
  CHECK(lens["far_clip"].get<double>() == Approx(50));
  const json offset = camera_of(t, sensor_scene("perspective", pose + R"(<float name="principal_point_offset_x" value="0.1"/>
      <float name="principal_point_offset_y" value="-0.2"/>)"));
  CHECK(offset["principal_point_offset"][0].get<double>() == Approx(0.1));
  CHECK(offset["principal_point_offset"][1].get<double>() == Approx(-0.2));
  // The thin lens renders (its aperture is sampled: an in-focus sphere is still there).
  const Scene scene = load_scene(t.write("l.xml", sensor_scene("thinlens", pose + R"(<float name="fov" value="30"/>
      <float name="aperture_radius" value="0.05"/><float name="focus_distance" value="5"/>)")));
  CHECK(mean_and_column(render(scene)).first > 0.01);
}

TEST_CASE("Mitsuba sensors: what is refused, at its element", "[mitsuba]") {
  TempDir t("dray-mitsuba-sensor-errors-");
  auto error = [&](const std::string& type, const std::string& sensor) { return load_error(t.write("e.xml", sensor_scene(type, sensor))); };
  CHECK_THAT(error("orthographic", R"(<float name="fov" value="30"/>)"),
             Catch::Contains("<sensor type=\"orthographic\"> fov: unknown key"));
  CHECK_THAT(error("thinlens", ""), Catch::Contains("<sensor type=\"thinlens\"> aperture_radius: required key is missing"));
  CHECK_THAT(error("perspective", R"(<float name="aperture_radius" value="0.1"/>)"), Catch::Contains("<sensor type=\"perspective\"> aperture_radius: unknown key"));
  CHECK_THAT(error("perspective", R"(<float name="near_clip" value="0"/>)"), Catch::Contains("near_clip must be greater than zero"));
  CHECK_THAT(error("perspective", R"(<float name="near_clip" value="5"/><float name="far_clip" value="4"/>)"),
             Catch::Contains("near_clip must be smaller than far_clip"));
  CHECK_THAT(error("fisheye", ""), Catch::Contains("unsupported sensor type (supported: perspective, thinlens, orthographic, radiancemeter, distant, irradiancemeter)"));
}

TEST_CASE("Mitsuba scenes with several sensors: /camera an array, ids as names, the first's sampler for all", "[mitsuba]") {
  TempDir t("dray-mitsuba-sensors-");
  const std::string film = R"(<film type="hdrfilm"><integer name="width" value="30"/><integer name="height" value="10"/>
      <rfilter type="box"/></film>)";
  auto with_second = [&](const std::string& sampler) {
    std::string xml = sensor_scene("perspective", std::string("<transform name=\"to_world\">") + kLookat + "</transform>");
    const std::string second = R"(<sensor type="orthographic" id="top"><transform name="to_world"><lookat origin="0, 5, 0"
      target="0, 0, 0" up="0, 0, 1"/></transform>)" + film + sampler + "</sensor>";
    return xml.insert(xml.find("<integrator"), second);
  };
  const json cams = camera_of(t, with_second(R"(<sampler type="independent"><integer name="sample_count" value="64"/></sampler>)"));
  REQUIRE(cams.is_array());
  REQUIRE(cams.size() == 2);
  CHECK(cams[1]["name"] == "top");
  CHECK(cams[1]["type"] == "orthographic");
  CHECK(cams[1]["width"] == 30);
  CHECK(cams[0]["width"] == 40);
  const Scene scene = load_scene(t.write("two.xml", with_second("")));
  REQUIRE(scene.sensors.size() == 2);
  CHECK(scene.sensors[1].name == "top");
  CHECK(scene.params.find("sensors.top.half_width"));
  // A later sensor's own sample count would be ignored: refused at its element.
  CHECK_THAT(load_error(t.write("e.xml", with_second(R"(<sampler type="independent"><integer name="sample_count" value="8"/></sampler>)"))),
             Catch::Contains("<sensor type=\"orthographic\" id=\"top\">: a later sensor's sampler, film crop and rfilter must equal the first sensor's"));
}

TEST_CASE("Mitsuba sensors: the field of view on each axis, max_depth as bounces", "[mitsuba]") {
  TempDir t("dray-mitsuba-f-");
  auto fov_y = [&](const std::string& axis, int w, int h) {
    const std::string xml = t.write("f.xml", R"(<scene version="3.0.0"><sensor type="perspective">
      <float name="fov" value="50"/><string name="fov_axis" value=")" + axis + R"("/>
      <film type="hdrfilm"><integer name="width" value=")" + std::to_string(w) + R"("/><integer name="height" value=")" +
                                                 std::to_string(h) + R"("/></film></sensor>
      <shape type="sphere"><transform name="to_world"><translate z="5"/></transform></shape></scene>)");
    std::vector<std::string> warnings;
    return read_scene_document(xml, {}, warnings)["camera"]["fov_y"].get<double>();
  };
  const double t50 = std::tan(25.0 * M_PI / 180.0);
  auto from_tan = [](double t) { return 2.0 * std::atan(t) * 180.0 / M_PI; };
  CHECK(fov_y("y", 40, 20) == Approx(50));
  CHECK(fov_y("x", 40, 20) == Approx(from_tan(t50 / 2.0)));
  CHECK(fov_y("diagonal", 40, 20) == Approx(from_tan(t50 * 20.0 / std::sqrt(40.0 * 40 + 20 * 20))));
  CHECK(fov_y("smaller", 40, 20) == Approx(50));                       // the height is smaller
  CHECK(fov_y("larger", 40, 20) == Approx(from_tan(t50 / 2.0)));        // the width is larger
  CHECK(fov_y("smaller", 20, 40) == Approx(from_tan(t50 * 2.0)));       // the width is smaller

  // focal_length (35 mm equivalent, default 50mm): the diagonal field of view 2 atan(43.27 / 2f).
  auto sensor_doc = [&](const std::string& sensor, const std::string& film = "") {
    const std::string xml = t.write("fl.xml", R"(<scene version="3.0.0"><sensor type="perspective">)" + sensor +
                                                 R"(<film type="hdrfilm"><integer name="width" value="40"/><integer name="height" value="20"/>)" +
                                                 film + R"(</film></sensor>
      <shape type="sphere"><transform name="to_world"><translate z="5"/></transform></shape></scene>)");
    std::vector<std::string> warnings;
    return read_scene_document(xml, {}, warnings);
  };
  auto diagonal_fov_y = [&](double mm) {
    return from_tan(std::sqrt(36.0 * 36 + 24 * 24) / (2 * mm) * 20.0 / std::sqrt(40.0 * 40 + 20 * 20));
  };
  CHECK(sensor_doc(R"(<string name="focal_length" value="35mm"/>)")["camera"]["fov_y"].get<double>() == Approx(diagonal_fov_y(35)));
  CHECK(sensor_doc(R"(<string name="focal_length" value="24"/>)")["camera"]["fov_y"].get<double>() == Approx(diagonal_fov_y(24)));
  CHECK(sensor_doc("")["camera"]["fov_y"].get<double>() == Approx(diagonal_fov_y(50)));
  // The film's crop window is render.crop, [x0, y0, x1, y1]; the whole film is no crop.
  const json cropped = sensor_doc("", R"(<integer name="crop_offset_x" value="4"/><integer name="crop_offset_y" value="2"/>
      <integer name="crop_width" value="10"/><integer name="crop_height" value="8"/>)");
  CHECK(cropped["render"]["crop"] == json{4, 2, 14, 10});
  CHECK(cropped["camera"]["width"] == 40);
  CHECK(!sensor_doc("", R"(<integer name="crop_width" value="40"/>)")["render"].contains("crop"));
  auto error = [&](const std::string& sensor, const std::string& film = "") {
    return load_error(t.write("fe.xml", R"(<scene version="3.0.0"><sensor type="perspective">)" + sensor +
                                            R"(<film type="hdrfilm"><integer name="width" value="40"/><integer name="height" value="20"/>)" +
                                            film + R"(</film></sensor><shape type="sphere"/></scene>)"));
  };
  CHECK(error(R"(<float name="fov" value="40"/><string name="focal_length" value="50mm"/>)").find("either a fov or a focal_length") !=
        std::string::npos);
  CHECK(error(R"(<string name="focal_length" value="long"/>)").find("focal_length must be a length in millimetres") != std::string::npos);
  CHECK(error("", R"(<integer name="crop_offset_x" value="4"/>)").find("the crop window must lie inside the 40x20 film") !=
        std::string::npos);

  auto depth = [&](const std::string& integrator) {
    const std::string xml = t.write("d.xml", scene_xml(integrator + "<shape type=\"sphere\"/>"));
    std::vector<std::string> warnings;
    return read_scene_document(xml, {}, warnings)["render"]["max_depth"].get<int>();
  };
  CHECK(depth(R"(<integrator type="path"><integer name="max_depth" value="2"/></integrator>)") == 1);  // direct light
  CHECK(depth(R"(<integrator type="path"/>)") == 1024);                                               // unlimited
  CHECK(depth(R"(<integrator type="direct"/>)") == 1);
  CHECK(depth(R"(<integrator type="moment"><integrator type="path"><integer name="max_depth" value="4"/></integrator></integrator>)") == 3);
  // hide_emitters is the render's, as Mitsuba's path, volpath and direct take it.
  for (const char* type : {"path", "volpath", "direct"}) {
    const std::string xml =
        t.write("h.xml", scene_xml(std::string("<integrator type=\"") + type +
                                   "\"><boolean name=\"hide_emitters\" value=\"true\"/></integrator><shape type=\"sphere\"/>"));
    std::vector<std::string> warnings;
    CHECK(read_scene_document(xml, {}, warnings)["render"]["hide_emitters"] == true);
  }
}

TEST_CASE("Mitsuba rfilters: box, tent and gaussian with their parameters", "[mitsuba]") {
  TempDir t("dray-mitsuba-r-");
  auto filter = [&](const std::string& rfilter) {
    const std::string xml = t.write("r.xml", R"(<scene version="3.0.0"><sensor type="perspective"><float name="fov" value="40"/>
      <film type="hdrfilm">)" + rfilter + R"(</film></sensor><shape type="sphere"/></scene>)");
    std::vector<std::string> warnings;
    return read_scene_document(xml, {}, warnings)["render"]["filter"];
  };
  CHECK(filter("<rfilter type=\"box\"/>") == "box");
  CHECK(filter("<rfilter type=\"tent\"/>") == "tent");
  CHECK(filter("<rfilter type=\"tent\"><float name=\"radius\" value=\"1.5\"/></rfilter>") == json{{"type", "tent"}, {"radius", 1.5}});
  CHECK(filter("<rfilter type=\"gaussian\"><float name=\"stddev\" value=\"0.25\"/></rfilter>") ==
        json{{"type", "gaussian"}, {"stddev", 0.25}});
  CHECK(filter("") == "gaussian");
  // The scene loads with it: radius 4 stddev.
  const std::string xml = t.write("g.xml", R"(<scene version="3.0.0"><sensor type="perspective"><float name="fov" value="40"/>
    <film type="hdrfilm"><rfilter type="gaussian"><float name="stddev" value="0.25"/></rfilter></film></sensor>
    <shape type="sphere"><transform name="to_world"><translate z="5"/></transform></shape></scene>)");
  CHECK(load_scene(xml, {}, false).render.filter.radius == 1.0);
  CHECK_FALSE(load_scene(xml, {}, false).render.sample_border);  // hdrfilm's default
  const std::string border = t.write("b.xml", R"(<scene version="3.0.0"><sensor type="perspective"><float name="fov" value="40"/>
    <film type="hdrfilm"><boolean name="sample_border" value="true"/></film></sensor>
    <shape type="sphere"><transform name="to_world"><translate z="5"/></transform></shape></scene>)");
  CHECK(load_scene(border, {}, false).render.sample_border);
  auto error = [&](const std::string& rfilter) {
    return load_error(t.write("e.xml", R"(<scene version="3.0.0"><sensor type="perspective"><float name="fov" value="40"/>
      <film type="hdrfilm">)" + rfilter + R"(</film></sensor><shape type="sphere"/></scene>)"));
  };
  CHECK(error("<rfilter type=\"sinc\"/>").find("e.xml:2:28: <rfilter type=\"sinc\">: unsupported rfilter (supported: box, tent, gaussian, mitchell, catmullrom, lanczos)") !=
        std::string::npos);
  CHECK(error("<rfilter type=\"tent\"><float name=\"stddev\" value=\"1\"/></rfilter>")
            .find("<float name=\"stddev\">: unsupported tent filter property (supported: radius)") != std::string::npos);
  CHECK(error("<rfilter type=\"gaussian\"><float name=\"stddev\" value=\"9\"/></rfilter>").find("e.xml:1:24: <sensor type=\"perspective\"> filter.stddev: must be in [0.125, 4], got 9") !=
        std::string::npos);
}
