#include "renderer/io/scene_reshape.h"

#include <algorithm>

#include "renderer/integrators/silhouette.h"
#include "renderer/core/load_error.h"
#include "renderer/io/medium_reader.h"
#include "renderer/shapes/mesh_normals.h"

namespace dray {

namespace {

std::string shape_text(const std::vector<uint32_t>& shape) {
  std::string out;
  for (uint32_t n : shape) out += (out.empty() ? "" : " x ") + std::to_string(n);
  return out.empty() ? "a scalar" : out;
}

size_t product(const std::vector<uint32_t>& shape) {
  size_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

void check_values(const ParamEntry& entry, const BlockReshape& r) {
  if (product(r.shape) != r.values.size() || r.values.empty())
    throw LoadError(r.name + ": " + std::to_string(r.values.size()) + " values do not fill a block of " + shape_text(r.shape));
  for (size_t i = 0; i < r.values.size(); ++i)
    if (auto why = entry.domain.violation(r.values[i])) throw LoadError(r.name + ": value " + std::to_string(i) + ": " + *why);
}

// The new block must keep the number of dimensions and the last one (channels, a vertex's 3).
void check_shape(const ParamEntry& entry, const BlockReshape& r, const char* what) {
  if (r.shape.size() != entry.shape.size() || r.shape.back() != entry.shape.back())
    throw LoadError(r.name + ": is " + shape_text(entry.shape) + " (" + what + "); a new size keeps the dimensions and the last one, got " +
                    shape_text(r.shape));
  check_values(entry, r);
}

// A mesh takes new vertices (and faces, or keeps its own when the count is the same).
void remesh(Scene& scene, Shape& shape, const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& faces) {
  Mesh& m = scene.meshes[shape.as<MeshShape>().mesh];
  const std::string name = "shapes." + shape.name;
  if (!m.attributes.empty()) throw LoadError(name + ": a mesh with attributes (a PLY's vertex_ or face_ values) cannot be remeshed");
  const uint32_t material = m.face_materials.empty() ? 0 : m.face_materials[0];
  if (std::any_of(m.face_materials.begin(), m.face_materials.end(), [&](uint32_t f) { return f != material; }))
    throw LoadError(name + ": a mesh with several materials cannot be remeshed (which face would take which?)");
  if (faces.empty() || faces.size() % 3) throw LoadError(name + ".faces: expected F x 3 vertex indices, got " + std::to_string(faces.size()) + " values");
  for (size_t i = 0; i < faces.size(); ++i)
    if (faces[i] >= positions.size())
      throw LoadError(name + ".faces: face " + std::to_string(i / 3) + " names vertex " + std::to_string(faces[i]) + " of " +
                      std::to_string(positions.size()));
  const bool smooth = !m.object_normals.empty();
  m.object_positions = positions;
  m.indices = faces;
  m.face_materials.assign(faces.size() / 3, material);
  m.corner_uvs.clear();
  m.edges = mesh_edges(m);
  if (shape.interior >= 0 && open_edges(m) > 0)
    throw LoadError(name + ".faces: the mesh bounds medium \"" + scene.media[size_t(shape.interior)].name + "\" but is not closed (" +
                    std::to_string(open_edges(m)) + " open edges)");
  m.object_normals = smooth ? vertex_normals(m.object_positions, m.indices) : std::vector<glm::vec3>{};
  if (m.normals == kNoSlot) return;
  std::vector<float> per_vertex(3 * positions.size(), 0.f);
  for (size_t c = 0; c < m.indices.size(); ++c)
    for (int k = 0; k < 3; ++k) per_vertex[3 * m.indices[c] + size_t(k)] = m.object_normals[c][k];
  for (size_t v = 0; v < positions.size(); ++v)
    if (per_vertex[3 * v] == 0.f && per_vertex[3 * v + 1] == 0.f && per_vertex[3 * v + 2] == 0.f) per_vertex[3 * v + 2] = 1.f;  // on no face
  m.normals = scene.params.reshape_block(name + ".normals", per_vertex, {uint32_t(positions.size()), 3u});
}

Shape* mesh_shape(Scene& scene, const std::string& shape_name) {
  for (Shape& s : scene.shapes)
    if (s.name == shape_name && s.is<MeshShape>() && s.instance < 0 && scene.meshes[s.as<MeshShape>().mesh].vertices != kNoSlot) return &s;
  return nullptr;
}

std::vector<glm::vec3> positions_of(const std::vector<float>& flat) {
  std::vector<glm::vec3> out(flat.size() / 3);
  for (size_t i = 0; i < out.size(); ++i) out[i] = {flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]};
  return out;
}

}  // namespace

void reshape_blocks(Scene& scene, const std::vector<BlockReshape>& reshapes, const std::vector<FacesUpdate>& faces) {
  std::vector<const FacesUpdate*> faces_left;
  for (const FacesUpdate& f : faces) faces_left.push_back(&f);
  for (const BlockReshape& r : reshapes) {
    const std::optional<ParamEntry> entry = scene.params.find(r.name);
    if (!entry || !entry->block()) throw LoadError(r.name + ": not a parameter block (only blocks change size)");
    auto is = [&](Slot s) { return s == entry->slot; };
    if (auto g = std::find_if(scene.volumes.begin(), scene.volumes.end(), [&](const GridVolume& v) { return is(v.data); });
        g != scene.volumes.end()) {
      check_shape(*entry, r, "Z x Y x X x channels");
      g->res = {int(r.shape[2]), int(r.shape[1]), int(r.shape[0])};
      g->data = scene.params.reshape_block(entry->name, r.values, r.shape);
      continue;
    }
    BitmapTexture* bitmap = nullptr;
    for (Texture& t : scene.textures)
      if (auto* b = std::get_if<BitmapTexture>(&t.model); b && is(b->data)) bitmap = b;
    if (bitmap) {
      check_shape(*entry, r, "height x width x 3");
      bitmap->height = int(r.shape[0]);
      bitmap->width = int(r.shape[1]);
      bitmap->data = scene.params.reshape_block(entry->name, r.values, r.shape);
      continue;
    }
    Shape* shape = nullptr;
    for (Shape& s : scene.shapes)
      if (s.is<MeshShape>() && s.instance < 0 && is(scene.meshes[s.as<MeshShape>().mesh].vertices)) shape = &s;
    if (!shape) throw LoadError(r.name + ": this block's size is fixed (grids, bitmaps and a mesh's vertices change size)");
    check_shape(*entry, r, "vertices x 3");
    Mesh& m = scene.meshes[shape->as<MeshShape>().mesh];
    auto own_faces = std::find_if(faces_left.begin(), faces_left.end(), [&](const FacesUpdate* f) { return f->shape == shape->name; });
    if (own_faces == faces_left.end() && r.shape[0] != m.object_positions.size())
      throw LoadError(r.name + ": " + std::to_string(r.shape[0]) + " vertices for a mesh of " + std::to_string(m.object_positions.size()) +
                      " (set its faces with them)");
    const std::vector<uint32_t> new_faces = own_faces == faces_left.end() ? m.indices : (*own_faces)->faces;
    if (own_faces != faces_left.end()) faces_left.erase(own_faces);
    remesh(scene, *shape, positions_of(r.values), new_faces);
    m.vertices = scene.params.reshape_block(entry->name, r.values, r.shape);
  }
  for (const FacesUpdate* f : faces_left) {  // new faces over the same vertices
    Shape* shape = mesh_shape(scene, f->shape);
    if (!shape) throw LoadError("shapes." + f->shape + ".faces: not a mesh whose vertices are parameters");
    const Mesh& m = scene.meshes[shape->as<MeshShape>().mesh];
    remesh(scene, *shape, m.object_positions, f->faces);
  }
}

}  // namespace dray
