// libFuzzer target: the bytes are a scene file (JSON). Seeds: the scenes in scenes/.
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = dray::fuzz::scratch() / "scene.json";
  dray::fuzz::write_file(path, data, size);
  dray::fuzz::load_and_render(path);
  return 0;
}
