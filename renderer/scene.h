#pragma once
// The scene as the kernel sees it: materials, shapes, lights and camera, whose continuous
// values are slots in the parameter table, plus the float geometry the BVH is built over.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/bsdfs/bsdf.h"
#include "renderer/scene_accel.h"
#include "renderer/emitters/light.h"
#include "renderer/core/param_table.h"
#include "renderer/media/medium.h"
#include "renderer/sensors/film.h"
#include "renderer/sensors/camera.h"
#include "renderer/shapes/curve_mesh.h"
#include "renderer/shapes/sdf_grid.h"
#include "renderer/shapes/shape.h"
#include "renderer/core/transform.h"
#include "renderer/sensors/pixel_filter.h"
#include "renderer/samplers/sampler_plugin.h"
#include "renderer/textures/texture.h"

namespace dray {

// A material: the BSDFs of its two sides, a mask's opacity, and emission.
struct Material {
  std::string name;
  uint32_t front = 0, back = 0;  // indices into Scene::bsdfs; the same unless `twosided` gives two
  Slot opacity = kNoSlot;        // `mask`: the probability that a path stops here; kNoSlot: opaque
  int opacity_texture = -1;      // `mask` with a textured opacity: its luminance (index into Scene::textures)
  ColourInput emission;          // a colour or a texture (over the surface's UV); none: not emissive
  bool emissive = false;       // an area light (decides light sampling): declared emission,
                               // or for OBJ materials a non-zero Ke or Ka
  bool two_sided = false;      // emits from both sides (default: the front side only)
  // Mitsuba's reflecting BSDFs are one-sided: black seen from the back (its twosided makes them
  // two-sided). dray's are two-sided unless a material says one_sided (the Mitsuba reader does).
  bool one_sided = false;
  // Mitsuba's directionalarea: emits along its front normal only, a direction no camera ray or
  // light sample can meet (black to path and direct); light paths (ptracer) leave along it.
  bool directional = false;
  // `normalmap` (a texture's RGB is the normal in the shading frame) or `bumpmap` (a texture's
  // luminance, times bump_scale, is a height): indices into Scene::textures, or -1.
  int normal_map = -1, bump_map = -1;
  float bump_scale = 1.f;
  bool flip_invalid_normals = true;  // a perturbed normal turned to face the viewer
  bool shadowing = true;             // the shadow terminator on perturbed frames
};

// Mitsuba's shapegroup: meshes and sdfgrids drawn only through instances, stored and traced once.
struct ShapeGroup {
  std::string name;
  std::vector<Shape> members;  // as read: a mesh (Shape::mesh) or an sdfgrid (Shape::grid, in group space)
};

// Mitsuba's instance: a group under a transform. Its members are the shapes first_shape,
// first_shape + 1, ... (one per group member, all with the instance's transform).
struct Instance {
  std::string name;
  uint32_t group = 0;
  uint32_t first_shape = 0;
};

struct RenderSettings {
  int spp = 16;
  int max_depth = 6;  // bounces: 1 is direct lighting only
  int rr_depth = 3;   // Russian roulette from this bounce on (0: the first hit's continuation)
  uint64_t seed = 0;
  long boundary_samples = -1;  // boundary (edge) samples per derivative pass; -1: from the image size and spp
  double boundary_ratio = 0.05;  // without boundary_samples: pixels x spp x this (Mitsuba's projective integrators: 1)
  long indirect_samples = -1;  // edges seen from path vertices, per pass; -1: as many as boundary samples
  // Camera silhouettes sampled (Mitsuba's sppp other than 0), and shadow edges (Mitsuba's sppi,
  // with the indirect samples, other than 0): false leaves the boundary term the others.
  bool primary_visibility = true;
  bool shadow_visibility = true;
  PixelFilter filter;  // box: uniform in the pixel
  std::optional<Tile> crop;  // the window `dray render` writes (Mitsuba's film crop); --crop overrides it
  // Mitsuba's hdrfilm sample_border: pixel filters reach past the film's edge (true), or are cut
  // at the film (its crop) and renormalized (false, Mitsuba's default): filter_film.
  bool sample_border = false;
  // Mitsuba's hdrfilm splats: samples uniform in their pixels, spread over the pixels their filter
  // reaches, each divided by its weights (renderer/integrators/splat.h); false: each pixel's samples
  // drawn from its filter (importance sampling). Only with a filter other than the box.
  bool splat = false;
  // The integrator's place in the integrators' list (renderer/integrators/integrator_model.h:
  // path, volpath, ptracer); the kernel asks its traits there.
  int integrator = 0;
  // Mitsuba's hide_emitters: light sources seen from the camera directly (or through null
  // surfaces and media without scattering) are black; they still light the scene.
  bool hide_emitters = false;
  // Cells a side of each grid's majorant supergrid (renderer/media/grid_volume.h); 1: one majorant.
  int majorant_cells = 16;
  // Mitsuba's aov integrator: outputs beside the image (renderer/integrators/aov.h).
  std::vector<Aov> aovs;
  // Mitsuba's hdrfilm pixel_format: the colour channels dray render's EXR and Python's render
  // keep (renderer/sensors/film.h); derivative images stay RGB.
  PixelFormat pixel_format = PixelFormat::rgb;
  // Mitsuba's sampler plugin: how a pixel's camera samples draw their numbers (samplers/).
  SamplerPlugin sampler;
  // Mitsuba's direct integrator's emitter_samples and bsdf_samples, each 0 or 1: next-event
  // estimation, and BSDF-sampled rays' hits on emitters, on or off (MIS between them when both).
  int emitter_samples = 1, bsdf_samples = 1;
};

// One of the scene's cameras (Mitsuba's sensors): its parameters' slots and film, its name, and
// the medium it sits in (index into Scene::media, or -1).
struct Sensor {
  std::string name = "camera";
  Camera camera;
  int medium = -1;
  // Its plugin's keys that are not parameters (a distant sensor's target_point, an irradiance
  // meter's shape) as JSON text, so that its settings can be read back (camera_settings).
  std::string constants;
};

// One view of a pass: the sensor it renders through and the seed of its samples. A pass is given
// its shot (ImageRequest, GradientRequest); the scene's own sensor and render.seed are only the
// default a caller builds one from (Scene::shot), never state a pass writes and restores.
struct Shot {
  int sensor = 0;     // index into Scene::sensors
  uint64_t seed = 0;  // the seed of its samples
};

struct Scene {
  std::string path;  // the scene file, for messages
  ParamTable params;
  // At least one; their parameters are camera.* for the first sensor, sensors.NAME.* for the
  // others. `sensor` is the scene's own (the default shot's: dray render --sensor).
  std::vector<Sensor> sensors = std::vector<Sensor>(1);
  int sensor = 0;
  const Camera& camera(const Shot& shot) const { return sensors[size_t(shot.sensor)].camera; }
  int camera_medium(const Shot& shot) const { return sensors[size_t(shot.sensor)].medium; }
  // The scene's own view and its camera (readers, tools and tests; a pass takes its Shot).
  Shot shot() const { return {sensor, render.seed}; }
  const Camera& own_camera() const { return sensors[size_t(sensor)].camera; }
  Camera& own_camera() { return sensors[size_t(sensor)].camera; }
  RenderSettings render;
  std::vector<Texture> textures;
  // The mesh attribute names textures read and meshes hold (MeshAttribute::id, Texture::attribute).
  std::vector<std::string> attribute_names;
  int attribute_id(const std::string& name) {
    for (size_t i = 0; i < attribute_names.size(); ++i)
      if (attribute_names[i] == name) return int(i);
    attribute_names.push_back(name);
    return int(attribute_names.size() - 1);
  }
  std::vector<Bsdf> bsdfs;
  std::vector<Material> materials;
  std::vector<Shape> shapes;
  std::vector<Mesh> meshes;
  // The curve shapes' control points and how their meshes' vertices follow them (Python's
  // `curve.control_points`: python/dray/curves.py).
  std::vector<CurveTube> curves;
  // Constant grids, shared by the scene's copies: their BVH primitives point at them.
  std::vector<std::shared_ptr<const SdfGrid>> sdf_grids;
  std::vector<Light> lights;
  int environment = -1;  // index of the environment light, if any
  std::vector<Medium> media;
  std::vector<GridVolume> volumes;  // the media's grids
  bool has_masks = false;  // a `mask` material: shadow rays must cross surfaces
  std::vector<ShapeGroup> groups;
  std::vector<Instance> instances;
  SceneAccel bvh;  // the world's primitives, the groups' and the instances' (two levels)
  std::vector<std::string> warnings;  // for people: no light, an OBJ's missing .mtl

