// The `sdfgrid` shape of /shapes (Mitsuba 3's, renderer/shapes/sdf_grid.h): a one-channel .vol
// file of signed distances over [0, 1]^3 in object space, its `normals` ("smooth" or
// "analytic"), its transform (a matrix base and differentiable scale, rotate_*, translate, as a
// mesh's; Mitsuba's to_world is not differentiable, dray's is, silhouettes included).
#include <glm/matrix.hpp>

#include "renderer/io/mesh_file.h"
#include "renderer/io/scene_loader.h"
#include "renderer/io/shape_reader.h"
#include "renderer/io/grid_file.h"

namespace dray {

using nlohmann::json;
namespace fs = std::filesystem;

Shape ShapeReader::read_sdf_grid(const json& s, const std::string& p, const std::string& prefix, Shape shape) {
  rd.object(s, p, {"name", "type", "file", "normals", "material", "transform", "interior", "exterior"}, {"file", "material"});
  SdfGridShape& grid_shape = shape.model.emplace<SdfGridShape>();
  shape.material = material_ref(s["material"], p + "/material");
  if (scene.materials[shape.material].emissive)
    rd.fail(p + "/material", "an sdfgrid cannot emit light (as Mitsuba's: it has no area to sample)");
  SdfGrid g;
  const std::string normals = s.contains("normals") ? rd.string(s["normals"], p + "/normals") : "smooth";
  if (normals != "smooth" && normals != "analytic")
    rd.fail(p + "/normals", "must be \"smooth\" or \"analytic\", got \"" + normals + "\"");
  g.smooth = normals == "smooth";
  g.file = rd.string(s["file"], p + "/file");
  const fs::path file = fs::path(g.file).is_absolute() ? fs::path(g.file) : base_dir / g.file;
  GridVolume vol;
  std::vector<float> values;
  try {
    read_grid_file(file.string(), vol, values);
  } catch (const LoadError& e) {
    rd.fail(p + "/file", e.what());
  }
  if (vol.channels != 1) rd.fail(p + "/file", file.string() + ": an sdfgrid's grid has one channel, not " + std::to_string(vol.channels));
  if (vol.res.x < 2 || vol.res.y < 2 || vol.res.z < 2)
    rd.fail(p + "/file", file.string() + ": an sdfgrid's grid needs at least 2 samples along each axis");
  g.res = vol.res;
  g.values = std::make_shared<const std::vector<float>>(std::move(values));
  // The transform: a `matrix` is the constant base, then the parameters scale, rotate_*,
  // translate (differentiable, as a mesh's); in a group, all of it baked (constants).
  const json& tj = s.contains("transform") ? s["transform"] : json::object();
  const std::string tp = p + "/transform";
  rd.object(tj, tp, {"matrix", "scale", "rotate_x", "rotate_y", "rotate_z", "translate"});
  read_base(tj, tp, grid_shape.transform);
  ParamTable scratch;
  transform_params(tj, tp, prefix, grid_shape.transform, in_group_ ? scratch : scene.params);
  const TransformT<float> xf = lift_transform(ParamView<float>(in_group_ ? scratch : scene.params), grid_shape.transform);
  if (in_group_) grid_shape.transform = Transform{};
  try {
    prepare_sdf_grid(g, linear_matrix(xf), to_glm(xf.translate));
  } catch (const std::runtime_error& e) {
    rd.fail(p + "/file", file.string() + ": " + e.what());
  }
  grid_shape.grid = uint32_t(scene.sdf_grids.size());
  scene.sdf_grids.push_back(std::make_shared<const SdfGrid>(std::move(g)));
  return shape;
}

}  // namespace dray
