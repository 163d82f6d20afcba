#include "renderer/integrators/displaced_lift.h"

#include "ad/tape.h"
#include "ad/var.h"

namespace dray {

DisplacedLift lift_displaced(const Scene& scene, const Seeds& seeds, int first_index) {
  DisplacedLift out;
  const ParamView<ad::Var> P(scene.params, seeds);
  ad::Tape& tape = ad::Tape::local();
  for (const Shape& s : scene.shapes) {
    if (!s.is<MeshShape>()) continue;
    const uint32_t mesh = s.as<MeshShape>().mesh;
    const dray::Mesh& m = scene.meshes[mesh];
    if (!m.displacement || !texture_seeded(scene.textures[size_t(m.displacement->texture)], P)) continue;
    DisplacedLift::Mesh lifted{&*m.displacement, first_index, {0}, {}};
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
    out.meshes.push_back(std::move(lifted));
    out.blocks.push_back(std::move(block));
  }
  tape.clear();
  return out;
}

}  // namespace dray
