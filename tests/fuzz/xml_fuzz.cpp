// libFuzzer target: the bytes are a Mitsuba 3 XML scene (renderer/io/mitsuba/xml.h), loaded and
// rendered. Seeds: scenes/mitsuba/*.xml.
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path scene = dray::fuzz::scratch() / "scene.xml";
  dray::fuzz::write_file(scene, data, size);
  dray::fuzz::load_and_render(scene);
  return 0;
}
