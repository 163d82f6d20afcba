#pragma once
// Shared by the libFuzzer targets: a scratch folder, and the check every input goes through.
// An input may be rejected only with LoadError (what the command line reports as bad input,
// exit 2); any other exception, a crash, or a sanitizer finding is a bug.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "renderer/integrators/render_tiles.h"
#include "renderer/io/scene_loader.h"

namespace dray::fuzz {

// A folder of this process's own, with `models` linked to the example meshes so that seeds
// taken from scenes/ load.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    namespace fs = std::filesystem;
    fs::path d = fs::temp_directory_path() / ("dray-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::error_code ec;
    fs::create_directory_symlink(fs::path(DRAY_SOURCE_DIR) / "scenes" / "models", d / "models", ec);
    return d;
  }();
  return dir;
}

inline void write_file(const std::filesystem::path& path, const uint8_t* data, size_t size) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), std::streamsize(size));
}

// Renders a 4x4 image of the scene at 1 sample per pixel (depth at most 4): enough to run the BVH
// and the kernel over whatever geometry and values the input made. Aborts on a non-finite pixel.
inline void render_checked(Scene& scene) {
  scene.own_camera().width = scene.own_camera().height = 4;
  scene.render.spp = 1;
  scene.render.max_depth = std::min(scene.render.max_depth, 4);
  Image img = render_local(scene, 1);
  for (float v : img.data)
    if (!std::isfinite(v)) {
      std::fprintf(stderr, "a non-finite value reached the image\n");
      std::abort();
    }
}

// Loads the scene and, when it loads, renders it (render_checked). Only LoadError may refuse it.
inline void load_and_render(const std::filesystem::path& scene_path) {
  Scene scene;
  try {
    scene = load_scene(scene_path.string(), {});
  } catch (const LoadError&) {
    return;  // bad input, reported as such
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a LoadError: %s\n", e.what());
    std::abort();
  }
  render_checked(scene);
}

// The bytes as the mesh file `name` (mesh.obj, mesh.ply) of a fixed scene, loaded and rendered.
inline void fuzz_mesh(const uint8_t* data, size_t size, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path& dir = scratch();
  const fs::path scene = dir / (name + "-scene.json");
  if (!fs::exists(scene))
    std::ofstream(scene) << R"({
      "camera": { "origin": [0, 0.5, 3], "target": [0, 0.5, 0], "width": 4, "height": 4 },
      "materials": { "grey": { "type": "diffuse", "albedo": 0.5, "emission": 0.2 } },
      "shapes": [ { "type": "mesh", "file": ")" + name + R"(", "material": "grey" } ],
      "lights": [ { "type": "point", "position": [0, 2, 2], "intensity": 5 } ] })";
  write_file(dir / name, data, size);
  load_and_render(scene);
}

}  // namespace dray::fuzz
