#pragma once
// Blocks that change shape by assignment, as Mitsuba's `params[key] = tensor; params.update()` with
// a tensor of another size: a density grid resampled to another resolution, a bitmap texture to
// another size, a mesh's vertices and faces replaced by a remeshing. No file, no reload: the
// block takes new slots (core/param_table.h: reshape_block) and its object takes the new size.
#include <optional>
#include <string>
#include <vector>

#include "renderer/scene.h"

namespace dray {

// A block's new values in their new shape (numpy's): a grid's Z × Y × X × C (C as before), a
// bitmap's H × W × 3, a mesh's vertices V × 3 (with `faces` below, or the same count).
struct BlockReshape {
  std::string name;  // the block's name (shapes.NAME.vertices, media.NAME.sigma_t, textures.NAME.data)
  std::vector<float> values;
  std::vector<uint32_t> shape;
};

// A mesh's new faces (F × 3 vertex indices), with or without new vertices.
struct FacesUpdate {
  std::string shape;  // the mesh shape's name (shapes.NAME)
  std::vector<uint32_t> faces;
};

// Applies the reshapes and the new faces. A remeshed mesh keeps its material (one for all its
// faces), loses its texture coordinates and attributes (Mitsuba's remeshing drops them too) and
// is smooth shaded anew when it was smooth. Throws LoadError naming the block and what is wrong;
// the scene is then partly changed (apply it to a copy).
void reshape_blocks(Scene& scene, const std::vector<BlockReshape>& reshapes, const std::vector<FacesUpdate>& faces);

}  // namespace dray
