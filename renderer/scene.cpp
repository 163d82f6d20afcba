#include "renderer/scene.h"
#include "renderer/scene_params.h"
#include "renderer/scene_sensors.h"

#include <omp.h>

#include "renderer/shapes/mesh_normals.h"
#include "renderer/shapes/prim.h"
#include "renderer/shapes/shape.h"

#include "renderer/core/load_error.h"
#include "renderer/core/transform.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <numeric>
#include <cmath>
#include <functional>
#include <stdexcept>

#include <glm/geometric.hpp>

namespace dray {

namespace {

float geom_area(const PrimGeom& g) {
  const PrimT<float> prim{g.kind, g.a, g.b, g.c, g.b.x};  // a sphere's radius: b.x
  return with_shape_type(g.kind, [&]<class S>() { return S::area(prim); });
}


// The indices in NAME[i] or NAME[i,j,c] (empty without brackets).
std::vector<long> parse_indices(const std::string& name, std::string& base) {
  base = name;
  const auto open = name.find('[');
  if (open == std::string::npos) return {};
  const auto close = name.find(']', open);
  const std::string inside = name.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
  std::vector<long> out;
  size_t start = 0;
  bool ok = close == name.size() - 1;
  while (ok) {
    const size_t comma = inside.find(',', start);
    std::string digits = inside.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    digits.erase(0, digits.find_first_not_of(' '));
    digits.erase(digits.find_last_not_of(' ') + 1);
    ok = !digits.empty() && digits.size() < 10 && std::all_of(digits.begin(), digits.end(), ::isdigit);
    if (ok) out.push_back(std::stol(digits));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!ok) throw std::runtime_error("parameter \"" + name + "\": expected NAME, NAME[i] or, for a block, NAME[i,j,c]");
  base = name.substr(0, open);
  return out;
}

std::string shape_text(const std::vector<uint32_t>& shape) {
  std::string t;
  for (uint32_t d : shape) {
    if (!t.empty()) t += 'x';
    t += std::to_string(d);  // appended piecewise: GCC 12 warns falsely of "x" + to_string (-Wrestrict)
  }
  return t;
}

}  // namespace

namespace {

// A table's runs of consecutive seeded slots: [first, end) from index k.
struct SeedRun {
  Slot first, end;
  int k;
  bool operator==(const SeedRun&) const = default;
};

// The last large seed table built and the runs it was built from: a job's next pass, seeding the
// same slots, shares it instead of writing it again (12 MB for a million RGB texels).
struct SeedTableCache {
  static constexpr size_t kMinSlots = size_t(1) << 16;  // smaller tables are built each time
  std::mutex mutex;
  size_t slots = 0;
  std::vector<SeedRun> runs;
  std::shared_ptr<const std::vector<int>> table;
};
SeedTableCache& seed_table_cache() {
  static SeedTableCache& cache = *new SeedTableCache;  // never destroyed: no exit-order question
  return cache;
}

std::shared_ptr<const std::vector<int>> table_of_runs(size_t slots, const std::vector<SeedRun>& runs) {
  auto table = std::make_shared<std::vector<int>>();
  table->reserve(slots);  // each entry written once, in order
  for (const SeedRun& r : runs) {
    table->resize(r.first, -1);
    for (Slot s = r.first; s < r.end; ++s) table->push_back(r.k + int(s - r.first));
  }
  table->resize(slots, -1);
  return table;
}

}  // namespace

Seeds::Seeds(size_t slots, std::span<const Slot> seeded) {
  // Seeded in ascending slots (a block's texels): the table from the list's runs of consecutive
  // slots, and the ranges are the runs.
  std::vector<SeedRun> runs;
  bool ascending = true;
  for (size_t k = 0; k < seeded.size() && ascending;) {
    size_t end = k + 1;  // seeded[k .. end): consecutive slots
    while (end < seeded.size() && seeded[end] == seeded[end - 1] + 1) ++end;
    ascending = end == seeded.size() || seeded[end] > seeded[end - 1];
    runs.push_back({seeded[k], seeded[end - 1] + 1, int(k)});
    k = end;
  }
  if (ascending) {
    for (const SeedRun& r : runs) ranges.push_back({r.first, r.end});
    if (slots < SeedTableCache::kMinSlots) {
      table_ = table_of_runs(slots, runs);
      return;
    }
    SeedTableCache& cache = seed_table_cache();
    std::lock_guard lock(cache.mutex);
    if (cache.table && cache.slots == slots && cache.runs == runs) {
      table_ = cache.table;
      return;
    }
    cache.table.reset();  // freed before the new one is built: one large table at a time
    table_ = table_of_runs(slots, runs);
    cache.slots = slots;
    cache.runs = std::move(runs);
    cache.table = table_;
    return;
  }
  auto table = std::make_shared<std::vector<int>>(slots, -1);
  for (size_t k = 0; k < seeded.size(); ++k) (*table)[seeded[k]] = int(k);
  for (Slot s = 0; s < Slot(slots); ++s) {
    if ((*table)[s] < 0) continue;
    if (!ranges.empty() && ranges.back().second == s) ranges.back().second = s + 1;
    else ranges.push_back({s, s + 1});
  }
  table_ = std::move(table);
}

bool Seeds::any(Slot s, size_t n) const {
  // The first range ending after s: seeded within [s, s + n) when it starts before s + n.
  auto it = std::upper_bound(ranges.begin(), ranges.end(), s, [](Slot v, const auto& r) { return v < r.second; });
  return it != ranges.end() && size_t(it->first) < size_t(s) + n;
}

ParamRange resolve_range(const ParamTable& table, const std::string& name) {
  std::string base;
  const std::vector<long> index = parse_indices(name, base);
  auto e = table.find(base);
  // The document's spelling of a transform parameter: shapes.X.transform.translate.
  if (auto k = base.find(".transform."); !e && k != std::string::npos) {
    base = base.substr(0, k) + base.substr(k + 10);
    e = table.find(base);
  }
  if (!e) throw std::runtime_error("unknown parameter \"" + base + "\" (dray params SCENE lists them)");
  if (e->block()) {
    if (index.empty()) return {base, e->slot, e->size, true, true};  // the whole block
    if (index.size() != e->shape.size())
      throw std::runtime_error("parameter \"" + name + "\": " + base + " is a " + shape_text(e->shape) + " block: name an element with " +
                               std::to_string(e->shape.size()) + " indices");
    size_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      if (index[d] >= long(e->shape[d]))
        throw std::runtime_error("parameter \"" + name + "\": index " + std::to_string(index[d]) + " is out of range for " + base +
                                 " (" + shape_text(e->shape) + ")");
      flat = flat * e->shape[d] + size_t(index[d]);
    }
    return {name, e->slot + Slot(flat), 1, true, false};
  }
  if (index.size() > 1) throw std::runtime_error("parameter \"" + name + "\": expected NAME or NAME[i]");
  const int component = index.empty() ? -1 : int(index[0]);
  if (component >= int(e->size))
    throw std::runtime_error("parameter \"" + name + "\": " + base + " has " + std::to_string(e->size) +
                             (e->size == 1 ? " component" : " components"));
  if (component >= 0) return {name, e->slot + Slot(component), 1, false, false};
  return {base, e->slot, e->size, false, e->size > 1};
}

