// The final scene's media (tools/optimize_job.h): an optimised grid written as OUTPUT/ID.KEY.vol (.vdb
// where the scene gave it as an OpenVDB file),
// which the final scene names (the other grids' files are renamed with every relative file, in
// tools/final_scene.cpp).
#include <algorithm>

#include "renderer/io/grid_file.h"
#include "tools/optimize_job.h"

namespace fs = std::filesystem;

namespace dray::cli {

bool is_media_block(const std::string& name) { return name.rfind("media.", 0) == 0; }

void final_scene_media(const Job& job, nlohmann::json& doc, const Scene& scene, const fs::path& out_dir) {
  if (!doc.contains("media")) return;
  for (auto& [id, m] : doc["media"].items())
    for (const char* key : {"sigma_t", "albedo"}) {
      if (!m.is_object() || !m.contains(key) || !m[key].is_object() || !m[key].contains("filename")) continue;
      nlohmann::json& grid = m[key];
      const std::string name = "media." + id + "." + key;
      if (std::find(job.entries.begin(), job.entries.end(), name) != job.entries.end()) {
        const auto e = *scene.params.find(name);
        // In the format the scene gave it in (.vol, or OpenVDB's .vdb).
        std::string file = block_file(name);
        if (grid["filename"].is_string() && is_vdb_path(grid["filename"].get<std::string>())) file = fs::path(file).replace_extension(".vdb").string();
        // The block's shape is z, y, x, channels.
        write_grid_file((out_dir / file).string(), {int(e.shape[2]), int(e.shape[1]), int(e.shape[0])}, int(e.shape[3]),
                        scene.params.values().data() + e.slot, std::string(key) == "sigma_t" ? "density" : key);
        grid["filename"] = file;
      }
    }
}

}  // namespace dray::cli
