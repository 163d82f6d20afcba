#include "renderer/io/volume_reader.h"

#include <glm/gtc/matrix_inverse.hpp>

#include "renderer/io/grid_file.h"

namespace dray {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A 4x4 matrix, row-major (16 numbers).
glm::mat4 matrix(const JsonReader& rd, const json& j, const std::string& p) {
  if (!j.is_array() || j.size() != 16) rd.fail(p, "must be 16 numbers (a 4x4 matrix, row-major)");
  glm::mat4 m;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) m[c][r] = float(rd.number(j[size_t(4 * r + c)], p + "/" + std::to_string(4 * r + c)));
  return m;
}

// Grid g's values as the block `name`, on the unit cube under the volume's to_world.
GridVolume place_grid(const JsonReader& rd, ParamTable& params, GridVolume g, const std::vector<float>& values,
                      const json& volume, const std::string& p, const std::string& name, Domain domain) {
  const glm::mat4 to_world = volume.contains("to_world") ? matrix(rd, volume["to_world"], p + "/to_world") : glm::mat4(1.f);
  g.to_local = glm::inverse(to_world);
  g.lo = glm::vec3(INFINITY);
  g.hi = glm::vec3(-INFINITY);
  for (int k = 0; k < 8; ++k) {
    const glm::vec3 c = glm::vec3(to_world * glm::vec4(float(k & 1), float((k >> 1) & 1), float((k >> 2) & 1), 1.f));
    g.lo = glm::min(g.lo, c);
    g.hi = glm::max(g.hi, c);
  }
  g.data = params.add_block(name, values, {uint32_t(g.res.z), uint32_t(g.res.y), uint32_t(g.res.x), uint32_t(g.channels)}, domain);
  return g;
}

}  // namespace

VolumeObject read_volume_object(const JsonReader& rd, ParamTable& params, const json& j, const std::string& p,
                                const fs::path& base_dir, const std::string& block, const std::string& key, Domain domain,
                                const glm::vec3& fallback) {
  rd.object(j, p, {"type", "filename", "to_world", "value", "wrap_mode"}, {"type"});
  const std::string type = rd.string(j["type"], p + "/type");
  VolumeObject out;
  if (type == "constvolume") {
    rd.object(j, p, {"type", "value", "to_world"});
    const glm::vec3 v = j.contains("value") ? rd.colour(j["value"], p + "/value") : fallback;
    for (int c = 0; c < 3; ++c)
      if (auto why = domain.violation(v[c])) rd.fail(p + "/value", *why);
    out.constant = v;
    if (!j.contains("to_world")) return out;  // the value everywhere
    // Mitsuba's: the value inside the unit cube under to_world.
    GridVolume g;
    g.channels = 3;
    out.grid = place_grid(rd, params, std::move(g), {v.x, v.y, v.z}, j, p, block, domain);
    return out;
  }
  if (type != "gridvolume") rd.fail(p + "/type", "unknown volume \"" + type + "\" (known: gridvolume, constvolume)");
  rd.object(j, p, {"type", "filename", "to_world", "wrap_mode"}, {"filename"});
  GridVolume g;
  if (j.contains("wrap_mode")) {
    const std::string wrap = rd.string(j["wrap_mode"], p + "/wrap_mode");
    if (wrap != "clamp" && wrap != "repeat") rd.fail(p + "/wrap_mode", "must be \"clamp\" or \"repeat\", got \"" + wrap + "\"");
    g.repeat = wrap == "repeat";
  }
  std::vector<float> values;
  const std::string rel = rd.string(j["filename"], p + "/filename");
  const fs::path file = fs::path(rel).is_absolute() ? fs::path(rel) : base_dir / rel;
  try {
    read_grid_file(file.string(), g, values);
  } catch (const LoadError& e) {
    rd.fail(p + "/filename", e.what());
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (auto why = domain.violation(values[i]))
      rd.fail(p + "/filename", file.string() + ": voxel value " + std::to_string(i) + ": " + key + " " + *why);
  out.grid = place_grid(rd, params, std::move(g), values, j, p, block, domain);
  return out;
}

}  // namespace dray
