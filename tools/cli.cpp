// Pieces shared by the dray subcommands: flag checks with messages for people, output paths
// checked before any work, warnings, and what a signal does.
#include "tools/cli.h"

#include <atomic>
#include <csignal>
#include <fcntl.h>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "renderer/core/atomic_file.h"

namespace fs = std::filesystem;

namespace dray::cli {

namespace {

// A whole decimal number, optionally signed, that fits in a long long.
bool parse_whole(const std::string& s, long long& v) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  if (i == s.size() || !std::all_of(s.begin() + long(i), s.end(), ::isdigit)) return false;
  errno = 0;
  v = std::strtoll(s.c_str(), nullptr, 10);
  return errno == 0;
}

}  // namespace

CLI::Validator whole_number(long long min, long long max) {
  std::string range = max == std::numeric_limits<long long>::max() ? "≥ " + std::to_string(min)
                                                                   : "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  return CLI::Validator(
      [min, max, range](std::string& s) -> std::string {
        long long v = 0;
        if (!parse_whole(s, v) || v < min || v > max) return "must be a whole number " + range + ", got \"" + s + "\"";
        return {};
      },
      "", "whole number");
}

CLI::Validator real_number(double min, bool inclusive, double max) {
  std::string range = std::string(inclusive ? "≥ " : "> ") + fmt_number(min);
  if (max < INFINITY) range = (inclusive ? "in [" : "in (") + fmt_number(min) + ", " + fmt_number(max) + "]";
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = s.empty() ? NAN : std::strtod(s.c_str(), &end);
        const bool ok = !s.empty() && *end == '\0' && errno == 0 && std::isfinite(v) && (inclusive ? v >= min : v > min) && v <= max;
        return ok ? std::string() : "must be a number " + range + ", got \"" + s + "\"";
      },
      "", "number");
}

void add_scene_edits(CLI::App* cmd, std::vector<std::string>& sets, std::vector<std::string>& defines_given) {
  cmd->add_option("-D", defines_given,
                  "Set a Mitsuba XML scene's $name, NAME=VALUE, one per -D (overrides its <default name=\"NAME\">), as "
                  "Mitsuba's -D")
      ->allow_extra_args(false);
  cmd->add_option("--set", sets,
                  "Override a scene value, KEY=VALUE, one per --set (e.g. --set render.spp=4 --set shapes.ball.radius=2; "
                  "KEY may be any parameter name of dray params, NAME[i] one component; VALUE is JSON, a bare word a "
                  "string, null removes the key)")
      ->allow_extra_args(false);
}

void SceneArgs::add_to(CLI::App* cmd) {
  cmd->add_option("SCENE", scene, "Scene file: dray JSON, or Mitsuba 3 XML (.xml)")->required();
  add_scene_edits(cmd, sets, defines_given);
  cmd->add_option("--spp", spp, "Samples per pixel (default: the scene's render.spp; same as --set render.spp=N)")
      ->check(whole_number(1, 1 << 20));
  cmd->add_option("--seed", seed, "Random seed (default: the scene's render.seed; same as --set render.seed=S)")
      ->check(whole_number(0, std::numeric_limits<long>::max()));
  cmd->add_option("--boundary-samples", boundary_samples,
                  "Camera-silhouette samples per derivative pass for the visibility (boundary) term, plus half as many for shadow edges; 0: none (default: the scene's "
                  "render.boundary_samples, else pixels x spp x render.boundary_ratio (1/20 unless set), at least 1024; same as --set "
                  "render.boundary_samples=N)")
      ->check(whole_number(0, 1L << 40));
  cmd->add_option("--indirect-samples", indirect_samples,
                  "Samples per derivative pass for edges seen indirectly (in reflections, through rough glass, after a bounce; "
                  "max_depth >= 2); 0: none (default: the scene's render.indirect_samples, else as many as boundary samples; "
                  "same as --set render.indirect_samples=N)")
      ->check(whole_number(0, 1L << 40));
}

std::vector<std::string> SceneArgs::overrides() const {
  std::vector<std::string> o = sets;
  if (spp > 0) o.push_back("render.spp=" + std::to_string(spp));
  if (seed >= 0) o.push_back("render.seed=" + std::to_string(seed));
  if (boundary_samples >= 0) o.push_back("render.boundary_samples=" + std::to_string(boundary_samples));
  if (indirect_samples >= 0) o.push_back("render.indirect_samples=" + std::to_string(indirect_samples));
  return o;
}

std::map<std::string, std::string> SceneArgs::defines() const { return parse_defines(defines_given); }

std::map<std::string, std::string> parse_defines(const std::vector<std::string>& defines_given) {
  std::map<std::string, std::string> d;
  for (const std::string& given : defines_given) {
    const size_t eq = given.find('=');
    if (eq == std::string::npos || eq == 0) throw LoadError("-D " + given + ": expected NAME=VALUE");
    d[given.substr(0, eq)] = given.substr(eq + 1);
  }
  return d;
}

void add_threads_option(CLI::App* cmd, int& threads) {
  cmd->add_option("--threads", threads,
                  "OpenMP threads per rank (default: OMP_NUM_THREADS, else the node's cores / ranks on the node)")
      ->check(whole_number(1, 4096));
}

