#include "renderer/integrators/aov.h"

#include <array>
#include <stdexcept>

#include "renderer/integrators/pixel_estimate.h"

namespace dray {

namespace {

struct AovKind {
  const char* name;
  AovType type;
  const char* channels;  // one letter each: dd:depth is dd.T
};

constexpr std::array<AovKind, 7> kKinds = {{{"depth", AovType::depth, "T"},
                                            {"position", AovType::position, "XYZ"},
                                            {"uv", AovType::uv, "UV"},
                                            {"geo_normal", AovType::geo_normal, "XYZ"},
                                            {"sh_normal", AovType::sh_normal, "XYZ"},
                                            {"prim_index", AovType::prim_index, "I"},
                                            {"shape_index", AovType::shape_index, "I"}}};

const AovKind& kind_of(AovType t) {
  for (const AovKind& k : kKinds)
    if (k.type == t) return k;
  throw std::logic_error("unknown AOV type");
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The AOVs of what the camera ray `ray` (as Mitsuba builds it: from the pinhole, the lens point or
// the film plane, `shift` before dray's ray origin) first meets, added to sum.
void add_first_hit(const Scene& scene, const std::vector<Aov>& aovs, const RayT<float>& ray, float shift, double* sum) {
  Hit hit;
  const bool found = scene.bvh.intersect(ray.detached(), hit);
  const ParamView<float> P(scene.params);
  PrimT<float> prim{};
  SurfacePoint<float> sp{};
  PrimRef ref{};
  if (found) {
    prim = lift_prim(scene, P, hit.prim);
    sp = eval_hit(prim, ray, hit, 0.f);
    ref = scene.bvh.prim_ref(hit.prim);
  }
  for (const Aov& a : aovs) {
    glm::vec3 v(0.f);
    if (found) {
      switch (a.type) {
        case AovType::depth: v.x = hit.t + shift; break;
        case AovType::position: v = to_glm(sp.p); break;
        case AovType::uv: v = glm::vec3(surface_uv(scene, hit.prim, prim, to_glm(sp.p)), 0.f); break;
        case AovType::geo_normal: v = to_glm(sp.n); break;
        case AovType::sh_normal: v = to_glm(shading_normal(scene, P, hit.prim, prim, sp.p, sp.n)); break;
        case AovType::prim_index: v.x = float(ref.index); break;
        case AovType::shape_index: v.x = float(ref.shape + 1); break;  // Mitsuba's: 1 + the shape's index, 0 for none
      }
    }
    const int n = int(std::string(kind_of(a.type).channels).size());
    for (int c = 0; c < n; ++c) *sum++ += double(v[c]);
  }
}

}  // namespace

std::vector<Aov> parse_aovs(const std::string& spec) {
  std::vector<Aov> out;
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string item = trimmed(spec.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || item.find(':', colon + 1) != std::string::npos)
      throw std::invalid_argument("\"" + item + "\": expected name:type (e.g. dd.y:depth)");
    const std::string name = trimmed(item.substr(0, colon)), type = trimmed(item.substr(colon + 1));
    const AovKind* kind = nullptr;
    for (const AovKind& k : kKinds)
      if (type == k.name) kind = &k;
    if (!kind)
      throw std::invalid_argument("\"" + item + "\": unsupported AOV type \"" + type +
                                  "\" (supported: depth, position, uv, geo_normal, sh_normal, prim_index, shape_index)");
    out.push_back({name, kind->type});
  }
  if (out.empty()) throw std::invalid_argument("no AOV given (expected name:type, e.g. dd.y:depth)");
  return out;
}

std::string aovs_spec(const std::vector<Aov>& aovs) {
  std::string s;
  for (const Aov& a : aovs) s += (s.empty() ? "" : ",") + a.name + ":" + kind_of(a.type).name;
  return s;
}

std::vector<std::string> aov_channel_names(const std::vector<Aov>& aovs) {
  std::vector<std::string> names;
  for (const Aov& a : aovs)
    for (const char* c = kind_of(a.type).channels; *c; ++c) names.push_back(a.name + "." + std::string(1, *c));
  return names;
}

void aov_pixel(const Scene& scene, int x, int y, float* out) {
  const std::vector<Aov>& aovs = scene.render.aovs;
  const size_t n = aov_channel_names(aovs).size();
  std::vector<double> sum(n, 0.0);
  const uint64_t pixel = uint64_t(y) * uint64_t(scene.camera().width) + uint64_t(x);
  const CameraFrame<float> frame = camera_frame(scene.camera(), ParamView<float>(scene.params));
  for (int s = 0; s < scene.render.spp; ++s) {
    Sampler sampler(scene.render.seed, pixel, uint64_t(s));  // the image's own film positions
    const RayT<float> ray = camera_ray(frame, film_sample(scene, sampler, x, y));
    const float shift = frame.near_clip > 0.f ? frame.near_clip / glm::dot(to_glm(ray.d), to_glm(frame.forward)) : 0.f;
    add_first_hit(scene, aovs, ray, shift, sum.data());
  }
  for (size_t c = 0; c < n; ++c) out[c] = to_image_float(sum[c] / double(scene.render.spp));
}

}  // namespace dray
