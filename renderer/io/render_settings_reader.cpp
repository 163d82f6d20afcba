#include "renderer/io/render_settings_reader.h"

#include <climits>
#include <variant>
#include <stdexcept>
#include <string>

#include "renderer/core/registry.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/pass.h"

namespace dray {

namespace {

using nlohmann::json;

double in_range(const JsonReader& rd, const json& j, const std::string& p, double lo, double hi) {
  const double v = rd.number(j, p);
  if (!(v >= lo && v <= hi)) rd.fail(p, "must be in [" + fmt_number(lo) + ", " + fmt_number(hi) + "], got " + fmt_number(v));
  return v;
}

// [x0, y0, x1, y1]: pixels [x0, x1) x [y0, y1) of the camera's image.
Tile crop(const JsonReader& rd, const json& j, const std::string& p, const Camera& camera) {
  const int w = camera.width, h = camera.height;
  if (!j.is_array() || j.size() != 4) rd.fail(p, "must be [x0, y0, x1, y1], got " + j.dump());
  const Tile t{int(rd.integer(j[0], p + "/0", 0, w - 1)), int(rd.integer(j[1], p + "/1", 0, h - 1)),
               int(rd.integer(j[2], p + "/2", 1, w)), int(rd.integer(j[3], p + "/3", 1, h))};
  if (!(t.x0 < t.x1 && t.y0 < t.y1))
    rd.fail(p, "needs x0 < x1 and y0 < y1 (pixels [x0, x1) x [y0, y1) of the " + std::to_string(w) + "x" +
                   std::to_string(h) + " image), got " + j.dump());
  return t;
}

// "box", "tent", "gaussian", or an object: {"type": "tent", "radius": R}, {"type": "gaussian", "stddev": S}.
PixelFilter filter(const JsonReader& rd, const json& j, const std::string& p) {
  const bool object = j.is_object();
  if (object) rd.object(j, p, {"type", "radius", "stddev", "B", "C", "lobes"}, {"type"});
  const std::string type = rd.string(object ? j["type"] : j, object ? p + "/type" : p);
  if (object && type != "mitchell" && type != "catmullrom" && type != "lanczos") rd.object(j, p, {"type", "radius", "stddev"}, {"type"});
  if (type == "box") {
    if (object && (j.contains("radius") || j.contains("stddev"))) rd.fail(p, "the box filter takes no parameters (its radius is 0.5)");
    return PixelFilter::box();
  }
  if (type == "tent") {
    if (object && j.contains("stddev")) rd.fail(p + "/stddev", "the tent filter takes a radius, not a stddev");
    return PixelFilter::tent(object && j.contains("radius") ? in_range(rd, j["radius"], p + "/radius", 0.5, 16.0) : 1.0);
  }
  if (type == "gaussian") {
    if (object && j.contains("radius")) rd.fail(p + "/radius", "the gaussian filter's radius is 4 stddev: give stddev");
    return PixelFilter::gaussian(object && j.contains("stddev") ? in_range(rd, j["stddev"], p + "/stddev", 0.125, 4.0) : 0.5);
  }
  if (type == "mitchell" || type == "catmullrom" || type == "lanczos") {
    // Mitsuba's keys: mitchell's B and C, lanczos's lobes (catmullrom takes none).
    const std::vector<std::string> keys = type == "mitchell" ? std::vector<std::string>{"type", "B", "C"}
                                          : type == "lanczos" ? std::vector<std::string>{"type", "lobes"}
                                                              : std::vector<std::string>{"type"};
    if (object) rd.object(j, p, keys, {"type"});
    if (type == "catmullrom") return PixelFilter::catmull_rom();
    if (type == "lanczos") return PixelFilter::lanczos(object && j.contains("lobes") ? int(rd.integer(j["lobes"], p + "/lobes", 1, 8)) : 3);
    return PixelFilter::mitchell(object && j.contains("B") ? in_range(rd, j["B"], p + "/B", 0.0, 1.0) : 1.0 / 3.0,
                                 object && j.contains("C") ? in_range(rd, j["C"], p + "/C", 0.0, 1.0) : 1.0 / 3.0);
  }
  rd.fail(object ? p + "/type" : p, "unknown filter \"" + type + "\" (known: box, tent, gaussian, mitchell, catmullrom, lanczos)");
}

// "stratified", or an object: {"type": "stratified", "jitter": false} (Mitsuba's sampler plugins).
SamplerPlugin sampler(const JsonReader& rd, const json& j, const std::string& p) {
  const bool object = j.is_object();
  if (object) rd.object(j, p, {"type", "jitter"}, {"type"});
  const std::string type = rd.string(object ? j["type"] : j, object ? p + "/type" : p);
  SamplerPlugin out;
  if (!with_plugin<SamplerPlugin>(type, [&](const auto& s) { out = s; }))
    rd.fail(object ? p + "/type" : p, "unknown sampler \"" + type + "\" (known: " + plugin_names<SamplerPlugin>() + ")");
  if (object && j.contains("jitter")) {
    const bool jitter = rd.boolean(j["jitter"], p + "/jitter");
    std::visit([&](auto& s) {
      if constexpr (requires { s.jitter; }) s.jitter = jitter;
      else rd.fail(p + "/jitter", "the " + type + " sampler does not jitter");
    }, out);
  }
  return out;
}

}  // namespace

RenderSettings read_render_settings(const JsonReader& rd, const json& j, const Camera& camera) {
  const std::string p = "/render";
  rd.object(j, p, {"spp", "max_depth", "rr_depth", "seed", "boundary_samples", "boundary_ratio", "indirect_samples", "primary_visibility", "shadow_visibility", "filter", "crop", "integrator", "majorant_cells", "hide_emitters", "aovs", "pixel_format", "sample_border", "splat", "sampler", "emitter_samples", "bsdf_samples"});
  RenderSettings r;
  if (j.contains("spp")) r.spp = int(rd.integer(j["spp"], p + "/spp", 1, 1 << 20));
  // -1: unlimited (Mitsuba's), that is 1024 bounces, Russian roulette ending paths long before.
  if (j.contains("max_depth")) {
    r.max_depth = int(rd.integer(j["max_depth"], p + "/max_depth", -1, 1024));
    if (r.max_depth < 0) r.max_depth = 1024;
  }
  if (j.contains("rr_depth")) r.rr_depth = int(rd.integer(j["rr_depth"], p + "/rr_depth", 0, 1024));
  if (j.contains("seed")) r.seed = uint64_t(rd.integer(j["seed"], p + "/seed", 0, LONG_MAX));
  if (j.contains("boundary_samples"))
    r.boundary_samples = rd.integer(j["boundary_samples"], p + "/boundary_samples", 0, 1L << 40);
  if (j.contains("boundary_ratio")) {
    r.boundary_ratio = rd.number(j["boundary_ratio"], p + "/boundary_ratio");
    if (!(r.boundary_ratio > 0 && r.boundary_ratio <= 64)) rd.fail(p + "/boundary_ratio", "must be in (0, 64]");
  }
  if (j.contains("indirect_samples"))
    r.indirect_samples = rd.integer(j["indirect_samples"], p + "/indirect_samples", 0, 1L << 40);
  if (j.contains("primary_visibility")) r.primary_visibility = rd.boolean(j["primary_visibility"], p + "/primary_visibility");
  if (j.contains("shadow_visibility")) r.shadow_visibility = rd.boolean(j["shadow_visibility"], p + "/shadow_visibility");
  if (j.contains("filter")) r.filter = filter(rd, j["filter"], p + "/filter");
  if (j.contains("sampler")) r.sampler = sampler(rd, j["sampler"], p + "/sampler");
  // Mitsuba's direct integrator: next-event estimation (emitter_samples) and BSDF sampling's hits on
  // emitters (bsdf_samples), each on (1) or off (0), their MIS weights counting only those on.
  if (j.contains("emitter_samples")) r.emitter_samples = int(rd.integer(j["emitter_samples"], p + "/emitter_samples", 0, 1));
  if (j.contains("bsdf_samples")) r.bsdf_samples = int(rd.integer(j["bsdf_samples"], p + "/bsdf_samples", 0, 1));
  if (r.emitter_samples + r.bsdf_samples == 0) rd.fail(p, "emitter_samples and bsdf_samples are both 0: nothing would light the scene");
  if (j.contains("crop")) r.crop = crop(rd, j["crop"], p + "/crop", camera);
  if (j.contains("majorant_cells")) r.majorant_cells = int(rd.integer(j["majorant_cells"], p + "/majorant_cells", 1, 64));
  if (j.contains("hide_emitters")) r.hide_emitters = rd.boolean(j["hide_emitters"], p + "/hide_emitters");
  if (j.contains("sample_border")) r.sample_border = rd.boolean(j["sample_border"], p + "/sample_border");
  // The box filter's splat is its pixel's own mean: the same image, drawn the one way.
  if (j.contains("splat")) r.splat = rd.boolean(j["splat"], p + "/splat") && r.filter.kind != PixelFilter::Kind::box;
  if (r.filter.negative_lobes() && !r.splat)
    rd.fail(p + "/filter", "the " + r.filter.name() + " filter has negative lobes: dray draws it with the splatting film, as Mitsuba's hdrfilm (give render.splat true)");
  if (j.contains("integrator")) {
    const std::string t = rd.string(j["integrator"], p + "/integrator");
    r.integrator = integrator_index(t);
    if (r.integrator < 0)
      rd.fail(p + "/integrator", "unknown integrator \"" + t + "\" (known: " + plugin_names<IntegratorModel>() + ")");
  }
  if (j.contains("aovs")) {
    try {
      r.aovs = parse_aovs(rd.string(j["aovs"], p + "/aovs"));
    } catch (const std::invalid_argument& e) {
      rd.fail(p + "/aovs", e.what());
    }
    if (auto why = integrator_refusal(r, PassAsk::film(!r.aovs.empty(), false))) rd.fail(p + "/aovs", *why);
  }
  if (j.contains("pixel_format")) {
    try {
      r.pixel_format = parse_pixel_format(rd.string(j["pixel_format"], p + "/pixel_format"));
    } catch (const std::invalid_argument& e) {
      rd.fail(p + "/pixel_format", e.what());
    }
    if (auto why = integrator_refusal(r, PassAsk::film(false, has_alpha(r.pixel_format)))) rd.fail(p + "/pixel_format", *why);
  }
  return r;
}

}  // namespace dray
