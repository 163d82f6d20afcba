#pragma once
// Pieces shared by the dray subcommands.
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <omp.h>

#include "mpi/context.h"
#include "mpi/errors.h"
#include "renderer/image/image_compare.h"
#include "renderer/io/json_reader.h"
#include "renderer/scene.h"

namespace dray::cli {

inline constexpr int kExitDifferent = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;
inline constexpr int kExitInterrupted = 130;

// Flag checks whose messages a person reads: `--spp must be a whole number ≥ 1, got "0"`.
CLI::Validator whole_number(long long min, long long max = std::numeric_limits<long long>::max());
CLI::Validator real_number(double min, bool inclusive, double max = INFINITY);

// SCENE, --set (one KEY=VALUE per use), --spp, --seed: shared by render, params and gradcheck.
struct SceneArgs {
  std::string scene;
  std::vector<std::string> sets;
  std::vector<std::string> defines_given;  // -D name=value (Mitsuba XML scenes)
  int spp = 0;
  long seed = -1;
  long boundary_samples = -1;
  long indirect_samples = -1;

  void add_to(CLI::App* cmd);
  std::vector<std::string> overrides() const;  // --spp, --seed and --boundary-samples as --set
  std::map<std::string, std::string> defines() const;  // -D, as name -> value
};

// -D NAME=VALUE and --set KEY=VALUE (one per use): a scene's edits, for render, params, gradcheck
// and optimize alike.
void add_scene_edits(CLI::App* cmd, std::vector<std::string>& sets, std::vector<std::string>& defines_given);
// -D's NAME=VALUE as name -> value; throws LoadError for a malformed one.
std::map<std::string, std::string> parse_defines(const std::vector<std::string>& defines_given);

// Prints the agreed error once (rank 0) and returns its exit code.
inline int report(const mpi::Context& ctx, const mpi::Status& status) {
  if (status.code != 0 && ctx.is_root()) std::fprintf(stderr, "dray: %s\n", status.message.c_str());
  return status.code;
}

// --threads, else OMP_NUM_THREADS, else the node's cores / ranks on the node.
inline int resolve_threads(const mpi::Context& ctx, int requested) {
  int n = requested;
  if (n <= 0)
    if (const char* env = std::getenv("OMP_NUM_THREADS")) n = std::atoi(env);
  if (n <= 0) n = ctx.default_threads();
  omp_set_num_threads(n);  // also for what runs outside the render kernels (BVH builds)
  return n;
}

// Refuses, before anything is allocated, an image whose buffers would not fit: every rank holds
// `copies` full images of `channels` floats (rank 0 gathers into a second one), against the
// node's available memory shared by its ranks. The image must also fit in one MPI message
// (counts are ints).
inline void check_image_memory(const mpi::Context& ctx, const std::string& scene_path, int width, int height,
                               int channels, double copies) {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const double values = double(width) * height * channels;
  const double need = values * sizeof(float) * copies;
  const double have = ctx.available_bytes_per_rank();
  char msg[400];
  if (need > 0.8 * have)
    std::snprintf(msg, sizeof msg,
                  "%s: /camera: a %dx%d image with %d channels needs %.1f GiB per rank, but only %.1f GiB is "
                  "available per rank (%d on this node); lower /camera/width and /camera/height, or ask for fewer "
                  "derivatives",
                  scene_path.c_str(), width, height, channels, need / gib, have / gib, ctx.ranks_on_node());
  else if (values > double(std::numeric_limits<int>::max()))
    std::snprintf(msg, sizeof msg,
                  "%s: /camera: a %dx%d image with %d channels has %.3g values, more than one MPI message carries "
                  "(2^31 - 1); lower /camera/width and /camera/height, or ask for fewer derivatives",
                  scene_path.c_str(), width, height, channels, values);
  else
    return;
  throw LoadError(msg);
}

void add_threads_option(CLI::App* cmd, int& threads);

// Before any work: refuses two outputs naming one file ({flag, path} pairs; empty paths are
// skipped) and checks that each can be written, creating its folder but never the file itself
// (a temporary file beside it is created and removed). Throws LoadError.
void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);
void check_writable(const std::filesystem::path& path);

// The scene's loading warnings (no light, an OBJ's missing .mtl), once, on rank 0's stderr.
void print_warnings(const mpi::Context& ctx, const Scene& scene);