  // Recomputes world-space geometry from the parameters, rebuilds the BVH and the
  // area-light tables. Call after loading and after any parameter changes.
  void build_geometry();

  // The groups' trees (once) and the instances' transforms and top-level tree (build_geometry).
  void build_instances();

  // Rebuilds what is precomputed from parameter values (build_geometry does it too): an environment
  // map's sampling table from its texels, a rough plastic's coating table from its α and η. Call
  // after changing any parameter that does not move geometry.
  void refresh_tables();

  // Whether the parameter at `slot` shapes the geometry (a shape's position, size or transform).
  bool moves_geometry(Slot slot) const;
  // Whether build_geometry() must run after changing it: it moves the geometry, or it is a mesh's
  // shading normal. Colours, lights and the camera need no rebuild.
  bool needs_rebuild(Slot slot) const;

  // Mesh shape s's vertex v and corner normal c in world space (an instance's transformed here).
  // Shape si's sdfgrid as placed in world space (an instance's copy for a group member).
  const SdfGrid& world_grid(uint32_t si) const;
  glm::vec3 world_vertex(const Shape& s, uint32_t v) const;
  glm::vec3 world_normal(const Shape& s, size_t corner) const;

  // The material of BVH primitive `prim`.
  uint32_t material_of(uint32_t prim) const {
    const PrimRef r = bvh.prim_ref(prim);
    const Shape& s = shapes[r.shape];
    return s.is<MeshShape>() ? meshes[s.as<MeshShape>().mesh].face_materials[r.index] : s.material;
  }
};

// The film a pixel's filter is cut to (Mitsuba's hdrfilm without sample_border: its crop, else the
// whole film; renderer/sensors/pixel_filter.h); none with sample_border, or for the box filter,
// whose footprint is its own pixel.
inline std::optional<Tile> filter_film(const Scene& scene, const Shot& shot) {
  if (scene.render.sample_border || scene.render.filter.kind == PixelFilter::Kind::box) return std::nullopt;
  const Camera& camera = scene.camera(shot);
  return scene.render.crop.value_or(Tile{0, 0, camera.width, camera.height});
}

}  // namespace dray
