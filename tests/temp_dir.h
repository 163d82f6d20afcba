#pragma once
// Tests' scratch files: a temporary folder with files in it, removed at the end.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace dray::testing {

struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string& prefix)
      : dir(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir);
  }
  ~TempDir() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

}  // namespace dray::testing