// The scalars named for one derivative image each (--wrt, --param): a whole parameter block (a
// texture's texels) is refused, naming how to pick elements. Throws LoadError.
std::vector<ScalarParam> resolve_per_image(const Scene& scene, const std::vector<std::string>& names, const std::string& flag);

// A parameter name as a file-name part, with nothing a shell expands: NAME[i] -> NAME.i.
std::string derivative_file_stem(const std::string& param);

// From now on SIGINT or SIGTERM (mpirun's Ctrl-C) removes a partly written output file, prints
// `message` on rank 0 and exits 130. Call again to change the message.
void on_interrupt_print(const mpi::Context& ctx, const std::string& message);
// From now on SIGINT, SIGTERM or SIGPIPE also writes `contents` to `file` (atomically: a
// temporary renamed) before exiting: a job's report saying "interrupted at iteration N". Rank 0.
void on_interrupt_write(const std::filesystem::path& file, std::string contents);

// --alpha, --max-fail-share, --max-global-z: the statistical test's settings.
void add_ztest_options(CLI::App* cmd, ZTestOptions& z);

// The commands, each run by every rank.
struct RenderArgs {
  SceneArgs scene;
  std::string output, variance;
  std::vector<std::string> wrt;
  std::vector<int> crop;  // X0 Y0 X1 Y1, or empty
  std::string sensor;     // a sensor's index or name, or empty: the first
  double exposure = 0;
  int threads = 0;
  int tile_size = 16;
  std::string distribution = "static";
  bool quiet = false, progress = false, stats = false;
};
CLI::App* add_render_command(CLI::App& app, RenderArgs& args);
int run_render(const mpi::Context& ctx, const RenderArgs& args);

struct DiffArgs {
  std::string test, ref, heatmap, ref_variance, mask;
  double tol = 0.01, max_share = 0.0;
  int test_spp = 0, ref_spp = 0;
  ZTestOptions z;
};
CLI::App* add_diff_command(CLI::App& app, DiffArgs& args);
int run_diff(const mpi::Context& ctx, const DiffArgs& args);

struct GradcheckArgs {
  SceneArgs scene;
  std::vector<std::string> params;
  int threads = 0, pixels = 3, fd_spp = 0, seeds = 1;
  double tol = 0.01, tol_reverse = 1e-5, step = 1e-3;
};
CLI::App* add_gradcheck_command(CLI::App& app, GradcheckArgs& args);
int run_gradcheck(const mpi::Context& ctx, const GradcheckArgs& args);

// The files of one derivative image: OUT-stem.d.PARAM.exr (signed, RGB) and .png (diverging
// colours of the channel mean, blue negative, white zero, red positive, +-scale), PARAM written
// as derivative_file_stem gives it.
struct DerivativeFiles {
  std::string exr, png;
  float scale = 0.f;
};
DerivativeFiles derivative_files(const std::string& out, const std::string& param);
DerivativeFiles write_derivative(const Image& image, int channel, const std::string& out, const std::string& param);

struct ConvertArgs {
  SceneArgs scene;
  std::string output;
};
CLI::App* add_convert_command(CLI::App& app, ConvertArgs& args);
int run_convert(const mpi::Context& ctx, const ConvertArgs& args);

struct OptimizeArgs {
  std::string job;
  std::vector<std::string> sets, defines_given;  // the job's scene edited (--set, -D)
  std::string output;                            // -o: instead of the job's "output"
  bool resume = false, force = false, quiet = false, progress = false;
  int threads = 0;
};
CLI::App* add_optimize_command(CLI::App& app, OptimizeArgs& args);
int run_optimize(const mpi::Context& ctx, const OptimizeArgs& args);

struct RegressArgs {
  std::string dir, report = "regress-report";
  std::vector<std::string> cases;  // --case: only these
  bool update_goldens = false;
  int golden_spp = 4096;
  int threads = 0;
  ZTestOptions z;
};
CLI::App* add_regress_command(CLI::App& app, RegressArgs& args);
int run_regress(const mpi::Context& ctx, const RegressArgs& args);

struct MitsubaSuiteArgs {
  std::string dir, output = "mitsuba-suite";
  std::vector<std::string> scenes;  // --scene: only these
  long budget = 2000000;            // samples per image, as Mitsuba's test_renders.py
  int threads = 0;
};
CLI::App* add_mitsuba_suite_command(CLI::App& app, MitsubaSuiteArgs& args);
int run_mitsuba_suite(const mpi::Context& ctx, const MitsubaSuiteArgs& args);

}  // namespace dray::cli
