#pragma once
// Helpers of the Mitsuba XML tests: a scene file around a body, its render, its load error.
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "renderer/image/image.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"

namespace dray::testing {


inline Image render(const Scene& scene) {
  const int w = scene.own_camera().width, h = scene.own_camera().height;
  std::vector<Tile> tiles = make_tiles(w, h, 8);
  std::vector<int> ids(tiles.size());
  std::iota(ids.begin(), ids.end(), 0);
  Image img(w, h, 3);
  render_tiles(scene, scene.shot(), tiles, ids, img, 2);
  return img;
}

inline std::string load_error(const std::string& path, const std::map<std::string, std::string>& defines = {}) {
  try {
    load_scene(path, {}, false, defines);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

// A scene around `body` with a sensor of 24x16 pixels, 2 spp.
inline std::string scene_xml(const std::string& body, const std::string& version = "3.0.0") {
  return "<scene version=\"" + version + "\">\n" + R"(  <sensor type="perspective">
    <float name="fov" value="40"/>
    <string name="fov_axis" value="y"/>
    <transform name="to_world"><lookat origin="0, 1, 6" target="0, 1, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="24"/><integer name="height" value="16"/><rfilter type="box"/></film>
    <sampler type="independent"><integer name="sample_count" value="2"/></sampler>
  </sensor>
)" + body + "</scene>\n";
}

inline const char* kTetrahedron = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

}  // namespace dray::testing
