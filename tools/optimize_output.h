#pragma once
// A job's output folder: an earlier run's files are refused, or removed with --force.
#include <filesystem>
#include <string>

namespace dray::cli {

// Before a fresh run (not --resume): when `dir` holds an earlier run's files (progress.csv, a
// checkpoint, the report, the final scene, snapshots), throws LoadError naming them unless
// `force`, which removes dray optimize's files there (and nothing else).
void prepare_output_folder(const std::filesystem::path& dir, bool force);

}  // namespace dray::cli
