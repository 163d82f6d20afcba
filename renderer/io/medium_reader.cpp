#include "renderer/io/medium_reader.h"

#include <algorithm>
#include <tuple>
#include <variant>

#include "renderer/core/registry.h"
#include "renderer/io/json_props.h"
#include "renderer/io/volume_reader.h"

namespace dray {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The media whose coefficients may be volumes (kVolumes), by name.
template <std::size_t I = 0>
std::string volume_media() {
  if constexpr (I == std::variant_size_v<MediumModel>) {
    return {};
  } else {
    using M = std::variant_alternative_t<I, MediumModel>;
    const std::string rest = volume_media<I + 1>();
    if (!M::kVolumes) return rest;
    return rest.empty() ? std::string(M::kPlugins[0]) : std::string(M::kPlugins[0]) + ", " + rest;
  }
}

struct MediumReader {
  const JsonReader& rd;
  Scene& scene;
  fs::path base_dir;

  // `key` of medium m (of plugin `type`): a colour (a parameter, in `domain`) or, where `grids`, a
  // volume object (io/volume_reader.h): a grid (a block) added to scene.volumes, or a constvolume
  // without a to_world (a colour).
  MediumVolume coefficient(const json& m, const std::string& p, const std::string& prefix, const std::string& type,
                           const std::string& key, bool grids, const glm::vec3& fallback, Domain domain) {
    MediumVolume out;
    const std::string kp = p + "/" + key;
    glm::vec3 v = fallback;
    if (m.contains(key) && m[key].is_object()) {
      if (!grids)
        rd.fail(kp, "a " + type + " medium takes a colour (a grid needs a medium that takes volumes: " + volume_media() + ")");
      VolumeObject volume = read_volume_object(rd, scene.params, m[key], kp, base_dir, prefix + key, key, domain, fallback);
      if (volume.grid && volume.grid->repeat && key == "sigma_t")
        rd.fail(kp + "/wrap_mode", "a medium's sigma_t volume bounds it: wrap_mode repeat is for an albedo (clamp here)");
      if (volume.grid) {
        scene.volumes.push_back(std::move(*volume.grid));
        out.grid = int(scene.volumes.size()) - 1;
        return out;
      }
      v = volume.constant;
    } else if (m.contains(key)) {
      v = rd.colour(m[key], kp);
      for (int c = 0; c < 3; ++c)
        if (auto why = domain.violation(v[c])) rd.fail(kp, *why);
    }
    out.constant = scene.params.add(prefix + key, v, domain);
    return out;
  }

  // A phase function object, read by its plugin in the registry (the Phase variant's list,
  // media/phase.h); Mitsuba's isotropic without one.
  Phase phase(const json& j, const std::string& p, const std::string& prefix);

  // Medium `name`: its plugin (the MediumModel variant's list, media/medium.h) reads its keys;
  // then what every medium has (Mitsuba's default scale 1).
  Medium read(const std::string& name, const json& m, const std::string& p);
};

// A medium plugin's keys from its object, its coefficients read by the medium reader.
class JsonMediumProps final : public JsonProps<MediumProps> {
 public:
  JsonMediumProps(MediumReader& r, const json& j, const std::string& p, const std::string& prefix, const std::string& type)
      : JsonProps(r.rd, r.scene.params, j, p, prefix, {"scale", "phase", "sample_emitters"}, type), r_(r) {}
  MediumVolume volume(const std::string& key, bool volumes, const glm::vec3& fallback, Domain domain) override {
    return r_.coefficient(m_, p_, prefix_, type_, key, volumes, fallback, domain);
  }

 private:
  MediumReader& r_;
};

Medium MediumReader::read(const std::string& name, const json& m, const std::string& p) {
  if (!m.is_object() || !m.contains("type")) rd.fail(p + "/type", "required key is missing");
  const std::string type = rd.string(m["type"], p + "/type"), prefix = "media." + name + ".";
  const auto read_model = plugin_reader<MediumModel, MediumProps>(type);
  if (!read_model) rd.fail(p + "/type", "unknown medium \"" + type + "\" (known: " + plugin_names<MediumModel>() + ")");
  Medium md;
  md.name = name;
  JsonMediumProps props(*this, m, p, prefix, type);
  md.model = read_model(props);
  md.scale = scene.params.add(prefix + "scale", m.contains("scale") ? rd.positive(m["scale"], p + "/scale") : 1.f,
                              Domain::positive());
  if (m.contains("phase")) md.phase = phase(m["phase"], p + "/phase", prefix + "phase.");
  if (m.contains("sample_emitters")) md.sample_emitters = rd.boolean(m["sample_emitters"], p + "/sample_emitters");
  return md;
}

// A phase function's keys as it reads them (media/phase_props.h).
class JsonPhaseProps final : public JsonProps<PhaseProps> {
 public:
  JsonPhaseProps(MediumReader& r, const json& j, const std::string& p, const std::string& prefix, const std::string& type)
      : JsonProps(r.rd, r.scene.params, j, p, prefix, {}, type), r_(r) {}
  PhaseBox nested(const std::string& key, int index, const std::string& name) override {
    return {std::make_shared<const Phase>(r_.phase(m_[key][index], path(key) + "/" + std::to_string(index), prefix_ + name + "."))};
  }

 private:
  MediumReader& r_;
};

Phase MediumReader::phase(const json& j, const std::string& p, const std::string& prefix) {
  if (!j.is_object() || !j.contains("type")) rd.fail(p + "/type", "required key is missing");
  const std::string type = rd.string(j["type"], p + "/type");
  const auto read = plugin_reader<Phase, PhaseProps>(type);
  if (!read) rd.fail(p + "/type", "unknown phase function \"" + type + "\" (known: " + plugin_names<Phase>() + ")");
  JsonPhaseProps props(*this, j, p, prefix, type);
  return read(props);
}

}  // namespace

std::map<std::string, int> read_media(const JsonReader& rd, Scene& scene, const json& media, const fs::path& base_dir) {
  if (!media.is_object()) rd.fail("/media", std::string("must be an object, got ") + media.type_name());
  std::map<std::string, int> index;
  MediumReader r{rd, scene, base_dir};
  for (auto it = media.begin(); it != media.end(); ++it) {
    index[it.key()] = int(scene.media.size());
    scene.media.push_back(r.read(it.key(), it.value(), "/media/" + it.key()));
  }
  return index;
}

void check_media_closed(const JsonReader& rd, Scene& scene) {
  for (size_t i = 0; i < scene.shapes.size(); ++i) {
    const Shape& s = scene.shapes[i];
    if (s.interior < 0) continue;
    const size_t open = std::visit([&](const auto& plugin) { return plugin.open_edges(scene); }, s.model);
    if (open > 0)
      scene.warnings.push_back(rd.file() + ": /shapes/" + std::to_string(i) + " (" + s.name + ")/interior: the shape is not closed (" +
                               std::to_string(open) + " open edges): a path that leaves medium \"" + scene.media[size_t(s.interior)].name +
                               "\" through a hole stays in it until it crosses the surface again, as in Mitsuba");
  }
}

}  // namespace dray
