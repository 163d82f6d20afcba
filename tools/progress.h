#pragma once
// A one-line progress bar on stderr, drawn when stderr is a terminal, or always when forced
// (under mpirun a rank's stderr is a pipe to the launcher even when the user sees a terminal).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace dray {

class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled, bool force = false)
      : label_(std::move(label)), enabled_(enabled && (force || isatty(STDERR_FILENO))),
        start_(std::chrono::steady_clock::now()) {}
  ~ProgressBar() { finish(); }

  // Draws at most ~10 times a second.
  void update(double fraction) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (fraction < 1.0 && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const int width = 40;
    int filled = int(fraction * width + 0.5);
    double secs = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r%s [%s%s] %3d%% %.1fs", label_.c_str(), std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), int(fraction * 100 + 0.5), secs);
    std::fflush(stderr);
    drawn_ = true;
  }
  void finish() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
  }

 private:
  std::string label_;
  bool enabled_, drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace dray
