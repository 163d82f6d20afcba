// libFuzzer target: the bytes are an OBJ file, loaded as the mesh of a fixed scene. Seeds: the
// meshes in scenes/models and a few small hand-written ones (tests/fuzz/obj_seeds).
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dray::fuzz::fuzz_mesh(data, size, "mesh.obj");
  return 0;
}
