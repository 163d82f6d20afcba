// A job's checkpoint (tools/optimize_job.h): a JSON manifest, and per block and quantity one
// binary array (little-endian doubles; `seen` one byte a scalar) in a folder of the iteration's.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include <zlib.h>

#include "renderer/core/atomic_file.h"
#include "renderer/core/load_error.h"
#include "tools/job_shard.h"
#include "tools/optimize_job.h"

namespace fs = std::filesystem;

namespace dray::cli {

namespace {

constexpr const char* kFormat = "dray checkpoint 2";

std::string folder_name(int iteration) {
  char name[32];
  std::snprintf(name, sizeof name, "checkpoint-%06d", iteration);
  return name;
}

// One array file written in pieces, flushed to disk on finish; its CRC-32. The folder is the new
// checkpoint's own: the manifest, replaced atomically after every array is written, is what
// makes them the checkpoint.
class ArrayFile {
 public:
  explicit ArrayFile(const fs::path& file) : file_(file), f_(std::fopen(file.c_str(), "wb")) {
    if (!f_) throw std::runtime_error(file.string() + ": cannot open for writing");
  }
  ArrayFile(const ArrayFile&) = delete;
  ArrayFile& operator=(const ArrayFile&) = delete;
  ~ArrayFile() {
    if (f_) std::fclose(f_);
  }
  void write(const void* data, size_t bytes) {
    if (bytes && std::fwrite(data, 1, bytes, f_) != bytes) throw std::runtime_error(file_.string() + ": cannot write");
    crc_ = uint32_t(crc32_z(crc_, static_cast<const Bytef*>(data), bytes));
  }
  uint32_t finish() {
    const bool ok = std::fflush(f_) == 0 && ::fsync(::fileno(f_)) == 0;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!ok || !closed) throw std::runtime_error(file_.string() + ": cannot write");
    return crc_;
  }

 private:
  fs::path file_;
  FILE* f_;
  uint32_t crc_ = uint32_t(crc32_z(0L, Z_NULL, 0));
};

// Reads `file`, which must be `bytes` long with the CRC `crc`, keeping its bytes [from, from +
// size) in `data` (the whole file is read for its CRC, a piece at a time).
void read_array(const fs::path& file, size_t bytes, uint32_t crc, size_t from, void* data, size_t size) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw LoadError(file.string() + ": a checkpoint array is missing");
  constexpr size_t kPiece = size_t(1) << 22;
  std::vector<char> buffer(std::min(kPiece, std::max<size_t>(bytes, 1)));
  uLong sum = crc32_z(0L, Z_NULL, 0);
  bool whole = true;
  for (size_t at = 0; at < bytes && whole; at += buffer.size()) {
    const size_t n = std::min(buffer.size(), bytes - at);
    in.read(buffer.data(), std::streamsize(n));
    whole = in.gcount() == std::streamsize(n);
    sum = crc32_z(sum, reinterpret_cast<const Bytef*>(buffer.data()), n);
    const size_t lo = std::max(at, from), hi = std::min(at + n, from + size);  // the kept bytes in this piece
    if (whole && lo < hi) std::memcpy(static_cast<char*>(data) + (lo - from), buffer.data() + (lo - at), hi - lo);
  }
  whole = whole && in.peek() == std::char_traits<char>::eof();
  if (!whole || uint32_t(sum) != crc)
    throw LoadError(file.string() + ": a checkpoint array is torn or changed (its size or CRC-32 is not the manifest's)");
}

// A block's arrays: their names and element sizes (the values as the scene holds them).
struct Quantity {
  const char* name;
  size_t element;
};
constexpr Quantity kQuantities[] = {{"value", 4}, {"m", 8}, {"v", 8}, {"seen", 1}};

