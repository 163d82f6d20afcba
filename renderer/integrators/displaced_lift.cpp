#include "renderer/integrators/displaced_lift.h"

#include <algorithm>
#include <array>

#include "ad/tape.h"
#include "ad/var.h"
#include "renderer/core/parallel.h"
#include "renderer/shapes/mesh_normals.h"

namespace dray {

namespace {

// Vertex v's smooth normal (the ring formula, at the placed positions) differentiated by the
// heights of its ring's vertices: appended to `terms`; its value in out[0..2].
void lift_vertex_normal(const Mesh& m, uint32_t v, std::vector<DisplacedLift::NormalTerm>& terms, float* out) {
  ad::Tape& tape = ad::Tape::local();
  const MeshDisplacement& d = *m.displacement;
  auto position = [&](uint32_t w) {  // vertex w's position as three inputs, 3w .. 3w + 2
    const glm::vec3& p = m.object_positions[w];
    return Vec3<ad::Var>(ad::lift<ad::Var>(p.x, int(3 * w)), ad::lift<ad::Var>(p.y, int(3 * w + 1)),
                         ad::lift<ad::Var>(p.z, int(3 * w + 2)));
  };
  const Vec3<ad::Var> none(ad::Var(0.f), ad::Var(0.f), ad::Var(0.f));
  tape.clear();
  const Vec3<ad::Var> n = vertex_normal<ad::Var>(m.indices, v, m.rings.of(v), position, none);
  out[0] = n.x.v, out[1] = n.y.v, out[2] = n.z.v;
  // The ring's vertices, in the order the tape hands them, and their partials (summed in double).
  thread_local std::vector<std::pair<uint32_t, std::array<double, 3>>> by_vertex;
  by_vertex.clear();
  const ad::Var* axes[3] = {&n.x, &n.y, &n.z};
  for (int axis = 0; axis < 3; ++axis) {
    if (axes[axis]->i < 0) continue;
    tape.begin_adjoints();
    tape.seed(axes[axis]->i, 1.f);
    tape.backward_to([&](int g, float partial) {  // a position's partial, along its direction: the height's
      const uint32_t w = uint32_t(g / 3);
      auto it = std::find_if(by_vertex.begin(), by_vertex.end(), [&](const auto& e) { return e.first == w; });
      if (it == by_vertex.end()) it = by_vertex.insert(it, {w, {0, 0, 0}});
      it->second[size_t(axis)] += double(partial) * double(d.directions[w][g % 3]) * double(d.scale);
    });
  }
  for (const auto& [w, partials] : by_vertex) terms.push_back({w, {float(partials[0]), float(partials[1]), float(partials[2])}});
  tape.clear();
}

// Every vertex's (lift_vertex_normal) on `threads`, in chunks of vertices whose terms are then
// joined in vertex order: the same on any thread count.
void lift_vertex_normals(const Mesh& m, int threads, DisplacedLift::Mesh& lifted, std::vector<float>& values) {
  const uint32_t n = uint32_t(m.object_positions.size());
  constexpr uint32_t kChunk = 1024;
  const int chunks = int((n + kChunk - 1) / kChunk);
  std::vector<std::vector<DisplacedLift::NormalTerm>> terms(static_cast<size_t>(chunks));
  std::vector<uint32_t> count(n);
  values.assign(3 * size_t(n), 0.f);
  parallel_for(chunks, threads, [&](int c) {
    for (uint32_t v = uint32_t(c) * kChunk; v < std::min(n, uint32_t(c + 1) * kChunk); ++v) {
      const size_t before = terms[size_t(c)].size();
      lift_vertex_normal(m, v, terms[size_t(c)], &values[3 * size_t(v)]);
      count[v] = uint32_t(terms[size_t(c)].size() - before);
    }
  });
  lifted.normal_start.assign(1, 0);
  for (uint32_t v = 0; v < n; ++v) lifted.normal_start.push_back(lifted.normal_start.back() + count[v]);
  for (const auto& chunk : terms) lifted.normal_terms.insert(lifted.normal_terms.end(), chunk.begin(), chunk.end());
}

}  // namespace

DisplacedLift lift_displaced(const Scene& scene, const Seeds& seeds, int first_index, int threads) {
  DisplacedLift out;
  const int first = first_index;
  const ParamView<ad::Var> P(scene.params, seeds);
  ad::Tape& tape = ad::Tape::local();
  for (const Shape& s : scene.shapes) {
    if (!s.is<MeshShape>()) continue;
    const uint32_t mesh = s.as<MeshShape>().mesh;
    const dray::Mesh& m = scene.meshes[mesh];
    if (!m.displacement || !texture_seeded(scene.textures[size_t(m.displacement->texture)], P)) continue;
    DisplacedLift::Mesh lifted{&*m.displacement, first_index, {0}, {}, -1, {}, {}};
    const Texture& texture = scene.textures[size_t(m.displacement->texture)];
    for (size_t v = 0; v < m.object_positions.size(); ++v) {
      tape.clear();
      const ad::Var height = eval_texture_1(texture, P, m.displacement->uvs[v]);
      tape.begin_adjoints();
      tape.seed(height.i, 1.f);
      tape.backward_to([&](int g, float partial) {
        if (partial != 0.f) lifted.terms.push_back({g, partial});
      });
      lifted.start.push_back(uint32_t(lifted.terms.size()));
    }
    LiftedBlock block{displaced_positions_key(mesh), first_index, {}};
    block.values.reserve(3 * m.object_positions.size());
    for (const glm::vec3& p : m.object_positions) block.values.insert(block.values.end(), {p.x, p.y, p.z});
    first_index += int(block.values.size());
    out.blocks.push_back(std::move(block));
    if (m.normals_follow_vertices()) {
      LiftedBlock normals{displaced_normals_key(mesh), first_index, {}};
      lift_vertex_normals(m, threads, lifted, normals.values);
      lifted.normals_first_index = first_index;
      first_index += int(normals.values.size());
      out.blocks.push_back(std::move(normals));
    }
    out.meshes.push_back(std::move(lifted));
  }
  tape.clear();
  out.count = first_index - first;
  return out;
}

void chain_displaced(const DisplacedLift& lift, int first_index, std::span<const double> lifted, std::span<double> gradient) {
  for (const DisplacedLift::Mesh& m : lift.meshes) {
    const MeshDisplacement& d = *m.displacement;
    const size_t n = m.vertex_count();
    std::vector<double> height(n, 0.0);  // d loss / d (vertex height)
    const double* position = &lifted[size_t(m.first_index - first_index)];
    for (size_t v = 0; v < n; ++v)
      for (int axis = 0; axis < 3; ++axis) height[v] += position[3 * v + size_t(axis)] * double(d.directions[v][axis]) * double(d.scale);
    if (m.normals_first_index >= 0) {
      const double* normal = &lifted[size_t(m.normals_first_index - first_index)];
      for (size_t v = 0; v < n; ++v) {
        const double* a = &normal[3 * v];
        if (a[0] == 0 && a[1] == 0 && a[2] == 0) continue;
        for (uint32_t t = m.normal_start[v]; t < m.normal_start[v + 1]; ++t) {
          const DisplacedLift::NormalTerm& term = m.normal_terms[t];
          height[term.vertex] += a[0] * double(term.d[0]) + a[1] * double(term.d[1]) + a[2] * double(term.d[2]);
        }
      }
    }
    for (size_t v = 0; v < n; ++v)
      if (height[v] != 0)
        for (uint32_t t = m.start[v]; t < m.start[v + 1]; ++t)
          gradient[size_t(m.terms[t].first)] += height[v] * double(m.terms[t].second);
  }
}

}  // namespace dray
