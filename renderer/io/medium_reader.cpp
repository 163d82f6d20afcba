#include "renderer/io/medium_reader.h"

#include <glm/gtc/matrix_inverse.hpp>

#include <algorithm>
#include <tuple>

#include "renderer/core/registry.h"
#include "renderer/io/json_props.h"
#include "renderer/io/vol_file.h"

namespace dray {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct MediumReader {
  const JsonReader& rd;
  Scene& scene;
  fs::path base_dir;

  // A 4x4 matrix, row-major (16 numbers).
  glm::mat4 matrix(const json& j, const std::string& p) const {
    if (!j.is_array() || j.size() != 16) rd.fail(p, "must be 16 numbers (a 4x4 matrix, row-major)");
    glm::mat4 m;
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) m[c][r] = float(rd.number(j[size_t(4 * r + c)], p + "/" + std::to_string(4 * r + c)));
    return m;
  }

  // A grid volume's values (res.z × res.y × res.x × channels) as the block `name`, on the unit cube
  // under the volume's to_world (identity without one); returns its index in scene.volumes.
  int add_grid(GridVolume g, const std::vector<float>& values, const json& volume, const std::string& kp,
               const std::string& name, Domain domain) {
    const glm::mat4 to_world = volume.contains("to_world") ? matrix(volume["to_world"], kp + "/to_world") : glm::mat4(1.f);
    g.to_local = glm::inverse(to_world);
    g.lo = glm::vec3(INFINITY);
    g.hi = glm::vec3(-INFINITY);
    for (int k = 0; k < 8; ++k) {
      const glm::vec3 c = glm::vec3(to_world * glm::vec4(float(k & 1), float((k >> 1) & 1), float((k >> 2) & 1), 1.f));
      g.lo = glm::min(g.lo, c);
      g.hi = glm::max(g.hi, c);
    }
    g.data = scene.params.add_block(name, values, {uint32_t(g.res.z), uint32_t(g.res.y), uint32_t(g.res.x), uint32_t(g.channels)},
                                    domain);
    scene.volumes.push_back(std::move(g));
    return int(scene.volumes.size()) - 1;
  }

  // `key` of medium m: a colour (a parameter, in `domain`) or, in a heterogeneous medium, a grid
  // volume ({"type": "gridvolume", "filename", "to_world"}: a block) or a constant volume (a colour;
  // given a to_world, Mitsuba's constvolume: a one-voxel block, the medium only inside its box).
  void coefficient(const json& m, const std::string& p, const std::string& prefix, const char* key, bool grids,
                   const glm::vec3& fallback, Domain domain, Slot& slot, int& grid) {
    const std::string kp = p + "/" + key;
    const json* j = m.contains(key) ? &m[key] : nullptr;
    if (j && j->is_object()) {
      if (!grids) rd.fail(kp, "a homogeneous medium takes a colour (a grid needs \"type\": \"heterogeneous\")");
      rd.object(*j, kp, {"type", "filename", "to_world", "value"}, {"type"});
      const std::string type = rd.string((*j)["type"], kp + "/type");
      if (type == "constvolume" && !j->contains("to_world")) {  // the value everywhere: a colour
        rd.object(*j, kp, {"type", "value"});
        j = j->contains("value") ? &(*j)["value"] : nullptr;
      } else if (type == "constvolume") {  // Mitsuba's: the value inside the unit cube under to_world
        const glm::vec3 v = j->contains("value") ? rd.colour((*j)["value"], kp + "/value") : fallback;
        for (int c = 0; c < 3; ++c)
          if (auto why = domain.violation(v[c])) rd.fail(kp + "/value", *why);
        GridVolume g;
        g.channels = 3;
        grid = add_grid(std::move(g), {v.x, v.y, v.z}, *j, kp, prefix + key, domain);
        return;
      } else if (type == "gridvolume") {
        rd.object(*j, kp, {"type", "filename", "to_world"}, {"filename"});
        GridVolume g;
        std::vector<float> values;
        const std::string rel = rd.string((*j)["filename"], kp + "/filename");
        const fs::path file = fs::path(rel).is_absolute() ? fs::path(rel) : base_dir / rel;
        try {
          read_vol_file(file.string(), g, values);
        } catch (const LoadError& e) {
          rd.fail(kp + "/filename", e.what());
        }
        for (size_t i = 0; i < values.size(); ++i)
          if (auto why = domain.violation(values[i]))
            rd.fail(kp + "/filename", file.string() + ": voxel value " + std::to_string(i) + ": " + key + " " + *why);
        grid = add_grid(std::move(g), values, *j, kp, prefix + key, domain);
        return;
      } else {
        rd.fail(kp + "/type", "unknown volume \"" + type + "\" (known: gridvolume, constvolume)");
      }
    }
    glm::vec3 v = j ? rd.colour(*j, kp) : fallback;
    for (int c = 0; c < 3; ++c)
      if (auto why = domain.violation(v[c])) rd.fail(kp, *why);
    slot = scene.params.add(prefix + key, v, domain);
  }