// Output files: distinct, and their folders writable, checked without creating the file itself.
void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  std::vector<std::pair<fs::path, std::string>> seen;
  for (const auto& [flag, path] : outputs) {
    if (path.empty()) continue;
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(fs::absolute(path), ec);
    if (ec) resolved = fs::absolute(path).lexically_normal();
    for (const auto& [other, other_flag] : seen)
      if (other == resolved)
        throw LoadError(other_flag + " and " + flag + " both name " + path + ": give each output its own file");
    seen.push_back({resolved, flag});
  }
  for (const auto& [flag, path] : outputs)
    if (!path.empty()) check_writable(path);
}

void check_writable(const fs::path& path) {
  const fs::path dir = path.parent_path();
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (ec) throw LoadError(path.string() + ": cannot create folder " + dir.string() + ": " + ec.message());
  if (fs::is_directory(path, ec)) throw LoadError(path.string() + ": is a folder, not a file");
  // A temporary file beside the output, removed at once: the output's own name is only ever
  // created by the atomic rename of a complete file.
  fs::path probe = path;
  probe += ".probe" + std::to_string(::getpid());
  { std::ofstream f(probe); if (!f) throw LoadError(path.string() + ": cannot write there (" + std::strerror(errno) + ")"); }
  fs::remove(probe, ec);
}

void print_warnings(const mpi::Context& ctx, const Scene& scene) {
  if (!ctx.is_root()) return;
  for (const std::string& w : scene.warnings) std::fprintf(stderr, "dray: warning: %s\n", w.c_str());
}

std::vector<ScalarParam> resolve_per_image(const Scene& scene, const std::vector<std::string>& names, const std::string& flag) {
  for (const std::string& name : names)
    if (auto e = scene.params.find(name); e && e->block()) {
      std::string shape;
      for (uint32_t d : e->shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
      throw LoadError(flag + " " + name + ": a " + shape + " block of " + std::to_string(e->size) +
                      " values, one image each; name elements as " + name + "[i,j,c]");
    }
  try {
    return resolve_scalars(scene.params, names);
  } catch (const std::runtime_error& e) {
    throw LoadError(e.what());
  }
}

std::string derivative_file_stem(const std::string& param) {
  // materials.red.albedo[1] -> materials.red.albedo.1: no characters a shell would expand.
  std::string s;
  for (char c : param) {
    if (c == '[' || c == ',') s += '.';
    else if (c != ']') s += c;
  }
  return s;
}

namespace {

char g_interrupt_message[512] = "";
// A file to write on a signal (its path, a temporary beside it, its contents), set by
// on_interrupt_write: two slots, the handler reads the active one while the next is filled (a
// signal may reach any thread, whose mask is not the main thread's).
struct InterruptFile {
  std::string file, tmp, contents;
};
InterruptFile g_interrupt_files[2];
std::atomic<int> g_interrupt_active{-1};

// Only async-signal-safe calls: unlink, open, write, close, rename, _exit.
extern "C" void on_interrupt(int) {
  remove_partial_file();
  if (const int active = g_interrupt_active.load(); active >= 0) {
    const InterruptFile& f = g_interrupt_files[active];
    const int fd = ::open(f.tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      size_t done = 0;
      while (done < f.contents.size()) {
        const ssize_t n = ::write(fd, f.contents.data() + done, f.contents.size() - done);
        if (n <= 0) break;
        done += size_t(n);
      }
      ::close(fd);
      if (done == f.contents.size()) ::rename(f.tmp.c_str(), f.file.c_str());
      else ::unlink(f.tmp.c_str());
    }
  }
  if (g_interrupt_message[0]) {
    ssize_t ignored = ::write(STDERR_FILENO, g_interrupt_message, std::strlen(g_interrupt_message));
    (void)ignored;
  }
  ::_exit(kExitInterrupted);
}

// Runs `change` while no signal can be delivered (the handler never reads a half-made value), and
// installs the handler for SIGINT, SIGTERM (mpirun's) and SIGPIPE (a closed pipe: `| head`).
template <class F>
void with_signals_blocked(F&& change) {
  sigset_t block, old;
  sigemptyset(&block);
  for (int s : {SIGINT, SIGTERM, SIGPIPE}) sigaddset(&block, s);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  change();
  static bool installed = false;
  if (!installed) {
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGINT, SIGTERM, SIGPIPE}) sigaction(s, &sa, nullptr);
    installed = true;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace

void on_interrupt_print(const mpi::Context& ctx, const std::string& message) {
  with_signals_blocked([&] {
    std::snprintf(g_interrupt_message, sizeof g_interrupt_message, "%s", ctx.is_root() ? (message + "\n").c_str() : "");
  });
}

void on_interrupt_write(const std::filesystem::path& file, std::string contents) {
  with_signals_blocked([&] {
    const int next = g_interrupt_active.load() == 0 ? 1 : 0;
    g_interrupt_files[next] = {file.string(), file.string() + ".interrupted.tmp", std::move(contents)};
    g_interrupt_active.store(next);
  });
}

}  // namespace dray::cli