// The settings that differ between the run now and the checkpoint's, for the error: up to six
// JSON paths (and "..." past them); empty when none.
std::string settings_differing(const json& settings, const json& saved) {
  const json now = settings.flatten(), then = saved.flatten();
  std::string differ;
  int n_differ = 0;
  for (const json* a : {&now, &then})
    for (auto it = a->begin(); it != a->end(); ++it) {
      const json* b = a == &now ? &then : &now;
      if (b->contains(it.key()) && (a == &then || (*b)[it.key()] == it.value())) continue;
      if (++n_differ <= 6) differ += (differ.empty() ? "" : ", ") + it.key();
    }
  return n_differ > 6 ? differ + ", ..." : differ;
}

// A block's entry in the manifest: arrays[block][field][quantity] (a file name or a CRC-32).
const json& array_field(const Checkpoint& c, size_t block, const char* field, const char* quantity) {
  try {
    return c.arrays.at(block).at(field).at(quantity);
  } catch (const json::exception& e) {
    throw LoadError((c.folder.parent_path() / "checkpoint.json").string() + ": not a valid checkpoint (" + e.what() + ")");
  }
}

}  // namespace

void write_checkpoint(const mpi::Context& ctx, const Job& job, const json& settings, const State& s, const Shard& shard,
                      const ParamTable& params, const fs::path& out_dir) {
  const std::string folder = folder_name(s.iteration);
  const auto file_of = [&](size_t b, const Quantity& k) { return std::to_string(b) + "." + k.name; };
  std::vector<json> crcs(job.blocks.size(), json::object());
  // Rank 0's first failure: the other ranks' pieces are still received (a collective), then it is thrown.
  std::exception_ptr failed;
  if (ctx.is_root()) try {
      fs::create_directories(out_dir / folder);
      for (size_t b = 0; b < job.blocks.size(); ++b) {  // the values, every rank's: the table's
        ArrayFile f(out_dir / folder / file_of(b, kQuantities[0]));
        f.write(params.values().data() + job.blocks[b].slot, job.blocks[b].size * kQuantities[0].element);
        crcs[b]["value"] = f.finish();
      }
    } catch (...) {
      failed = std::current_exception();
    }
  // The moments and `seen`, each rank's pieces streamed to rank 0 in order.
  const void* data[3] = {s.m.data(), s.v.data(), s.seen.data()};
  for (int q = 1; q < 4; ++q) {
    const Quantity& k = kQuantities[q];
    std::unique_ptr<ArrayFile> f;
    size_t open_block = job.blocks.size();
    auto close = [&] {
      if (f) crcs[open_block][k.name] = f->finish();
      f.reset();
    };
    try {
      stream_to_root(ctx, job, shard, data[q - 1], k.element, [&](size_t b, const void* bytes, size_t n) {
        if (failed) return;
        if (b != open_block) {
          close();
          open_block = b;
          f = std::make_unique<ArrayFile>(out_dir / folder / file_of(b, k));
        }
        f->write(bytes, n * k.element);
      });
      if (ctx.is_root() && !failed) close();
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
  if (!ctx.is_root()) return;
  json blocks = json::array();
  for (size_t b = 0; b < job.blocks.size(); ++b) {
    json files = json::object();
    for (const Quantity& k : kQuantities) files[k.name] = file_of(b, k);
    blocks.push_back({{"key", job.blocks[b].key}, {"size", job.blocks[b].size}, {"files", files}, {"crc32", crcs[b]}});
  }
  const json manifest = {{"format", kFormat}, {"iteration", s.iteration}, {"arrays", folder}, {"blocks", blocks}, {"settings", settings}};
  write_text_file(out_dir / "checkpoint.json", manifest.dump(1) + "\n");
  // The manifest names the new arrays: earlier checkpoints' folders (and one a kill left) go.
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name != folder && name.rfind("checkpoint-", 0) == 0 && e.is_directory(ec)) fs::remove_all(e.path(), ec);
  }
}

