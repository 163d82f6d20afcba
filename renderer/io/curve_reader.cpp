// The shape reader's curves: Mitsuba's linearcurve and bsplinecurve files, tessellated
// (renderer/io/curve_file.h, renderer/shapes/curve_mesh.h).
#include <filesystem>

#include "renderer/io/curve_file.h"
#include "renderer/io/mesh_file.h"
#include "renderer/io/shape_reader.h"
#include "renderer/shapes/curve_mesh.h"

namespace dray {

using nlohmann::json;
namespace fs = std::filesystem;

TriangleMesh ShapeReader::curve_mesh_of(const json& s, const std::string& p, const std::string& type) {
  const std::string rel = rd.string(s["file"], p + "/file");
  const fs::path file = fs::path(rel).is_absolute() ? fs::path(rel) : base_dir / rel;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) rd.fail(p + "/file", "cannot open \"" + file.string() + "\": no such file");
  const bool linear = type == "linearcurve";
  const std::string where = rd.file() + ": " + p + "/file: ";
  CurvePoints curves = read_curve_file(file, linear ? 2 : 4, where);
  if (s.contains("transform") && s["transform"].contains("matrix")) {
    const glm::dmat4 m = read_affine_matrix(rd, s["transform"]["matrix"], p + "/transform/matrix");
    for (glm::vec4& q : curves.points) q = glm::vec4(glm::vec3(m * glm::dvec4(glm::dvec3(q), 1.0)), q.w);
  }
  CurveMesh tube;
  try {
    tube = linear ? linear_curve_mesh(curves) : bspline_curve_mesh(curves);
  } catch (const LoadError& e) {
    rd.fail(p + "/file", e.what());
  }
  if (!in_group_) scene.curves.push_back({uint32_t(scene.meshes.size() - 1), linear, kCurveAround, std::move(curves), std::move(tube.vertices)});
  return std::move(tube.mesh);
}

}  // namespace dray