std::string ParamRange::scalar_name(size_t i) const { return indexed ? name + "[" + std::to_string(i) + "]" : name; }

std::vector<ScalarParam> resolve_scalars(const ParamTable& table, const std::vector<std::string>& names) {
  std::vector<ScalarParam> out;
  for (const std::string& name : names) {
    const ParamRange r = resolve_range(table, name);
    for (uint32_t i = 0; i < r.size; ++i) out.push_back({r.scalar_name(i), r.slot + i});
  }
  return out;
}

bool Scene::moves_geometry(Slot slot) const {
  for (const Shape& s : shapes)
    if (std::visit([&](const auto& plugin) { return plugin.places(slot); }, s.model)) return true;
  for (const Shape& s : shapes)
    if (s.is<MeshShape>() && s.as<MeshShape>().moves_vertices(*this, slot)) return true;
  return false;
}

bool Scene::needs_rebuild(Slot slot) const {
  if (moves_geometry(slot)) return true;
  for (const Mesh& m : meshes)
    if (m.normals != kNoSlot && slot >= m.normals && slot < m.normals + Slot(3 * m.object_positions.size())) return true;
  return false;
}

void Scene::refresh_tables() {
  for (Light& l : lights) refresh_light_tables(l, params);
  for (Bsdf& b : bsdfs) refresh_bsdf(b, params);
  for (GridVolume& g : volumes) g.refresh_majorants(params, render.majorant_cells);
}

// Each sensor that measures over the scene gets its share: the ball around the scene's box
// (Mitsuba's bounding sphere, its radius grown by its RayEpsilon) and the primitives of the shape
// it is attached to, in the scene's order (world primitives by input index) with their running areas.
void place_sensors(Scene& scene) {
  const Aabb box = scene.bvh.bounds();
  glm::vec4 ball(0.f, 0.f, 0.f, 1.f);
  if (box.lo.x <= box.hi.x) ball = glm::vec4(box.centre(), std::max(8.9e-5f, glm::length(box.hi - box.centre()) * (1.f + 8.9e-5f)));
  const Bvh& world = scene.bvh.world();
  std::vector<uint32_t> by_input(world.prim_refs().size());
  for (uint32_t i = 0; i < by_input.size(); ++i) by_input[world.input_index(i)] = i;
  for (Sensor& sensor : scene.sensors) {
    if (!measures_scene(sensor.camera.model)) continue;
    auto surface = std::make_shared<SensorSurface>();
    surface->scene_ball = ball;
    const std::string_view name = measured_shape(sensor.camera.model);
    if (!name.empty()) {
      const auto shape = std::find_if(scene.shapes.begin(), scene.shapes.end(), [&](const Shape& x) { return x.name == name; });
      if (shape == scene.shapes.end())
        throw LoadError("sensor \"" + sensor.name + "\" (" + std::string(sensor_type(sensor.camera.model)) + "): no shape named \"" +
                        std::string(name) + "\" to measure over");
      const uint32_t si = uint32_t(shape - scene.shapes.begin());
      float area = 0.f;
      for (uint32_t i : by_input) {
        const PrimRef& ref = world.prim_refs()[i];
        if (ref.shape != si) continue;
        surface->prims.push_back(std::visit(
            [&](const auto& plugin) { return plugin.lift(scene, ParamView<float>(scene.params), *shape, ref, i); }, shape->model));
        area += geom_area(world.prim_geoms()[i]);
        surface->cdf.push_back(area);
      }
      if (!(area > 0.f))
        throw LoadError("sensor \"" + sensor.name + "\" (" + std::string(sensor_type(sensor.camera.model)) + "): shape \"" +
                        std::string(name) + "\" has no area to measure over" + (shape->instance >= 0 ? " (an instance's shapes cannot carry a sensor)" : ""));
    }
    attach_surface(sensor.camera.model, surface);
  }
}