Checkpoint read_checkpoint(const Job& job, const json& settings, const fs::path& out_dir) {
  const fs::path path = out_dir / "checkpoint.json";
  std::ifstream in(path);
  if (!in) throw LoadError(path.string() + ": no checkpoint to resume from (run without --resume first)");
  const json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw LoadError(path.string() + ": not a valid checkpoint");
  if (j.is_object() && j.contains("value") && !j.contains("format"))
    throw LoadError(path.string() + ": a checkpoint of an earlier dray (values in JSON), which this one does not resume: run without --resume");
  Checkpoint c;
  json saved, blocks;
  std::string folder;
  try {
    if (j.at("format") != kFormat) throw LoadError(path.string() + ": not a valid checkpoint (format " + j.at("format").dump() + ")");
    c.iteration = j.at("iteration");
    folder = j.at("arrays").get<std::string>();
    blocks = j.at("blocks");
    saved = j.at("settings");
    for (const json& b : blocks) c.blocks.push_back({b.at("key").get<std::string>(), b.at("size").get<size_t>()});
  } catch (const json::exception& e) {
    throw LoadError(path.string() + ": not a valid checkpoint (" + e.what() + ")");
  }
  if (c.iteration < 0 || folder.find('/') != std::string::npos) throw LoadError(path.string() + ": not a valid checkpoint");
  // Settings that change the trajectory must be those of the interrupted run.
  if (const std::string differ = settings_differing(settings, saved); !differ.empty())
    throw LoadError(job.file + ": the job's settings changed since the checkpoint (" + differ +
                    "); only optimizer.iterations may grow on --resume. Restore them, or run without --resume (a new run "
                    "overwrites " + path.string() + ")");
  if (job.upsampling.empty()) check_checkpoint_blocks(job, c, out_dir);
  if (c.iteration > job.iterations)
    throw LoadError(job.file + ": /optimizer/iterations is " + std::to_string(job.iterations) + " but the checkpoint is after iteration " +
                    std::to_string(c.iteration) + ": iterations may grow on --resume, not shrink");
  c.folder = out_dir / folder;
  c.arrays = blocks;
  size_t n = 0;
  for (const auto& b : c.blocks) n += b.second;
  c.values.resize(n);
  size_t first = 0;
  for (size_t i = 0; i < c.blocks.size(); ++i) {
    const size_t bytes = c.blocks[i].second * sizeof(float);
    read_array(c.folder / array_field(c, i, "files", "value").get<std::string>(), bytes, array_field(c, i, "crc32", "value").get<uint32_t>(),
               0, c.values.data() + first, bytes);
    first += c.blocks[i].second;
  }
  return c;
}

void read_checkpoint_state(const Checkpoint& c, const Job& job, const Shard& shard, State& state) {
  state.iteration = c.iteration;
  state.m.assign(shard.size, 0.0);
  state.v.assign(shard.size, 0.0);
  state.seen.assign(shard.size, 0);
  void* data[3] = {state.m.data(), state.v.data(), state.seen.data()};
  for (const Piece& p : shard.pieces)
    for (int q = 1; q < 4; ++q) {
      const Quantity& k = kQuantities[q];
      read_array(c.folder / array_field(c, p.block, "files", k.name).get<std::string>(), job.blocks[p.block].size * k.element,
                 array_field(c, p.block, "crc32", k.name).get<uint32_t>(), p.begin * k.element,
                 static_cast<char*>(data[q - 1]) + p.first * k.element, p.size() * k.element);
    }
}

void check_checkpoint_blocks(const Job& job, const Checkpoint& c, const fs::path& out_dir) {
  bool same = c.blocks.size() == job.blocks.size();
  for (size_t k = 0; same && k < c.blocks.size(); ++k)
    same = c.blocks[k].first == job.blocks[k].key && c.blocks[k].second == job.blocks[k].size;
  if (!same) throw LoadError((out_dir / "checkpoint.json").string() + ": the checkpoint is of a job with other parameters");
}

}  // namespace dray::cli
