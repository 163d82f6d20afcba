// libFuzzer target: scene.update (renderer/scene_params.h, what Python's Scene.update and the
// optimizer go through). The first byte picks a scene; then every 7 bytes are one update: a
// parameter (2 bytes, by index), whole or one component (1 byte), and a float's raw bits (4 bytes:
// NaN, infinities and huge values included). A refused update must leave every value as it was;
// an accepted one must satisfy every rule and render finite values. FUZZ_TRACE=1 prints each
// update (to read a finding: FUZZ_TRACE=1 build-fuzz/tests/fuzz/update_fuzz FILE).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "renderer/scene_params.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

const std::vector<dray::Scene>& scenes() {
  static const std::vector<dray::Scene> all = [] {
    std::vector<dray::Scene> s;
    for (const char* f : {"scenes/spheres.json", "scenes/cbox-fit.json", "scenes/roughness-fit.json", "scenes/light-fit.json",
                          "scenes/texture-fit.json", "scenes/mitsuba/spheres.xml"}) {
      const std::string path = std::string(DRAY_SOURCE_DIR) + "/" + f;
      if (std::filesystem::exists(path)) s.push_back(dray::load_scene(path, {"camera.width=4", "camera.height=4"}));
    }
    return s;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || scenes().empty()) return 0;
  dray::Scene scene = scenes()[data[0] % scenes().size()];
  const auto& entries = scene.params.entries();
  for (size_t at = 1; at + 7 <= size; at += 7) {
    uint16_t which;
    float value;
    std::memcpy(&which, data + at, 2);
    std::memcpy(&value, data + at + 3, 4);
    const dray::ParamEntry& e = entries[which % entries.size()];
    const uint8_t mode = data[at + 2];
    if (std::getenv("FUZZ_TRACE")) std::fprintf(stderr, "update %s mode %d value %g\n", e.name.c_str(), mode, value);
    dray::ParamUpdate u;
    if (mode & 1 || e.size == 1) {
      u = {e.name, std::vector<float>(e.size, value)};
    } else {
      const uint32_t k = (mode >> 1) % e.size;
      u = {dray::scalar_name(scene.params, e.slot + k), {value}};
    }
    const std::vector<float> before = scene.params.values();
    try {
      dray::update_params(scene, {u});
    } catch (const dray::LoadError&) {
      if (std::memcmp(before.data(), scene.params.values().data(), before.size() * sizeof(float)) != 0) {
        std::fprintf(stderr, "a refused update changed the scene\n");
        std::abort();
      }
      continue;
    }
    if (auto why = dray::param_violation(scene)) {
      std::fprintf(stderr, "an accepted update broke a rule: %s\n", why->c_str());
      std::abort();
    }
  }
  dray::fuzz::render_checked(scene);
  return 0;
}
