#pragma once
// Gradient accumulation that scales and is exact (DESIGN.md invariants 3 and 4): each thread
// stages one unit of work's adjoints (a pixel's samples, a boundary sample) in doubles, in the
// fixed order of that unit, then commits them into its own exact fixed-point accumulators. Only
// the parameters the unit touched are visited (a list, not a sweep), so a unit costs O(its
// tape), not O(parameters), and memory is O(parameters) per thread, independent of tiles.
// Units are the same whatever the rank count, thread count, tile size or schedule, and integer
// sums do not depend on order: the total is bitwise the same for any of them.
#include <cstdint>
#include <span>
#include <vector>

#include "ad/fixed_sum.h"

namespace dray::ad {

class ThreadGradient {
 public:
  // `plain`: commit into plain double sums instead (order-dependent: only for measuring what the
  // exact sums cost, tools/bench).
  explicit ThreadGradient(size_t n, bool plain = false)
      : sums_(plain ? 0 : n), plain_(plain ? n : 0), stage_(n, 0.0), staged_(n, 0) {}

  // Adds x to parameter g's staged adjoint.
  void stage(size_t g, double x) {
    if (!staged_[g]) {
      staged_[g] = 1;
      touched_.push_back(uint32_t(g));
    }
    stage_[g] += x;
  }

  // Commits the staged adjoints to the exact sums, all or none, and clears the stage. Returns
  // false (and counts it in refused()) when a sum refused its addend: not finite, or out of range.
  bool commit() {
    if (!plain_.empty()) {
      for (uint32_t g : touched_) plain_[g] += stage_[g];
      discard();
      return true;
    }
    undo_.clear();
    bool ok = true;
    for (uint32_t g : touched_) {
      undo_.push_back(sums_[g].bits);
      if (!sums_[g].add(stage_[g])) {
        ok = false;
        break;
      }
    }
    if (!ok)
      for (size_t k = 0; k < undo_.size(); ++k) sums_[touched_[k]].bits = undo_[k];
    discard();
    if (!ok) ++refused_;
    return ok;
  }

  // Drops the staged adjoints (a unit whose gradient is not used).
  void discard() {
    for (uint32_t g : touched_) {
      stage_[g] = 0.0;
      staged_[g] = 0;
    }
    touched_.clear();
  }

  std::span<const FixedSum> sums() const { return sums_; }
  std::span<const double> plain_sums() const { return plain_; }
  long refused() const { return refused_; }

 private:
  std::vector<FixedSum> sums_;
  std::vector<double> plain_;
  std::vector<double> stage_;
  std::vector<uint8_t> staged_;
  std::vector<uint32_t> touched_;
  std::vector<int128> undo_;
  long refused_ = 0;
};

// One ThreadGradient per thread (no two threads write one accumulator), merged in integers.
class ExactGradient {
 public:
  ExactGradient(int threads, size_t n, bool plain = false) : n_(n) {
    per_thread_.reserve(size_t(threads));
    for (int t = 0; t < threads; ++t) per_thread_.emplace_back(n, plain);
  }

  ThreadGradient& thread(int t) { return per_thread_[size_t(t)]; }

  // Adds every thread's sums to `out` (size n); returns the units refused.
  long merge_into(std::span<FixedSum> out) const {
    long refused = 0;
    for (const ThreadGradient& t : per_thread_) {
      for (size_t g = 0; g < t.sums().size(); ++g) out[g] += t.sums()[g];
      refused += t.refused();
    }
    return refused;
  }
  // Plain mode: the threads' double sums, added in thread order.
  std::vector<double> plain_total() const {
    std::vector<double> out(n_, 0.0);
    for (const ThreadGradient& t : per_thread_)
      for (size_t g = 0; g < t.plain_sums().size(); ++g) out[g] += t.plain_sums()[g];
    return out;
  }

 private:
  size_t n_;
  std::vector<ThreadGradient> per_thread_;
};

}  // namespace dray::ad
