#pragma once
// A job's output folder: an earlier run's files are refused, or removed with --force; what the
// console and progress.csv show of blocks.
#include <filesystem>
#include <fstream>
#include <ostream>
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

// progress.csv for this run: a fresh header or, resuming, the header and the complete rows up to
// `iteration` (a run killed while writing may have left a partial last row), which `kept_rows`
// returns for the report.
std::ofstream open_progress_csv(const Job& job, const ParamTable& params, const std::filesystem::path& out, bool resume,
                                int iteration, std::vector<std::string>& kept_rows);

// What an iteration's row shows: the loss, the gradient's norm, the samples dropped, the listed
// scalars' values (rendered this iteration), the seconds.
struct IterationFacts {
  int iteration = 0;  // from 1
  double loss = 0, gradient_norm = 0, seconds = 0;
  long dropped_samples = 0;
  std::vector<double> listed_values;
};
// Its row of progress.csv (blocks by their means), flushed.
void write_progress_row(std::ostream& csv, const Job& job, const ParamTable& params, const IterationFacts& f);

}  // namespace dray::cli
