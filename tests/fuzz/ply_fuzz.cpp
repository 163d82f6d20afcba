// libFuzzer target: the bytes are a PLY file (renderer/io/ply_file.h), loaded as the mesh of a
// fixed scene. Seeds: tests/fuzz/ply_seeds (ASCII, binary little and big endian).
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dray::fuzz::fuzz_mesh(data, size, "mesh.ply");
  return 0;
}
