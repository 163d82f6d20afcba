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

// The AOVs of `hit`, what the camera ray `ray` first meets (as Mitsuba builds the ray: from the
// pinhole, the lens point or the film plane, `shift` before dray's ray origin), added to sum.
void add_first_hit(const Scene& scene, const std::vector<Aov>& aovs, const RayT<float>& ray, const Hit& hit, float shift,
                   double* sum) {
  const ParamView<float> P(scene.params);
  const PrimT<float> prim = lift_prim(scene, P, hit.prim);
  const SurfacePoint<float> sp = eval_hit(prim, ray, hit, 0.f);
  const PrimRef ref = scene.bvh.prim_ref(hit.prim);
  for (const Aov& a : aovs) {
    glm::vec3 v(0.f);
    switch (a.type) {
      case AovType::depth: v.x = hit.t + shift; break;
      case AovType::position: v = to_glm(sp.p); break;
      case AovType::uv: v = glm::vec3(surface_uv(scene, hit.prim, prim, to_glm(sp.p)), 0.f); break;
      case AovType::geo_normal: v = to_glm(sp.n); break;
      case AovType::sh_normal: v = to_glm(shading_normal(scene, P, hit.prim, prim, sp.p, sp.n)); break;
      case AovType::prim_index: v.x = float(ref.index); break;
      case AovType::shape_index: v.x = float(ref.shape + 1); break;  // Mitsuba's: 1 + the shape's index, 0 for none
    }
    const int n = int(std::string(kind_of(a.type).channels).size());
    for (int c = 0; c < n; ++c) *sum++ += double(v[c]);
  }
}

// Whether the camera ray's first hit makes the sample opaque, as Mitsuba's path integrator's
// valid_ray: a surface, or the environment when it is seen; with max_depth 0 (Mitsuba's 1) an
// emitter only.
float alpha_of(const Scene& scene, bool found, const Hit& hit) {
  const bool env = scene.environment >= 0 && !scene.render.hide_emitters;
  if (!found) return env ? 1.f : 0.f;
  if (scene.render.max_depth > 0) return 1.f;
  return env || (scene.materials[scene.material_of(hit.prim)].emissive && !scene.render.hide_emitters) ? 1.f : 0.f;
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

namespace {
constexpr std::array<const char*, 6> kFormats = {"rgb", "rgba", "luminance", "luminance_alpha", "xyz", "xyza"};
}  // namespace

const char* pixel_format_name(PixelFormat f) { return kFormats[size_t(f)]; }

PixelFormat parse_pixel_format(const std::string& name) {
  for (size_t i = 0; i < kFormats.size(); ++i)
    if (name == kFormats[i]) return PixelFormat(i);
  throw std::invalid_argument("unknown pixel format \"" + name + "\" (known: rgb, rgba, luminance, luminance_alpha, xyz, xyza)");
}

std::vector<std::string> extra_channel_names(const Scene& scene) {
  std::vector<std::string> names;
  if (has_alpha(scene.render.pixel_format)) names.push_back("A");
  for (const std::string& n : aov_channel_names(scene.render.aovs)) names.push_back(n);
  return names;
}

void aov_pixel(const Scene& scene, int x, int y, float* out) {
  const std::vector<Aov>& aovs = scene.render.aovs;
  const bool alpha = has_alpha(scene.render.pixel_format);
  const size_t n = extra_channel_names(scene).size();
  std::vector<double> sum(n, 0.0);
  const uint64_t pixel = uint64_t(y) * uint64_t(scene.camera().width) + uint64_t(x);
  const CameraFrame<float> frame = camera_frame(scene.camera(), ParamView<float>(scene.params));
  for (int s = 0; s < scene.render.spp; ++s) {
    Sampler sampler(scene.render.seed, pixel, uint64_t(s));  // the image's own film positions
    const RayT<float> ray = camera_ray(frame, film_sample(scene, sampler, x, y));
    const float shift = frame.near_clip > 0.f ? frame.near_clip / glm::dot(to_glm(ray.d), to_glm(frame.forward)) : 0.f;
    Hit hit;
    const bool found = scene.bvh.intersect(ray.detached(), hit);
    if (alpha) sum[0] += alpha_of(scene, found, hit);
    if (found) add_first_hit(scene, aovs, ray, hit, shift, sum.data() + (alpha ? 1 : 0));
  }
  for (size_t c = 0; c < n; ++c) out[c] = to_image_float(sum[c] / double(scene.render.spp));
}

}  // namespace dray
