// The final scene of an optimization job (tools/optimize_job.h): the optimized values written back
// into the scene document, blocks as files beside it (a mesh's vertices as OBJ, texels as EXR;
// media grids in tools/final_scene_media.cpp), every relative file name rewritten for its folder.
#include <algorithm>

#include "renderer/image/image.h"
#include "renderer/io/obj_file.h"
#include "renderer/io/scene_loader.h"
#include "tools/optimize_job.h"

namespace fs = std::filesystem;

namespace dray::cli {

std::string block_file(const std::string& name) {
  if (is_media_block(name)) return name.substr(6) + ".vol";  // media.ID.KEY: ID.KEY.vol
  const std::string object = name.substr(name.find('.') + 1, name.rfind('.') - name.find('.') - 1);
  return object + (is_vertex_block(name) ? ".obj" : ".exr");
}

namespace {

// Every relative file the document names ("file": a shape's; "filename": an image's, a grid's,
// wherever it sits: a texture, a light, a material's inline texture, a medium) named relative to
// the output folder instead of the scene's. The files the final scene writes are named after.
void rebase_file_names(json& node, const fs::path& scene_dir, const fs::path& out_dir) {
  if (!node.is_object() && !node.is_array()) return;
  for (auto& [key, value] : node.items()) {
    if ((key == "file" || key == "filename") && node.is_object() && value.is_string()) {
      if (fs::path(value.get<std::string>()).is_absolute()) continue;
      const fs::path f = scene_dir / value.get<std::string>();
      value = fs::relative(fs::absolute(f), fs::absolute(out_dir)).string();
    } else {
      rebase_file_names(value, scene_dir, out_dir);
    }
  }
}

}  // namespace

json final_scene(const Job& job, json doc, const Scene& scene, const fs::path& out_dir) {
  JsonReader rd(job.file);
  rebase_file_names(doc, fs::path(job.scene_path).parent_path(), out_dir);
  for (const std::string& name : job.entries) {
    auto e = *scene.params.find(name);
    if (e.block() && is_vertex_block(name)) {
      // A mesh's vertices: the mesh written as OUTPUT/NAME.obj, which the final scene's shape
      // names (in object space, after any constant matrix, which it therefore drops).
      const std::string object = name.substr(7, name.size() - 16);
      for (const Mesh& m : scene.meshes)
        if (m.vertices == e.slot) write_obj_file(out_dir / block_file(name), m.object_positions, m.indices, m.corner_uvs);
      for (auto& s : doc["shapes"])
        if (s.is_object() && s.value("name", "") == object) {
          s["file"] = block_file(name);
          if (s.contains("transform") && s["transform"].is_object()) s["transform"].erase("matrix");
        }
      continue;
    }
    if (e.block() && is_media_block(name)) continue;  // final_scene_media
    if (e.block()) {
      // A texture's or an environment map's texels: written as a linear EXR beside the final
      // scene, which names it.
      const std::string object = name.substr(name.find('.') + 1, name.rfind('.') - name.find('.') - 1);
      Image img(int(e.shape[1]), int(e.shape[0]), 3);
      for (uint32_t i = 0; i < e.size; ++i) img.data[i] = scene.params.get(e.slot + i);
      const std::string file = block_file(name);
      write_image(img, (out_dir / file).string());
      json* t = nullptr;
      if (name.rfind("textures.", 0) == 0) t = &doc["textures"][object];
      else
        for (auto& l : doc["lights"])
          if (l.is_object() && l.value("name", "") == object) t = &l;
      if (t) {
        for (const char* k : {"width", "height", "value", "raw"}) t->erase(k);
        (*t)["filename"] = file;
      }
      continue;
    }
    json value = json::array();
    for (uint32_t i = 0; i < e.size; ++i) value.push_back(scene.params.get(e.slot + i));
    apply_override(doc, writable_key(doc, name, rd, "/params/" + name) + "=" + (e.size == 1 ? value[0] : value).dump());
  }
  final_scene_media(job, doc, scene, out_dir);
  return doc;
}

}  // namespace dray::cli
