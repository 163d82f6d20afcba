// dray-bench-instances: the memory and trace speed of instancing (Mitsuba's shapegroup and
// instance). A grid of bunnies (70k triangles each) on a floor: its memory as N instances of one
// group against one bunny's scene (the scene's mesh arrays and acceleration structures, counted,
// and the process's resident growth), and its closest-hit speed against the same bunnies copied
// (flattened into one BVH), on the same rays. Lines starting with "#kv" are for tools/bench.
#include <cstdio>
#include <fstream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "renderer/io/scene_loader.h"
#include "tools/bench_rays.h"

using namespace dray;
using nlohmann::json;

namespace {

// Bunnies on a square grid (2 apart, turned by their index), a floor, a point light; the camera
// looks down the grid. instanced: one group and n instances; else n meshes.
json grid(int n, bool instanced, const std::string& scenes) {
  const json mesh = {{"type", "mesh"}, {"file", scenes + "/models/stanford-bunny.obj"}, {"material", "clay"}};
  json shapes = json::array();
  if (instanced) shapes.push_back({{"name", "g"}, {"type", "group"}, {"shapes", json::array({mesh})}});
  int side = 1;
  while (side * side < n) ++side;
  for (int i = 0; i < n; ++i) {
    json s = instanced ? json{{"type", "instance"}, {"group", "g"}} : mesh;
    s["name"] = "b" + std::to_string(i);
    s["transform"] = {{"scale", 10}, {"rotate_y", 37 * i}, {"translate", {2.0 * (i % side) - side, -0.33, -2.0 * (i / side)}}};
    shapes.push_back(s);
  }
  shapes.push_back({{"name", "floor"}, {"type", "quad"}, {"corner", {-1000, 0, -1000}}, {"edge_u", {0, 0, 2000}}, {"edge_v", {2000, 0, 0}}, {"material", "clay"}});
  return {{"camera", {{"origin", {0, 3.5, 5}}, {"target", {0, 0, -side}}, {"up", {0, 1, 0}}, {"fov_y", 50}, {"width", 320}, {"height", 240}}},
          {"materials", {{"clay", {{"type", "diffuse"}, {"albedo", {0.7, 0.6, 0.5}}}}}},
          {"shapes", shapes},
          {"lights", json::array({{{"name", "sun"}, {"type", "point"}, {"position", {3, 6, 3}}, {"intensity", {40, 40, 40}}}})}};
}

long resident_kb() {
  std::ifstream f("/proc/self/status");
  std::string key;
  long kb = 0;
  while (f >> key)
    if (key == "VmRSS:") f >> kb;
  return kb;
}

// The scene's geometry bytes: mesh arrays, acceleration structures, shapes.
size_t scene_bytes(const Scene& s) {
  size_t n = s.bvh.memory_bytes() + s.shapes.capacity() * sizeof(Shape) + s.params.values().size() * sizeof(float);
  for (const Mesh& m : s.meshes)
    n += (m.object_positions.capacity() + m.world_positions.capacity() + m.object_normals.capacity() + m.world_normals.capacity()) *
             sizeof(glm::vec3) +
         (m.indices.capacity() + m.face_materials.capacity()) * 4 + m.corner_uvs.capacity() * sizeof(glm::vec2) +
         m.edges.capacity() * sizeof(MeshEdge);
  return n;
}

struct Loaded {
  Scene scene;
  size_t bytes;
  long rss_kb;
};

Loaded load(int n, bool instanced, const std::string& scenes) {
  const long before = resident_kb();
  Scene s = load_scene(grid(n, instanced, scenes), scenes + "/grid.json");
  return {std::move(s), 0, resident_kb() - before};
}

double mrays(const Scene& scene, const std::vector<Ray>& rays, int repeats) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = omp_get_wtime();
    long h = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : h)
    for (size_t k = 0; k < rays.size(); ++k) {
      Hit hit;
      h += scene.bvh.intersect(rays[k], hit);
    }
    best = std::min(best, omp_get_wtime() - t0);
    if (h == 0) std::printf("no hits\n");
  }
  return double(rays.size()) / best * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Instancing: memory and trace speed"};
  std::string scenes = "scenes";
  int many = 1000, flat = 100, repeats = 5;
  app.add_option("--scenes", scenes, "The scenes folder (its models/stanford-bunny.obj)");
  app.add_option("--instances", many, "Instances in the memory comparison");
  app.add_option("--flat", flat, "Bunnies in the speed comparison (instanced and copied)");
  app.add_option("--repeats", repeats, "Timed runs (the fastest reported)");
  CLI11_PARSE(app, argc, argv);

  Loaded one = load(1, false, scenes);
  one.bytes = scene_bytes(one.scene);
  Loaded inst = load(many, true, scenes);
  inst.bytes = scene_bytes(inst.scene);
  const size_t top = inst.scene.bvh.top_memory_bytes() + inst.scene.shapes.capacity() * sizeof(Shape);
  const double mem_ratio = double(inst.bytes) / double(one.bytes + top);
  std::printf("| %-34s | %8.1f MB | resident +%.1f MB |\n", "one bunny", one.bytes / 1e6, one.rss_kb / 1024.0);
  std::printf("| %-34s | %8.1f MB | resident +%.1f MB; top level and shapes %.2f MB; %.3fx (one bunny + top level) |\n",
              (std::to_string(many) + " instances").c_str(), inst.bytes / 1e6, inst.rss_kb / 1024.0, top / 1e6, mem_ratio);
  std::printf("#kv instances_memory_over_one_plus_top %.4f\n", mem_ratio);
  {
    std::vector<Ray> shadow;
    const std::vector<Ray> rays = make_rays(inst.scene, shadow);
    std::printf("| %-34s | %8.2f Mrays/s | %zu rays |\n", (std::to_string(many) + " instances, trace").c_str(),
                mrays(inst.scene, rays, repeats), rays.size());
  }
  inst = Loaded{};
  // Speed: the same rays through `flat` bunnies instanced and copied.
  Loaded a = load(flat, true, scenes), b = load(flat, false, scenes);
  std::vector<Ray> shadow;
  const std::vector<Ray> rays = make_rays(b.scene, shadow);
  double ra = 0, rb = 0;
  for (int k = 0; k < 3; ++k) {  // alternated, so that both see the same state of the machine
    ra = std::max(ra, mrays(a.scene, rays, repeats));
    rb = std::max(rb, mrays(b.scene, rays, repeats));
  }
  std::printf("| %-34s | %8.2f Mrays/s | %zu rays |\n", (std::to_string(flat) + " instances, trace").c_str(), ra, rays.size());
  std::printf("| %-34s | %8.2f Mrays/s | %.3fx the instances' speed, resident +%.1f MB against +%.1f MB |\n",
              (std::to_string(flat) + " copies (flattened), trace").c_str(), rb, rb / ra, b.rss_kb / 1024.0, a.rss_kb / 1024.0);
  std::printf("#kv instances_trace_over_flattened %.4f\n", ra / rb);
  return 0;
}
