#include "renderer/scene_params.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/core/load_error.h"

namespace dray {

FrameProblem frame_problem(const glm::vec3& from, const glm::vec3& to, const glm::vec3& up) {
  if (from == to) return FrameProblem::same_point;
  const glm::vec3 fwd = to - from;
  const float distance = glm::length(fwd);
  if (!std::isfinite(distance)) return FrameProblem::too_far;
  if (!(distance > 0.f)) return FrameProblem::too_near;
  const glm::dvec3 fd(fwd), ud(up);
  if (!(glm::length(glm::cross(fd, ud)) > 1e-6 * glm::length(fd) * glm::length(ud))) return FrameProblem::up_parallel;
  const float right = glm::length(glm::cross(fwd / distance, up));
  if (!(right > 0.f) || !std::isfinite(right)) return FrameProblem::up_too_short;
  return FrameProblem::none;
}

const ParamEntry& entry_of(const ParamTable& table, Slot s) {
  const auto& es = table.entries();
  auto it = std::upper_bound(es.begin(), es.end(), s, [](Slot v, const ParamEntry& e) { return v < e.slot; });
  return *(it - 1);
}

std::string scalar_name(const ParamTable& table, Slot s) {
  const ParamEntry& e = entry_of(table, s);
  if (e.size == 1) return e.name;
  uint32_t k = s - e.slot;
  if (!e.block()) return e.name + "[" + std::to_string(k) + "]";
  std::string index;
  for (size_t d = e.shape.size(); d-- > 0;) {
    index = std::to_string(k % e.shape[d]) + (index.empty() ? "" : "," + index);
    k /= e.shape[d];
  }
  return e.name + "[" + index + "]";
}

namespace {

std::string name_of(const Scene& s, Slot slot) { return entry_of(s.params, slot).name; }

std::optional<std::string> camera_violation(const Scene& scene, const Camera& c) {
  if (c.origin == kNoSlot) return std::nullopt;
  const ParamTable& t = scene.params;
  const std::string o = name_of(scene, c.origin), tg = name_of(scene, c.target), up = name_of(scene, c.up);
  switch (frame_problem(t.get_vec3(c.origin), t.get_vec3(c.target), t.get_vec3(c.up))) {
    case FrameProblem::same_point: return tg + ": must differ from " + o;
    case FrameProblem::too_far: return o + ": is too far from " + tg + ": their distance overflows float";
    case FrameProblem::too_near: return tg + ": is too close to " + o + ": their distance underflows float";
    case FrameProblem::up_parallel: return up + ": must not be parallel to the viewing direction (" + tg + " - " + o + ")";
    case FrameProblem::up_too_short: return up + ": is too short: the camera's frame underflows float (give a unit vector)";
    case FrameProblem::none: break;
  }
  return std::nullopt;
}

std::optional<std::string> light_violation(const Scene& scene, const Light& l) {
  auto name = [&](Slot slot) { return name_of(scene, slot); };
  return std::visit([&](const auto& e) { return e.violation(scene.params, name); }, l.model);
}

}  // namespace

std::optional<std::string> param_violation(const Scene& scene) {
  const ParamTable& t = scene.params;
  const std::vector<float>& v = t.values();
  for (const ParamEntry& e : t.entries())
    for (uint32_t k = 0; k < e.size; ++k)
      if (auto why = e.domain.violation(v[e.slot + k])) return scalar_name(t, e.slot + k) + ": " + *why;
  for (const Sensor& sensor : scene.sensors)
    if (auto why = camera_violation(scene, sensor.camera)) return why;
  for (const Light& l : scene.lights)
    if (auto why = light_violation(scene, l)) return why;
  auto name = [&](Slot slot) { return name_of(scene, slot); };
  for (const Shape& s : scene.shapes)
    if (auto why = std::visit([&](const auto& plugin) { return plugin.violation(t, name); }, s.model)) return why;
  for (const Mesh& m : scene.meshes)
    if (m.normals != kNoSlot)
      for (uint32_t k = 0; k < entry_of(t, m.normals).size; k += 3)
        if (!(glm::length(t.get_vec3(m.normals + k)) > 0.f))
          return scalar_name(t, m.normals + k).substr(0, scalar_name(t, m.normals + k).rfind(',')) + "]: a normal must not be zero";
  return std::nullopt;
}

void update_params(Scene& scene, const std::vector<ParamUpdate>& updates) {
  // Every range set and its values before (a range, not a slot, a scalar: a block's update holds
  // 4 B a scalar here).
  std::vector<std::pair<Slot, std::vector<float>>> old;
  auto restore = [&] {
    for (auto it = old.rbegin(); it != old.rend(); ++it)
      for (size_t k = 0; k < it->second.size(); ++k) scene.params.set(it->first + Slot(k), it->second[k]);
  };
  bool rebuild = false;
  try {
    for (const ParamUpdate& u : updates) {
      const ParamRange r = resolve_range(scene.params, u.name);
      if (r.size != u.values.size())
        throw LoadError(u.name + ": has " + std::to_string(r.size) + (r.size == 1 ? " value" : " values") + ", got " +
                        std::to_string(u.values.size()));
      const auto before = scene.params.values().begin() + r.slot;
      old.push_back({r.slot, std::vector<float>(before, before + r.size)});
      std::copy(u.values.begin(), u.values.end(), scene.params.values_of(r.slot, r.size).begin());
      rebuild = rebuild || (r.size > 0 && scene.needs_rebuild(r.slot));  // one name, one entry
    }
  } catch (const LoadError&) {
    restore();
    throw;
  } catch (const std::runtime_error& e) {  // resolve_range: an unknown name or index
    restore();
    throw LoadError(e.what());
  }
  if (auto why = param_violation(scene)) {
    restore();
    throw LoadError(*why);
  }
  if (rebuild) scene.build_geometry();
  else scene.refresh_tables();
}

}  // namespace dray
