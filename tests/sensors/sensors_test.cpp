// Several sensors in one scene (Mitsuba's several <sensor>s): each renders, bitwise, as a scene
// whose one camera it is, images and derivatives alike; their parameters are their own; --set
// reaches each; what is refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "renderer/integrators/render_tiles.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/scene_loader.h"
#include "renderer/scene_params.h"

using namespace dray;
using nlohmann::json;

namespace {

const json kFront = {{"origin", {0, 1, 6}}, {"target", {0, 0.5, 0}}, {"width", 24}, {"height", 16}, {"fov_y", 35}};
const json kSide = {{"name", "side"}, {"origin", {5, 2, 1}}, {"target", {0, 0.4, 0}}, {"width", 20}, {"height", 18}, {"fov_y", 28}};

// A sphere on a floor under a point light, seen by `camera` (an object or an array of them).
json scene_doc(const json& camera) {
  return {{"camera", camera},
          {"render", {{"spp", 4}, {"max_depth", 3}, {"seed", 7}}},
          {"materials", {{"red", {{"type", "diffuse"}, {"albedo", {0.8, 0.2, 0.2}}}}, {"grey", {{"type", "diffuse"}, {"albedo", {0.5, 0.5, 0.5}}}}}},
          {"shapes", json::array({{{"name", "ball"}, {"type", "sphere"}, {"center", {0, 0.5, 0}}, {"radius", 0.5}, {"material", "red"}},
                                  {{"name", "floor"}, {"type", "quad"}, {"corner", {-3, 0, -3}}, {"edge_u", {0, 0, 6}},
                                   {"edge_v", {6, 0, 0}}, {"material", "grey"}}})},
          {"lights", json::array({{{"type", "point"}, {"position", {1, 4, 2}}, {"intensity", {30, 30, 30}}}})}};
}

Scene load(const json& doc, const std::vector<std::string>& sets = {}) {
  json d = doc;
  for (const std::string& s : sets) apply_override(d, s);
  return load_scene(d, "sensors.json", true);
}

json without_name(json camera) {
  camera.erase("name");
  return camera;
}

Image render_with(const Scene& scene, const std::vector<std::string>& wrt = {}) {
  RenderOutputs outputs;
  for (const std::string& name : wrt) outputs.wrt.push_back(scene.params.find(name)->slot);
  return render_local(scene, 2, outputs);
}

}  // namespace

TEST_CASE("each of several sensors renders as a scene whose one camera it is, bitwise", "[sensors]") {
  Scene both = load(scene_doc(json::array({kFront, kSide})));
  REQUIRE(both.sensors.size() == 2);
  CHECK(both.sensors[0].name == "camera");
  CHECK(both.sensors[1].name == "side");
  const Image front = render_with(load(scene_doc(kFront))), side = render_with(load(scene_doc(without_name(kSide))));
  const Image first = render_with(both);
  both.sensor = 1;
  const Image second = render_with(both);
  CHECK(first.width == 24);
  CHECK(first.data == front.data);
  CHECK(second.width == 20);
  CHECK(second.height == 18);
  CHECK(second.data == side.data);
  CHECK(std::any_of(second.data.begin(), second.data.end(), [](float v) { return v > 0.05f; }));
}

TEST_CASE("a sensor's parameters are its own: sensors.NAME.*, derivatives by them bitwise as camera.*'s", "[sensors]") {
  Scene both = load(scene_doc(json::array({kFront, kSide})));
  const Scene side = load(scene_doc(without_name(kSide)));
  REQUIRE(both.params.find("camera.fov_y"));
  REQUIRE(both.params.find("sensors.side.fov_y"));
  REQUIRE(both.params.find("sensors.side.origin"));
  // Through the second sensor, d/d its fov and d/d the ball's centre (edges: the boundary term)
  // equal the single-camera scene's.
  both.sensor = 1;
  const Image d_both = render_with(both, {"sensors.side.fov_y", "shapes.ball.center"});
  const Image d_side = render_with(side, {"camera.fov_y", "shapes.ball.center"});
  CHECK(d_both.data == d_side.data);
  // Through the first sensor the second's parameters change nothing.
  both.sensor = 0;
  const Image d_first = render_with(both, {"sensors.side.fov_y"});
  RenderOutputs o;
  o.wrt.resize(1);
  bool zero = true, nonzero_image = false;
  for (int y = 0; y < d_first.height; ++y)
    for (int x = 0; x < d_first.width; ++x) {
      const float* p = d_first.pixel(x, y);
      for (int c = 0; c < 3; ++c) {
        zero = zero && p[o.derivative_channel(0) + c] == 0.f;
        nonzero_image = nonzero_image || p[c] > 0.f;
      }
    }
  CHECK(zero);
  CHECK(nonzero_image);
}

TEST_CASE("--set reaches each sensor: camera.KEY the first's, sensors.NAME.KEY another's", "[sensors]") {
  const json doc = scene_doc(json::array({kFront, kSide}));
  const Scene s = load(doc, {"camera.fov_y=30", "sensors.side.width=12", "sensors.side.fov_y=20"});
  CHECK(s.params.get(s.params.find("camera.fov_y")->slot) == 30.f);
  CHECK(s.params.get(s.params.find("sensors.side.fov_y")->slot) == 20.f);
  CHECK(s.sensors[1].camera.width == 12);
  CHECK(s.sensors[0].camera.width == 24);
  // An unnamed later sensor is sensor1 (its default name) or 1.
  const Scene unnamed = load(scene_doc(json::array({kFront, without_name(kSide)})), {"sensors.sensor1.height=9"});
  CHECK(unnamed.sensors[1].name == "sensor1");
  CHECK(unnamed.sensors[1].camera.height == 9);
  // A parameter update reaches a later sensor's camera and is checked by its rules.
  Scene u = load(doc);
  CHECK_THROWS_WITH(update_params(u, {{"sensors.side.target", {5, 2, 1}}}),
                    Catch::Contains("sensors.side.target: must differ from sensors.side.origin"));
}

TEST_CASE("sensors by name or index, and what is refused", "[sensors]") {
  const Scene s = load(scene_doc(json::array({kFront, kSide})));
  CHECK(sensor_index(s, "side") == 1);
  CHECK(sensor_index(s, "0") == 0);
  CHECK_THROWS_WITH(sensor_index(s, "top"), Catch::Contains("no sensor \"top\": the scene has 0 (camera), 1 (side)"));
  Scene more = s;
  CHECK_THROWS_WITH(add_sensor(more, "side", camera_settings(s, 1)), Catch::Contains("a sensor named \"side\" exists already"));
  CHECK(add_sensor(more, "top", camera_settings(s, 1)) == 2);
  CHECK(more.params.find("sensors.top.fov_y"));
  json twice = kSide;
  twice["name"] = "camera";
  CHECK_THROWS_WITH(load(scene_doc(json::array({kFront, twice}))), Catch::Contains("/camera/1/name: must be a unique name"));
  json dotted = kSide;
  dotted["name"] = "a.b";
  CHECK_THROWS_WITH(load(scene_doc(json::array({kFront, dotted}))), Catch::Contains("/camera/1/name"));
  CHECK_THROWS_WITH(load(scene_doc(json::array())), Catch::Contains("/camera: must be a camera object or an array of at least one"));
  // A crop is every sensor's window: it must fit the smaller film.
  json cropped = scene_doc(json::array({kFront, kSide}));
  cropped["render"]["crop"] = {0, 0, 22, 4};
  CHECK_THROWS_WITH(load(cropped), Catch::Contains("/render/crop: must lie inside every sensor's film: sensor side's is 20x18"));
}
