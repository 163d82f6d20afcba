#pragma once
// An optimization job (JSON) as dray optimize reads it, rank 0's optimizer state, its
// checkpoint, and the final scene written back.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "mpi/context.h"
#include "renderer/image/image_compare.h"
#include "renderer/io/json_reader.h"
#include "renderer/integrators/gradient_tiles.h"
#include "renderer/io/camera_reader.h"
#include "renderer/scene.h"

namespace dray::cli {

// One parameter the job optimises, as it names it: a scalar, a vector, one component NAME[i], a
// whole block (texels, vertices, voxels) or one element of it. Its scalars are consecutive slots
// of the scene's table under one set of options: nothing is kept per scalar.
struct Block {
  std::string key;  // the job's key as resolved: materials.white.albedo[1], textures.t.data
  int entry = -1;   // the whole vector or block it belongs to: an index into Job::entries
  Slot slot = 0;    // its first slot
  size_t size = 0;  // its scalars
  size_t first = 0;  // its first scalar in the job's arrays (State's): the earlier blocks' sizes
  double lr = 0, min = -INFINITY, max = INFINITY;  // the job's bounds
  Domain domain;     // the parameter's (renderer/core/param_domain.h): steps are projected onto it and the bounds
  bool of_block = false;  // of a parameter block: the console and progress.csv show its mean
  bool indexed = false;   // its scalars are named KEY[i] (a whole vector or block), else KEY
  std::string scalar_name(size_t i) const { return indexed ? key + "[" + std::to_string(i) + "]" : key; }
};

// One view of the object: a camera, and the image it should see.
struct View {
  CameraSettings camera;  // its sensor's camera (the target scene renders with it too)
  int sensor = 0;         // index into the job scene's sensors: one it names, or one added for its camera keys
  std::string target_image, target_scene;  // one of them
  int target_spp = 256;   // a target scene's samples
  double weight = 1;      // its share of the loss: w / (the batch's summed weights)
  std::string mask;       // an image of per-pixel loss weights (white 1, black 0), or none
  int spp = 256;          // a held-out view's render of the final values
};

// A block optimised through the large-steps preconditioner (renderer/shapes/smoothing.h): a
// mesh's vertices, a texture's texels or a medium's voxels, and λ.
struct LargeSteps {
  int block;  // index into Job::blocks
  double lambda;
  bool uniform;  // one Adam second moment for the block (vertices), else one per scalar (texels)
};

// A texture block whose resolution doubles after given iterations (counting from 1), as the
// heightmap of Mitsuba's caustics tutorial: its texels resampled bilinearly, its Adam moments
// restarted (Mitsuba's optimizer resets a parameter given a new shape).
struct Upsampling {
  int block;               // index into Job::blocks
  std::vector<int> after;  // ascending
};

// A step of the job's schedule: after iteration `after` (from 1) the learning rates are multiplied by
// lr_factor and the samples per pixel (both passes) by spp_factor, as the caustics tutorial's
// `if it in (700, 900): spp *= 2; lr *= 0.5`.
struct ScheduleStep {
  int after = 0;
  double lr_factor = 1;
  int spp_factor = 1;
};

struct Job {
  std::string file;
  std::filesystem::path dir;
  std::string scene_path, output;
  std::vector<View> views;  // the short form ("target" at the top level) is one view with the scene's camera
  bool multi_view = false;  // written with "views"
  // Views never in the loss: the final values rendered from each once the run ends and compared
  // with its target (held-out-N.exr beside held-out-target-N.exr; PSNR printed).
  std::vector<View> held_out;
  int batch = 0;            // views per iteration, a seeded choice (0: every view)
  int view_groups = 0;      // groups of ranks rendering views side by side (0: chosen from ranks and views)
  int spp = 8, iterations = 100, snapshot_every = 10, checkpoint_every = 10;
  std::string optimizer = "adam";
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double lr_decay = 1.0;  // the learning rates' factor at the last iteration (exponential schedule)
  int spp_grad = 0;       // the gradient pass's samples per pixel (0: spp); particle tracers (mi.render's spp_grad)
  std::vector<ScheduleStep> schedule;  // ascending `after`
  Loss loss = Loss::l2;
  std::string loss_name = "l2";
  uint64_t seed = 0;
  long boundary_samples = -1;        // per gradient pass; -1: the scene's (render.boundary_samples or its default)
  bool independent = true;           // adjoint samples independent of the primal's
  std::vector<std::string> entries;  // the parameters named, as whole vectors (NAME[i] gives NAME)
  std::vector<Block> blocks;         // in the job's order; their scalars one after another
  size_t scalar_count() const { return blocks.empty() ? 0 : blocks.back().first + blocks.back().size; }
  // Recounts Block::first after a block changed size.
  void number_blocks();
  // The scalars the console, progress.csv and the report list one by one (those not of a
  // parameter block, whose means they show): names and indices in the job's arrays.
  std::vector<std::pair<std::string, size_t>> listed_scalars() const;
  std::vector<LargeSteps> large_steps;
  std::vector<Upsampling> upsampling;
  // The iteration (from 1) after which block b was last upsampled before iteration `it` (from 0)
  // runs: Adam's step count restarts there. 0: never.
  int adam_restart(size_t b, int it) const;
  // Iteration `it` (from 0) under the schedule: the learning rates' step factor (before lr_decay),
  // the primal's and the gradient pass's samples per pixel.
  double lr_factor(int it) const;
  int spp_at(int it) const;
  int spp_grad_at(int it) const;
};

// Reads "spp_grad" and "schedule" (tools/job_schedule.cpp); spp_grad is refused where the scene's
// integrator refuses a gradient pass with its own samples (a path integrator's renders the image
// it differentiates).
void read_schedule(const JsonReader& rd, const json& j, Job& job, const RenderSettings& render);
// The schedule's settings for a checkpoint (none when the job has none, as before schedules).
void add_schedule_settings(const Job& job, json& settings);
// What changes after iteration k (from 1), for the console: "learning rates x0.5, 64 spp (32 for
// the gradient)"; empty when nothing does.
std::string schedule_change(const Job& job, int k);

// The views of iteration `iteration` (counting from 0), ascending: every view, or `batch` of
// them drawn without replacement from a generator seeded by the job's seed and the iteration
// (the same on every rank and on resume).
std::vector<int> batch_views(const Job& job, int iteration);

// What the command line changes of a job: its scene's values (--set) and defines (-D, Mitsuba XML),
// its output folder (-o).
struct JobEdits {
  std::vector<std::string> sets;
  std::map<std::string, std::string> defines;
  std::string output;
};

// Reads the job and its scene (not its target). Throws LoadError naming the job file and key.
Job parse_job(const std::string& path, Scene& scene, json& scene_doc, const JobEdits& edits = {});

// The settings a resumed job must share with the run that wrote the checkpoint: everything
// that changes the trajectory (iterations may grow; snapshots and checkpoints may change).
json job_settings(const Job& job, const json& scene_doc);

// A rank's optimizer state: its shard's (tools/job_shard.h). Iterations count from 1: iteration
// k renders, takes the k-th step, and is row k of progress.csv and snapshot-000k.png;
// `iteration` is the number completed. The values are the scene's (its parameter table, floats
// on every rank): nothing keeps a copy.
struct State {
  int iteration = 0;
  std::vector<double> m, v;   // Adam's moments per scalar of the shard, its pieces one after another
  std::vector<uint8_t> seen;  // per scalar, 1 once its gradient (before any preconditioning) was non-zero
};
struct Shard;

// Doubles the resolution of the blocks scheduled after iteration k (from 1): the scene's block
// resampled bilinearly (half-pixel centres, edges clamped: torch's and Dr.Jit's linear upsampling)
// and the job's block moved to its new slots and size, on every rank alike (its moments and
// `seen` restart: tools/job_shard.h, reshard_state). Returns a
// line per block upsampled: its name and new size ("textures.NAME.data to 32x32").
std::vector<std::string> upsample_blocks(Job& job, Scene& scene, int k);

// The checkpoint (tools/checkpoint.cpp): OUTPUT/checkpoint.json, a manifest naming the iteration,
// the settings and each block's arrays (its values as the scene holds them, float; Adam's
// moments, double; seen, a byte), which are binary files in a folder of the iteration's
// (OUTPUT/checkpoint-00000K/), written before the manifest that names them is replaced
// atomically; the folder of the checkpoint before is then removed. Collective: every rank's
// shard of the moments is streamed to rank 0, which writes the files.
void write_checkpoint(const mpi::Context& ctx, const Job& job, const json& settings, const State& s, const Shard& shard,
                      const ParamTable& params, const std::filesystem::path& out_dir);

// A checkpoint as read: its iteration, the blocks' values, keys and sizes, and where its arrays are.
struct Checkpoint {
  int iteration = 0;
  std::vector<float> values;                           // the job's blocks one after another
  std::vector<std::pair<std::string, size_t>> blocks;  // key and size
  std::filesystem::path folder;                        // OUTPUT/checkpoint-00000K
  json arrays;                                         // the manifest's blocks: their files and CRC-32s
};
// Reads the checkpoint's manifest and values; refuses one of a job with other settings, naming
// the keys that differ, and one whose arrays are not the manifest's (a size or a CRC-32).
Checkpoint read_checkpoint(const Job& job, const json& settings, const std::filesystem::path& out_dir);
// This rank's shard of the checkpoint's moments and `seen` (of any rank count's run).
void read_checkpoint_state(const Checkpoint& c, const Job& job, const Shard& shard, State& state);
// Refuses a checkpoint whose blocks are not the job's (after the upsamplings up to its iteration).
void check_checkpoint_blocks(const Job& job, const Checkpoint& c, const std::filesystem::path& out_dir);

// Each optimised block's texels that got a non-zero gradient in some iteration (`seen`: State::seen of every shard, in the blocks' order),
// as OUTPUT/NAME-seen.png: white where any of a texel's
// channels was seen. `dray diff --mask` compares a recovered texture over these texels only.
void write_seen_masks(const Job& job, const Scene& scene, const std::vector<uint8_t>& seen, const std::filesystem::path& out_dir);

// What reading the job and writing the final scene share (tools/optimize_job.cpp): a file name
// relative to dir unless absolute; whether `name` is a whole mesh vertex block (shapes.NAME.vertices);
// the key under which a parameter is written back into the scene document (--set syntax; an error
// at `where` for what cannot be: an inline texture, an OBJ file's material, a mesh's vertices
// without one material).
std::filesystem::path relative_to(const std::filesystem::path& dir, const std::string& p);
bool is_vertex_block(const std::string& name);
std::string writable_key(const json& doc, const std::string& name, const JsonReader& rd, const std::string& where);

// The file the final scene writes a block to: OBJECT.exr for texels, OBJECT.obj for a mesh's
// vertices (shapes.OBJECT.vertices), ID.KEY.vol for a medium's grid (media.ID.KEY).
std::string block_file(const std::string& name);

// The scene document with the optimized values (a vertex block as a mesh file); relative file paths rewritten relative to
// `out_dir`, absolute ones kept.
json final_scene(const Job& job, json doc, const Scene& scene, const std::filesystem::path& out_dir);

// Whether `name` is a medium's grid (media.ID.KEY); the final scene's media: optimised grids
// written as OUTPUT/ID.KEY.vol (tools/final_scene_media.cpp), other grid files named relative to
// `out_dir`.
bool is_media_block(const std::string& name);
void final_scene_media(const Job& job, json& doc, const Scene& scene, const std::filesystem::path& out_dir);

}  // namespace dray::cli
