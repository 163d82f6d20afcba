#pragma once
// The parameters' rules, enforced wherever values change (the loaders, --set, scene.update, the
// optimizer): each value inside its domain (core/param_domain.h), and the rules between values: a
// camera frame that exists, a quad with area, each light's own (its plugin's violation(): a beam
// inside its cutoff, a direction that is not zero).
// Updates by name are all or nothing.
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/scene.h"

namespace dray {

// Why `from` looking at `to` with `up` has no frame, or none. The frame is checked as the camera
// builds it (sensors/camera.h), in float: a difference or an up vector whose length underflows
// float has none either.
enum class FrameProblem { none, same_point, too_far, too_near, up_parallel, up_too_short };
FrameProblem frame_problem(const glm::vec3& from, const glm::vec3& to, const glm::vec3& up);

// A parameter name as consecutive slots: a scalar, a vector or a block whole, one component
// NAME[i] or one element NAME[i,j,c]; `name` as resolved (a transform's document spelling
// shapes.X.transform.translate read as shapes.X.translate). Throws std::runtime_error for an
// unknown name or index (as resolve_scalars, which names each scalar).
struct ParamRange {
  std::string name;
  Slot slot = 0;
  uint32_t size = 0;
  bool of_block = false;  // of a parameter block (texels, vertices, voxels), whole or one element
  bool indexed = false;   // its scalars are named NAME[i] (a whole vector or block), else NAME
  std::string scalar_name(size_t i) const;
};
ParamRange resolve_range(const ParamTable& table, const std::string& name);

// The entry holding slot s (entries are in slot order).
const ParamEntry& entry_of(const ParamTable& table, Slot s);
// A scalar's name: NAME, NAME[i] of a vector, NAME[i,j,c] of a block.
std::string scalar_name(const ParamTable& table, Slot s);

// The first rule the scene's parameters break, as "NAME[i]: must be in [0, 1], got 1.2" or
// "camera.up: must not be parallel to the viewing direction"; nothing when every rule holds.
std::optional<std::string> param_violation(const Scene& scene);

// A change of parameters by name (NAME, NAME[i], NAME[i,j,c]: resolve_scalars), one value per scalar.
struct ParamUpdate {
  std::string name;
  std::vector<float> values;
};

// Sets the values, checks every rule, and rebuilds what depends on them (geometry, tables). Throws
// LoadError ("NAME[i]: rule, got value") and leaves the scene as it was when a name, a size, a value
// or a rule fails.
void update_params(Scene& scene, const std::vector<ParamUpdate>& updates);

}  // namespace dray
