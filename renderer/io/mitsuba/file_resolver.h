#pragma once
// Mitsuba 3's file resolver (src/core/fresolver.cpp, as src/core/parser.cpp and the Python
// load_file use it): an ordered list of folders; a relative path resolves to the first folder
// that holds it, else stays as given. Loading a scene starts the list with the scene's folder
// (then the working directory); <path value> prepends a folder (relative to the file naming it,
// else through the list); an <include> is resolved, and parsed, with the including file's folder
// prepended to a copy of the list. Plugins resolve their files (meshes, bitmaps, volumes) against
// the top-level list once the whole file is read.
#include <filesystem>
#include <string>
#include <vector>

namespace dray::mitsuba {

class FileResolver {
 public:
  explicit FileResolver(const std::filesystem::path& scene_folder) {
    paths_.push_back(std::filesystem::current_path());
    prepend(scene_folder);
  }
  void prepend(const std::filesystem::path& folder) { paths_.insert(paths_.begin(), folder.empty() ? "." : folder); }
  // The first existing folder/p, or p itself (absolute, or not found anywhere).
  std::filesystem::path resolve(const std::filesystem::path& p) const {
    if (p.is_absolute()) return p;
    for (const std::filesystem::path& base : paths_) {
      std::error_code ec;
      if (std::filesystem::exists(base / p, ec)) return base / p;
    }
    return p;
  }
  // "A, B, C": the folders searched, for error messages.
  std::string folders() const {
    std::string s;
    for (const std::filesystem::path& base : paths_) s += (s.empty() ? "" : ", ") + base.string();
    return s;
  }

 private:
  std::vector<std::filesystem::path> paths_;
};

}  // namespace dray::mitsuba
