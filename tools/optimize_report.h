#pragma once
// The report page of an optimization job: OUTPUT/report.html, self-contained (charts as inline
// SVG drawn here, images as inline PNG data), rewritten atomically as the job runs (it reloads
// itself every 10 s until the job ends) and once at the end. Rank 0 only.
#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include "renderer/image/image.h"
#include "tools/optimize_job.h"

namespace dray::cli {

// One iteration as progress.csv records it.
struct ReportRow {
  int iteration = 0;
  double loss = 0, gradient_norm = 0, seconds = 0;
  std::vector<double> values;  // the job's scalars that are not elements of a block, in order
};

// The run as a whole.
struct RunFacts {
  int ranks = 1, threads = 1;
  double seconds = 0, mpi_seconds = 0;  // this run's (a resumed run: since it resumed)
  enum class Status { running, finished, interrupted } status = Status::running;
};

class Report {
 public:
  // `truth`: per scalar (as ReportRow::values) its known value, NaN where unknown.
  Report(const Job& job, std::vector<double> truth);

  // Rows read back from progress.csv's lines (a resumed run's earlier iterations).
  void add_csv_lines(const std::vector<std::string>& lines);
  void add(ReportRow row) { rows_.push_back(std::move(row)); }
  // The latest snapshot's view (its index in the job), its target and render, full size.
  void set_images(int view, const Image& target, const Image& current);
  // A snapshot PNG of view `view`, read once: the page keeps the last 12.
  void add_snapshot(int iteration, int view, const std::filesystem::path& png);

  // A medium's grid (media.ID.KEY, a block z × y × x × channels) as its middle slices across z, y
  // and x (channel 0), the current values above the truth's (when `truth` holds the same block),
  // both in one heat map scaled to the truth's largest value (tools/report_slices.cpp).
  void set_grid_slices(const std::string& name, const ParamTable& current, const ParamTable* truth);

  std::string html(const RunFacts& facts) const;
  void write(const std::filesystem::path& file, const RunFacts& facts) const;

 private:
  const Job& job_;
  std::vector<std::string> names_;  // of ReportRow::values
  std::vector<double> truth_;
  std::vector<ReportRow> rows_;
  int view_ = 0;  // of the images below
  std::string target_png_, current_png_, difference_png_;  // base64
  struct Snapshot {
    int iteration, view;
    std::string png;  // a data URI
  };
  std::deque<Snapshot> snapshots_;
  struct Slices {
    std::string name;
    std::vector<std::pair<std::string, std::string>> images;  // caption, data URI
  };
  std::vector<Slices> slices_;
};

// The known value of each of the job's scalars that are not block elements: read from the target
// scene (the first view's, if it has one), NaN otherwise.
std::vector<double> known_truth(const Job& job);

// PNG bytes as a data URI (the page holds its images inline).
std::string png_data(const std::vector<unsigned char>& bytes);

}  // namespace dray::cli
