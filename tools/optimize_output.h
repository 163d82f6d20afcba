#pragma once
// A job's output folder: an earlier run's files are refused, or removed with --force; what the
// console and progress.csv show of blocks.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tools/optimize_job.h"

namespace dray::cli {

// Before a fresh run (not --resume): when `dir` holds an earlier run's files (progress.csv, a
// checkpoint, the report, the final scene, snapshots), throws LoadError naming them unless
// `force`, which removes dray optimize's files there (and nothing else).
void prepare_output_folder(const std::filesystem::path& dir, bool force);

// Each optimised block's name and the mean of its values: a block's millions of values stay out
// of the console and progress.csv (the checkpoint and the final scene's image keep them).
std::vector<std::pair<std::string, double>> block_means(const Job& job, const ParamTable& params);

}  // namespace dray::cli
