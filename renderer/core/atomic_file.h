#pragma once
// Files written atomically: the content goes to a temporary file beside the target, is flushed
// to disk, and is then renamed over the target. A kill at any moment leaves either the old file
// or the new one, never a torn one (rename is atomic within a file system, POSIX).
#include <cstdio>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace dray {

// The temporary file being written, if any, for a signal handler to remove (async-signal-safe:
// a fixed buffer and unlink).
inline char g_partial_file[4096] = "";
inline void remove_partial_file() {
  if (g_partial_file[0]) ::unlink(g_partial_file);
}

// Calls write(temporary path), makes the temporary file durable, renames it to `path`. On
// failure the temporary file is removed and std::runtime_error names `path`.
inline void replace_file(const std::filesystem::path& path, const std::function<void(const std::string&)>& write) {
  namespace fs = std::filesystem;
  fs::path tmp = path;
  tmp += ".part" + std::to_string(::getpid());
  std::error_code ec;
  std::snprintf(g_partial_file, sizeof g_partial_file, "%s", tmp.c_str());
  struct Forget {
    ~Forget() { g_partial_file[0] = '\0'; }
  } forget;
  try {
    write(tmp.string());
    const int fd = ::open(tmp.c_str(), O_RDONLY);
    const bool synced = fd >= 0 && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!synced) throw std::runtime_error(path.string() + ": cannot write (flush failed)");
    fs::rename(tmp, path, ec);
    if (ec) throw std::runtime_error(path.string() + ": cannot write: " + ec.message());
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
}

inline void write_text_file(const std::filesystem::path& path, const std::string& text) {
  replace_file(path, [&](const std::string& tmp) {
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw std::runtime_error(path.string() + ": cannot open for writing");
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) throw std::runtime_error(path.string() + ": cannot write");
  });
}

}  // namespace dray
