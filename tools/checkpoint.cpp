// A job's checkpoint (tools/optimize_job.h): a JSON manifest, and per block and quantity one
// binary array (little-endian doubles; `seen` one byte a scalar) in a folder of the iteration's.
#include <cmath>
#include <cstdio>
#include <fstream>

#include <zlib.h>

#include "renderer/core/atomic_file.h"
#include "renderer/core/load_error.h"
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

uint32_t crc_of(const void* data, size_t bytes) {
  return uint32_t(crc32_z(crc32_z(0L, Z_NULL, 0), static_cast<const Bytef*>(data), bytes));
}

// Writes `bytes` from `data` to `file` (atomically, flushed); returns its CRC-32.
uint32_t write_array(const fs::path& file, const void* data, size_t bytes) {
  replace_file(file, [&](const std::string& tmp) {
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw std::runtime_error(file.string() + ": cannot open for writing");
    const bool ok = bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes;
    if (std::fclose(f) != 0 || !ok) throw std::runtime_error(file.string() + ": cannot write");
  });
  return crc_of(data, bytes);
}

// Reads `bytes` into `data` from `file`, which must be that long and have the CRC `crc`.
void read_array(const fs::path& file, void* data, size_t bytes, uint32_t crc) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw LoadError(file.string() + ": a checkpoint array is missing");
  in.read(static_cast<char*>(data), std::streamsize(bytes));
  const bool whole = in.gcount() == std::streamsize(bytes) && in.peek() == std::char_traits<char>::eof();
  if (!whole || crc_of(data, bytes) != crc) throw LoadError(file.string() + ": a checkpoint array is torn or changed (its size or CRC-32 is not the manifest's)");
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

}  // namespace

void write_checkpoint(const Job& job, const json& settings, const State& s, const ParamTable& params, const fs::path& out_dir) {
  const std::string folder = folder_name(s.iteration);
  fs::create_directories(out_dir / folder);
  json blocks = json::array();
  for (const Block& b : job.blocks) {
    const void* data[4] = {params.values().data() + b.slot, s.m.data() + b.first, s.v.data() + b.first, s.seen.data() + b.first};
    json files = json::object(), crcs = json::object();
    for (int q = 0; q < 4; ++q) {
      const Quantity& k = kQuantities[q];
      const std::string file = std::to_string(blocks.size()) + "." + k.name;
      crcs[k.name] = write_array(out_dir / folder / file, data[q], b.size * k.element);
      files[k.name] = file;
    }
    blocks.push_back({{"key", b.key}, {"size", b.size}, {"files", files}, {"crc32", crcs}});
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

Checkpoint read_checkpoint(const Job& job, const json& settings, const fs::path& out_dir, bool moments) {
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
    c.state.iteration = j.at("iteration");
    folder = j.at("arrays").get<std::string>();
    blocks = j.at("blocks");
    saved = j.at("settings");
    for (const json& b : blocks) c.blocks.push_back({b.at("key").get<std::string>(), b.at("size").get<size_t>()});
  } catch (const json::exception& e) {
    throw LoadError(path.string() + ": not a valid checkpoint (" + e.what() + ")");
  }
  if (c.state.iteration < 0 || folder.find('/') != std::string::npos) throw LoadError(path.string() + ": not a valid checkpoint");
  // Settings that change the trajectory must be those of the interrupted run.
  if (const std::string differ = settings_differing(settings, saved); !differ.empty())
    throw LoadError(job.file + ": the job's settings changed since the checkpoint (" + differ +
                    "); only optimizer.iterations may grow on --resume. Restore them, or run without --resume (a new run "
                    "overwrites " + path.string() + ")");
  if (job.upsampling.empty()) check_checkpoint_blocks(job, c, out_dir);
  if (c.state.iteration > job.iterations)
    throw LoadError(job.file + ": /optimizer/iterations is " + std::to_string(job.iterations) + " but the checkpoint is after iteration " +
                    std::to_string(c.state.iteration) + ": iterations may grow on --resume, not shrink");
  size_t n = 0;
  for (const auto& b : c.blocks) n += b.second;
  c.values.resize(n);
  if (moments) {
    c.state.m.resize(n);
    c.state.v.resize(n);
    c.state.seen.resize(n);
  }
  size_t first = 0;
  try {
    for (size_t i = 0; i < c.blocks.size(); ++i) {
      void* data[4] = {c.values.data() + first, nullptr, nullptr, nullptr};
      if (moments) data[1] = c.state.m.data() + first, data[2] = c.state.v.data() + first, data[3] = c.state.seen.data() + first;
      for (int q = 0; q < (moments ? 4 : 1); ++q) {
        const Quantity& k = kQuantities[q];
        read_array(out_dir / folder / blocks[i].at("files").at(k.name).get<std::string>(), data[q], c.blocks[i].second * k.element,
                   blocks[i].at("crc32").at(k.name).get<uint32_t>());
      }
      first += c.blocks[i].second;
    }
  } catch (const json::exception& e) {
    throw LoadError(path.string() + ": not a valid checkpoint (" + e.what() + ")");
  }
  return c;
}

void check_checkpoint_blocks(const Job& job, const Checkpoint& c, const fs::path& out_dir) {
  bool same = c.blocks.size() == job.blocks.size();
  for (size_t k = 0; same && k < c.blocks.size(); ++k)
    same = c.blocks[k].first == job.blocks[k].key && c.blocks[k].second == job.blocks[k].size;
  if (!same) throw LoadError((out_dir / "checkpoint.json").string() + ": the checkpoint is of a job with other parameters");
}

}  // namespace dray::cli
