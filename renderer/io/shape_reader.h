#pragma once
// Reads one element of the scene's /shapes: Mitsuba 3's sphere, rectangle (`quad`), the meshes (a
// file's, a disk's, a cylinder's) and sdfgrid, their values parameters under `shapes.NAME.KEY`.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "renderer/io/json_reader.h"
#include "renderer/io/material_reader.h"
#include "renderer/io/texture_reader.h"
#include "renderer/scene.h"
#include "renderer/shapes/triangle_mesh.h"

namespace dray {

struct ObjFile;

// A mesh file's options: an OBJ's flip_tex_coords, a serialized file's shape_index (the default 0
// when unset; set: refused for other formats), whether the scene set face_normals.
struct MeshFileOptions {
  bool flip_uv = true;
  std::optional<int> shape_index;
  bool face_normals_set = false;
};

class ShapeReader {
 public:
  // materials: name -> index (a file's own materials are added to it); media: name -> index.
  // textures: the scene's, by name, for displacements (none: a displacement is refused).
  ShapeReader(const JsonReader& rd, Scene& scene, std::filesystem::path base_dir, std::map<std::string, uint32_t>& materials,
              const std::map<std::string, int>& media, const TextureReader* textures = nullptr)
      : rd(rd), scene(scene), base_dir(std::move(base_dir)), materials(materials), media(media), textures(textures) {}

  // Shape `name` of kind `type` from its JSON object at path p (its meshes added to the scene).
  Shape read(const nlohmann::json& s, const std::string& p, const std::string& name, const std::string& type,
             const std::string& prefix);
  // A `group` (Mitsuba's shapegroup): its meshes (mesh, disk, cylinder), stored once and drawn
  // only by instances; their transforms baked in (no parameters).
  void read_group(const nlohmann::json& s, const std::string& p, const std::string& name);
  // An `instance` of an earlier group: one shape per group mesh, sharing it, under the instance's
  // transform (its `matrix` a constant base, its scale, rotate, translate parameters).
  void read_instance(const nlohmann::json& s, const std::string& p, const std::string& name, const std::string& prefix);

 private:
  int medium_ref(const nlohmann::json& j, const std::string& path);
  uint32_t material_ref(const nlohmann::json& j, const std::string& path);
  uint32_t add_material(const std::string& name, const glm::vec3& reflectance, const glm::vec3* emission);
  Shape tessellated_member(Shape shape, const ParamTable& values);
  void read_base(const nlohmann::json& tj, const std::string& tp, Transform& t);
  Shape read_sdf_grid(const nlohmann::json& s, const std::string& p, const std::string& prefix, Shape shape);  // renderer/io/sdf_reader.cpp
  void add_normals_block(const std::string& prefix, Mesh& mesh);
  TriangleMesh grid_mesh_of(const nlohmann::json& s, const std::string& p);
  // A linearcurve's or bsplinecurve's tube (renderer/io/curve_reader.cpp): its file's control
  // points, their positions moved by transform.matrix and their radii not (as Mitsuba's to_world);
  // outside a group, the scene's curves gain it (for the mesh last added).
  TriangleMesh curve_mesh_of(const nlohmann::json& s, const std::string& p, const std::string& type);
  void read_displacement(const nlohmann::json& j, const std::string& p, Mesh& mesh);
  void transform_params(const nlohmann::json& j, const std::string& p, const std::string& prefix, Transform& t, ParamTable& table);
  void bake_transform(const nlohmann::json& j, const std::string& p, Mesh& mesh);
  bool flag(const nlohmann::json& s, const std::string& p, const char* key);
  void use_mesh(ObjFile&& m, uint32_t material, Mesh& mesh);
  void add_attribute_blocks(const std::string& prefix, Mesh& mesh);
  void load_obj(const std::string& rel, const std::string& jpath, const std::string& shape_name,
                std::optional<uint32_t> material, const std::map<std::string, uint32_t>& mapping, const MeshFileOptions& o,
                Mesh& mesh);

  const JsonReader& rd;
  Scene& scene;
  std::filesystem::path base_dir;
  std::map<std::string, uint32_t>& materials;
  const std::map<std::string, int>& media;
  const TextureReader* textures;
  bool in_group_ = false;   // reading a group's meshes
  bool file_flat_ = false;  // the mesh file asks for face normals (a serialized file's flag)
  std::vector<TriangleMesh::Attribute> attributes_;  // the mesh file's vertex and face attributes
};

}  // namespace dray
