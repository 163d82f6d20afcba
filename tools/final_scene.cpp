// The final scene of an optimization job (tools/optimize_job.h): the optimized values written back
// into the scene document, blocks as files beside it (a mesh's vertices as OBJ, texels as EXR;
// media grids in tools/final_scene_media.cpp), relative file names rewritten for its folder.
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

json final_scene(const Job& job, json doc, const Scene& scene, const fs::path& out_dir) {
  JsonReader rd(job.file);
  const fs::path scene_dir = fs::path(job.scene_path).parent_path();
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
  if (doc.contains("textures"))  // image files the final scene did not write: relative to it
    for (auto& [key, t] : doc["textures"].items())
      if (t.is_object() && t.contains("filename") && t["filename"].is_string() &&
          !fs::path(t["filename"].get<std::string>()).is_absolute() &&
          std::find(job.entries.begin(), job.entries.end(), "textures." + key + ".data") == job.entries.end()) {
        fs::path f = relative_to(scene_dir, t["filename"]);
        t["filename"] = fs::relative(fs::absolute(f), fs::absolute(out_dir)).string();
      }
  if (doc.contains("lights"))  // environment maps the final scene did not write
    for (auto& l : doc["lights"])
      if (l.is_object() && l.contains("filename") && l["filename"].is_string() &&
          !fs::path(l["filename"].get<std::string>()).is_absolute() &&
          std::find(job.entries.begin(), job.entries.end(), "lights." + l.value("name", "") + ".data") == job.entries.end()) {
        fs::path f = relative_to(scene_dir, l["filename"]);
        l["filename"] = fs::relative(fs::absolute(f), fs::absolute(out_dir)).string();
      }
  if (doc.contains("shapes"))
    for (auto& s : doc["shapes"])
      if (s.contains("file") && s["file"].is_string() && !fs::path(s["file"].get<std::string>()).is_absolute() &&
          std::find(job.entries.begin(), job.entries.end(), "shapes." + s.value("name", "") + ".vertices") == job.entries.end()) {
        fs::path f = relative_to(scene_dir, s["file"]);
        s["file"] = fs::relative(fs::absolute(f), fs::absolute(out_dir)).string();
      }
  return doc;
}

}  // namespace dray::cli
