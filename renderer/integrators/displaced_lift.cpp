#include "renderer/integrators/displaced_lift.h"

#include <algorithm>
#include <array>

#include "ad/tape.h"
#include "ad/var.h"
#include "renderer/shapes/mesh_normals.h"

namespace dray {

namespace {

// Each vertex's smooth normal (the ring formula, at the placed positions) differentiated by the
// heights of its ring's vertices: lifted.normal_terms, and the normals' values in `values`.
void lift_vertex_normals(const Mesh& m, DisplacedLift::Mesh& lifted, std::vector<float>& values) {
  ad::Tape& tape = ad::Tape::local();
  const MeshDisplacement& d = *m.displacement;
  auto position = [&](uint32_t w) {  // vertex w's position as three inputs, 3w .. 3w + 2
    const glm::vec3& p = m.object_positions[w];
    return Vec3<ad::Var>(ad::lift<ad::Var>(p.x, int(3 * w)), ad::lift<ad::Var>(p.y, int(3 * w + 1)),
                         ad::lift<ad::Var>(p.z, int(3 * w + 2)));
  };
  const Vec3<ad::Var> none(ad::Var(0.f), ad::Var(0.f), ad::Var(0.f));
  std::vector<std::pair<uint32_t, std::array<double, 3>>> by_vertex;  // ring vertex, d normal / d its height
  lifted.normal_start.assign(1, 0);
  values.reserve(3 * m.object_positions.size());
  for (uint32_t v = 0; v < uint32_t(m.object_positions.size()); ++v) {
    tape.clear();
    const Vec3<ad::Var> n = vertex_normal<ad::Var>(m.indices, v, m.rings.of(v), position, none);
    values.insert(values.end(), {n.x.v, n.y.v, n.z.v});
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
    for (const auto& [w, partials] : by_vertex)
      lifted.normal_terms.push_back({w, {float(partials[0]), float(partials[1]), float(partials[2])}});
    lifted.normal_start.push_back(uint32_t(lifted.normal_terms.size()));
  }
  tape.clear();
}

}  // namespace

DisplacedLift lift_displaced(const Scene& scene, const Seeds& seeds, int first_index) {
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
      lift_vertex_normals(m, lifted, normals.values);
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
