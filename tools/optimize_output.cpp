#include "tools/optimize_output.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <vector>

#include "renderer/core/load_error.h"

namespace fs = std::filesystem;

namespace dray::cli {

namespace {

// The files dray optimize writes besides the final scene's blocks (written over by name).
bool is_run_file(const std::string& name) {
  static const std::regex run(
      R"((progress\.csv|checkpoint\.json|checkpoint-\d+|report\.html|final-scene\.json|snapshot-\d+\.png|target(-\d+)?\.exr|held-out(-target)?-\d+\.exr|.*-seen\.png)(\.tmp.*)?)");
  return std::regex_match(name, run);
}

// A checkpoint's arrays (checkpoint-00000K/), a folder of dray optimize's.
bool is_checkpoint_folder(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_directory(ec) && e.path().filename().string().rfind("checkpoint-", 0) == 0;
}

}  // namespace

void prepare_output_folder(const fs::path& dir, bool force) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if ((e.is_regular_file(ec) || is_checkpoint_folder(e)) && is_run_file(e.path().filename().string())) found.push_back(e.path());
  if (found.empty()) return;
  if (!force) {
    std::string names;
    for (size_t i = 0; i < found.size() && i < 3; ++i) names += (i ? ", " : "") + found[i].filename().string();
    if (found.size() > 3) names += " and " + std::to_string(found.size() - 3) + " more";
    throw LoadError(dir.string() + ": holds an earlier run (" + names +
                    "): continue it with --resume, or start again with --force (removes those files)");
  }
  for (const fs::path& f : found)
    if (fs::remove_all(f, ec) == static_cast<std::uintmax_t>(-1) || ec) throw LoadError(f.string() + ": cannot remove: " + ec.message());
}

std::vector<std::pair<std::string, double>> block_means(const Job& job, const ParamTable& params) {
  // Per entry (a block named in parts: each element its own key), the mean over its parts.
  std::vector<std::pair<std::string, double>> out;
  std::vector<size_t> count;
  for (const Block& b : job.blocks) {
    if (!b.of_block) continue;
    const std::string& name = job.entries[size_t(b.entry)];
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == name; });
    if (it == out.end()) {
      out.push_back({name, 0.0});
      count.push_back(0);
      it = out.end() - 1;
    }
    for (size_t i = 0; i < b.size; ++i) it->second += double(params.get(b.slot + Slot(i)));
    count[size_t(it - out.begin())] += b.size;
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].second /= double(count[i]);
  return out;
}

std::ofstream open_progress_csv(const Job& job, const ParamTable& params, const fs::path& out, bool resume, int iteration,
                                std::vector<std::string>& kept_rows) {
  std::vector<std::string> keep;
  if (resume) {
    std::ifstream old(out / "progress.csv");
    std::string line;
    if (std::getline(old, line)) keep.push_back(line);
    const auto fields = std::count(line.begin(), line.end(), ',');
    for (int expected = 1; expected <= iteration && std::getline(old, line); ++expected) {
      if (std::count(line.begin(), line.end(), ',') != fields || std::atoi(line.c_str()) != expected) break;
      keep.push_back(line);
    }
  }
  std::ofstream csv(out / "progress.csv", std::ios::trunc);
  if (keep.empty()) {
    csv << "iteration,loss,gradient_norm,dropped_samples";
    for (const auto& listed : job.listed_scalars()) csv << "," << listed.first;
    for (const auto& b : block_means(job, params)) csv << "," << b.first << "(mean)";
    csv << ",seconds\n";
  }
  for (const auto& line : keep) csv << line << "\n";
  if (keep.size() > 1) kept_rows.assign(keep.begin() + 1, keep.end());
  csv.flush();
  return csv;
}

void write_progress_row(std::ostream& csv, const Job& job, const ParamTable& params, const IterationFacts& f) {
  csv << f.iteration << "," << f.loss << "," << f.gradient_norm << "," << f.dropped_samples;
  char buf[32];
  for (double v : f.listed_values) {  // blocks: their mean below, their values in the checkpoint
    std::snprintf(buf, sizeof buf, "%.9g", v);
    csv << "," << buf;
  }
  for (const auto& b : block_means(job, params)) {
    std::snprintf(buf, sizeof buf, "%.9g", b.second);
    csv << "," << buf;
  }
  csv << "," << f.seconds << "\n";
  csv.flush();
}

}  // namespace dray::cli
