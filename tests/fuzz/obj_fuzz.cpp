// libFuzzer target: the bytes are an OBJ file, loaded as the mesh of a fixed scene. Seeds: the
// meshes in scenes/models and a few small hand-written ones (tests/fuzz/obj_seeds).
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  const fs::path& dir = dray::fuzz::scratch();
  static const fs::path scene = [&] {
    fs::path p = dir / "obj-scene.json";
    std::ofstream(p) << R"({
      "camera": { "origin": [0, 0.5, 3], "target": [0, 0.5, 0], "width": 4, "height": 4 },
      "materials": { "grey": { "type": "diffuse", "albedo": 0.5, "emission": 0.2 } },
      "shapes": [ { "type": "mesh", "file": "mesh.obj", "material": "grey" } ],
      "lights": [ { "type": "point", "position": [0, 2, 2], "intensity": 5 } ] })";
    return p;
  }();
  dray::fuzz::write_file(dir / "mesh.obj", data, size);
  dray::fuzz::load_and_render(scene);
  return 0;
}
