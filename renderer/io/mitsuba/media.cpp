// Mitsuba media (src/media), their phase functions (src/phase) and volumes (src/volumes) as the
// scene document's /media (renderer/io/medium_reader.cpp reads them).
#include <algorithm>

#include "renderer/io/mitsuba/converter.h"
#include "renderer/core/registry.h"
#include "renderer/media/medium.h"

namespace dray::mitsuba {

std::string Converter::medium(const pugi::xml_node& ref_or_medium) {
  const pugi::xml_node n = resolve(ref_or_medium, "medium");
  const std::string name = n.attribute("id") ? safe(x_.attr(n, "id")) : "medium" + std::to_string(media_.size());
  if (media_.contains(name)) return name;  // a <ref> to a medium converted before
  if (n.attribute("id")) mitsuba_id("media." + name, x_.attr(n, "id"));
  const std::string type = x_.attr(n, "type");
  bool volumes = false;        // whether its coefficients may be volumes (media/medium.h's registry)
  bool albedo_volume = false;  // whether its albedo may be one (a homogeneous medium's too)
  if (!with_plugin<MediumModel>(type, [&](const auto& m) {
        volumes = m.kVolumes;
        albedo_volume = m.kAlbedoVolume;
      }))
    x_.fail(n, "unsupported medium (supported: " + plugin_names<MediumModel>() + ")");
  Properties props(x_, n);
  json m = {{"type", type}};
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    if (tag(c) == "phase") {
      put(m, "phase", c, phase(c));
    } else if (tag(c) == "volume") {
      const std::string key = x_.attr(c, "name");
      if (key != "sigma_t" && key != "albedo") x_.fail(c, "a medium's volume is named sigma_t or albedo");
      if (!(key == "albedo" ? albedo_volume : volumes)) x_.fail(c, "a " + type + " medium takes no " + key + " volume");
      put(m, key, c, volume(c, key == "sigma_t"));
    } else {
      props.set(c, property(c));
    }
  }
  for (const char* key : {"sigma_t", "albedo"})
    if (json v = props.take(key, nullptr); !v.is_null()) m[key] = v;
  // Mitsuba's medium of volumes wraps a plain sigma_t (default 1) in a constvolume, whose box, the
  // unit cube, bounds the medium.
  if (volumes && (!m.contains("sigma_t") || !m["sigma_t"].is_object()))
    m["sigma_t"] = {{"type", "constvolume"}, {"value", m.value("sigma_t", json(1.0))}, {"to_world", matrix(glm::dmat4(1.0))}};
  if (const double scale = props.number("scale", 1.0); scale != 1.0) m["scale"] = scale;
  if (!props.flag("sample_emitters", true)) m["sample_emitters"] = false;
  if (json f = props.take("majorant_factor", nullptr); !f.is_null()) m["majorant_factor"] = f;  // its plugin reads it
  props.flag("has_spectral_extinction", true);  // a hint for Mitsuba's sampling: dray's is unbiased either way
  props.finish("a " + type + " medium");
  media_[name] = m;
  locate("/media/" + name, n);
  return name;
}

json Converter::volume(const pugi::xml_node& n, bool bounded) {
  const std::string type = x_.attr(n, "type");
  Properties props(x_, n);
  glm::dmat4 to_world(1.0);
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    if (tag(c) == "transform") {
      if (x_.attr(c, "name") != "to_world") x_.fail(c, "a volume's transform must be named to_world");
      to_world = x_.transform(c);
    } else {
      props.set(c, property(c));
    }
  }
  json v = {{"type", type}};
  if (type == "gridvolume") {
    v["filename"] = file_ref(n, props.take("filename", ""));
    if (props.flag("use_grid_bbox", false)) x_.fail(n, "use_grid_bbox=true is not supported (the grid spans [0, 1]^3 under to_world)");
    if (props.take("filter_type", "trilinear") != "trilinear") x_.fail(n, "filter_type must be trilinear (dray's only filter)");
    const json wrap = props.take("wrap_mode", "clamp");
    if (wrap != "clamp" && wrap != "repeat") x_.fail(n, "wrap_mode must be clamp or repeat (dray has no mirror for grids)");
    if (wrap == "repeat") v["wrap_mode"] = "repeat";
    props.flag("raw", false);  // RGB rendering: no spectral upsampling either way
    if (to_world != glm::dmat4(1.0)) v["to_world"] = matrix(to_world);
  } else if (type == "constvolume") {
    v["value"] = props.take("value", 1.0);
    // Mitsuba bounds a medium of volumes by its sigma_t volume's box, the unit cube under the
    // volume's to_world, a constant one's too: the box goes along (an albedo's changes nothing).
    if (bounded) v["to_world"] = matrix(to_world);
  } else {
    x_.fail(n, "unsupported volume (supported: gridvolume, constvolume)");
  }
  props.finish("a " + type);
  return v;
}

// A phase function passes through with Mitsuba's keys (its plugin, media/phase.h's registry, reads
// them and names what it does not know); the phase functions nested in one, in the order of their names
// (Mitsuba's), become its "phase" array.
json Converter::phase(const pugi::xml_node& n) {
  json p = {{"type", x_.attr(n, "type")}};
  std::vector<std::pair<std::string, pugi::xml_node>> nested;
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    if (tag(c) == "phase") nested.emplace_back(c.attribute("name").as_string(), c);
    else put(p, x_.attr(c, "name"), c, property(c));
  }
  std::stable_sort(nested.begin(), nested.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, c] : nested) p["phase"].push_back(phase(c));
  return p;
}

}  // namespace dray::mitsuba