void Scene::build_geometry() {
  std::vector<PrimRef> refs;
  std::vector<PrimGeom> geoms;
  for (uint32_t si = 0; si < shapes.size(); ++si)
    std::visit([&](const auto& plugin) { plugin.add_prims(*this, shapes[si], si, refs, geoms); }, shapes[si].model);
  // Only positions moved (an optimization step, a pose): the tree is refitted, unless that
  // has made it worse than kRefitSlack times the built one's cost.
  bvh.update_world(std::move(refs), std::move(geoms), omp_get_max_threads());
  build_instances();

  // Area lights: the emissive primitives of each emissive shape, with their area CDF, in the
  // scene's order (not the tree's: a refitted tree keeps the order of the build it came from).
  for (Light& l : lights)
    if (AreaEmitter* area = area_emitter(l)) {
      area->prims.clear();
      area->cdf.clear();
      area->area = 0.f;
    }
  // (Instances emit nothing: the loader refuses emitters in groups, as Mitsuba does.)
  const Bvh& world = bvh.world();
  const size_t n = world.prim_refs().size();
  std::vector<uint32_t> by_input(n);
  for (uint32_t i = 0; i < n; ++i) by_input[world.input_index(i)] = i;
  for (uint32_t i : by_input) {
    const Shape& s = shapes[world.prim_refs()[i].shape];
    if (s.light < 0 || !materials[material_of(i)].emissive) continue;
    AreaEmitter& l = std::get<AreaEmitter>(lights[s.light].model);
    l.area += geom_area(world.prim_geoms()[i]);
    l.prims.push_back(i);
    l.cdf.push_back(l.area);
  }
  place_sensors(*this);
  refresh_tables();
}

void Scene::build_instances() {
  // The groups' trees once (their meshes have no parameters), the instances' transforms each time.
  if (bvh.group_count() != groups.size()) {
    std::vector<std::vector<GroupMesh>> members;
    for (const ShapeGroup& g : groups) {
      members.emplace_back();
      for (const Shape& m : g.members)
        if (m.is<SdfGridShape>()) members.back().push_back({{}, {}, sdf_grids[m.as<SdfGridShape>().grid]});
        else members.back().push_back({meshes[m.as<MeshShape>().mesh].object_positions, meshes[m.as<MeshShape>().mesh].indices, nullptr});
    }
    bvh.set_groups(std::move(members), omp_get_max_threads());
  }
  if (instances.empty()) return;
  std::vector<InstanceXf> xs;
  for (const Instance& in : instances) {
    InstanceXf x;
    x.group = in.group;
    x.first_shape = in.first_shape;
    x.xf = lift_transform(ParamView<float>(params), *shapes[in.first_shape].transform());
    x.xf.normal_pre = nullptr;  // points into a Shape: taken from it where used (world_normal)
    xs.push_back(x);
  }
  bvh.set_instances(std::move(xs));
}

const SdfGrid& Scene::world_grid(uint32_t si) const {
  const Shape& s = shapes[si];
  if (s.instance < 0) return *sdf_grids[s.as<SdfGridShape>().grid];
  const size_t i = size_t(s.instance);
  return bvh.placed_grid(i, si - instances[i].first_shape);
}

glm::vec3 Scene::world_vertex(const Shape& s, uint32_t v) const {
  const Mesh& m = meshes[s.as<MeshShape>().mesh];
  if (s.instance < 0) return m.world_positions[v];
  return SceneAccel::to_world(bvh.instances()[size_t(s.instance)], m.object_positions[v]);
}

glm::vec3 Scene::world_normal(const Shape& s, size_t corner) const {
  const Mesh& m = meshes[s.as<MeshShape>().mesh];
  if (s.instance < 0) return m.world_normals[corner];
  TransformT<float> xf = bvh.instances()[size_t(s.instance)].xf;
  if (const Transform& t = s.as<MeshShape>().transform; t.has_base) xf.normal_pre = &t.normal_pre;
  return to_glm(transform_normal(xf, Vec3<float>(m.object_normals[corner])));
}

}  // namespace dray