  // A phase function object, read by its plugin in the registry (the Phase variant's list,
  // media/phase.h); Mitsuba's isotropic without one.
  Phase phase(const json& j, const std::string& p, const std::string& prefix);

  Medium read(const std::string& name, const json& m, const std::string& p) {
    if (!m.is_object() || !m.contains("type")) rd.fail(p + "/type", "required key is missing");
    const std::string type = rd.string(m["type"], p + "/type"), prefix = "media." + name + ".";
    if (type != "homogeneous" && type != "heterogeneous")
      rd.fail(p + "/type", "unknown medium \"" + type + "\" (known: homogeneous, heterogeneous)");
    rd.object(m, p, {"type", "sigma_t", "albedo", "scale", "phase", "sample_emitters", "majorant_factor"});
    Medium md;
    md.name = name;
    md.homogeneous = type == "homogeneous";
    const bool grids = !md.homogeneous;
    // Mitsuba's defaults: σt 1, albedo 0.75, scale 1.
    coefficient(m, p, prefix, "sigma_t", grids, glm::vec3(1.f), Domain::at_least(0), md.sigma_t, md.sigma_t_grid);
    coefficient(m, p, prefix, "albedo", grids, glm::vec3(0.75f), Domain::closed(0, 1), md.albedo, md.albedo_grid);
    md.scale = scene.params.add(prefix + "scale", m.contains("scale") ? rd.positive(m["scale"], p + "/scale") : 1.f,
                                Domain::positive());
    if (m.contains("phase")) md.phase = phase(m["phase"], p + "/phase", prefix + "phase.");
    if (m.contains("sample_emitters")) md.sample_emitters = rd.boolean(m["sample_emitters"], p + "/sample_emitters");
    if (m.contains("majorant_factor")) {
      const std::string mp = p + "/majorant_factor";
      if (md.homogeneous) rd.fail(mp, "only a heterogeneous medium has a majorant (a homogeneous one samples σt exactly)");
      const double f = rd.number(m["majorant_factor"], mp);
      if (!(f >= 1.0)) rd.fail(mp, "must be >= 1 (a majorant below the density biases the image), got " + fmt_number(f));
      md.majorant_factor = float(f);
    }
    return md;
  }
};

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

// The edges of a mesh that bound one face only, its vertices welded by position (an OBJ's
// corners with distinct normals or UVs are distinct vertices of one surface).
size_t open_edges(const Mesh& mesh) {
  std::map<std::tuple<float, float, float>, uint32_t> id;
  auto weld = [&](uint32_t v) {
    const glm::vec3& p = mesh.object_positions[v];
    return id.emplace(std::make_tuple(p.x, p.y, p.z), uint32_t(id.size())).first->second;
  };
  std::map<std::pair<uint32_t, uint32_t>, int> faces;
  for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3)
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = weld(mesh.indices[t + size_t(k)]), b = weld(mesh.indices[t + size_t((k + 1) % 3)]);
      if (a != b) ++faces[std::minmax(a, b)];
    }
  size_t open = 0;
  for (const auto& [edge, n] : faces) open += n == 1;
  return open;
}

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

void check_media_closed(const JsonReader& rd, const Scene& scene) {
  for (size_t i = 0; i < scene.shapes.size(); ++i) {
    const Shape& s = scene.shapes[i];
    if (s.interior < 0) continue;
    size_t open = 0;
    if (s.kind == Shape::Kind::quad) open = 4;
    if (s.kind == Shape::Kind::mesh) open = open_edges(scene.meshes[s.mesh]);
    if (open > 0)
      rd.fail("/shapes/" + std::to_string(i) + " (" + s.name + ")/interior",
              "the shape is not closed (" + std::to_string(open) + " open edges): medium \"" +
                  scene.media[size_t(s.interior)].name + "\" inside it would leak out");
  }
}

}  // namespace dray
