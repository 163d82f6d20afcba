#pragma once
// Gradient accumulation that scales and is exact (DESIGN.md invariants 3 and 4): each thread
// stages one unit of work's adjoints (a pixel's samples, a boundary sample) in doubles, in the
// fixed order of that unit, then commits them, all or none, into exact fixed-point accumulators.
// Integer sums do not depend on order, so the total is bitwise the same for any rank count,
// thread count, tile size or schedule. Small parameter sets (up to 2^20) are staged densely and
// summed per thread (no locks; 25 B per parameter and thread); large ones (a texture's million
// texels) are staged as a list of the unit's (parameter, adjoint) pairs and summed into the rank's
// one array (16 B per parameter), a commit locking the stripes of the parameters it touches.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "ad/fixed_sum.h"

namespace dray::ad {

class ExactGradient;

class alignas(64) ThreadGradient {  // threads write their stages' ends: one line each
 public:
  // Adds x to parameter g's staged adjoint.
  void stage(size_t g, double x) {
    if (dense_) {
      if (!staged_[g]) {
        staged_[g] = 1;
        touched_.push_back(uint32_t(g));
      }
      stage_[g] += x;
      return;
    }
    pending_.push_back({uint32_t(g), x});
    // The shared sum is committed at the unit's end: fetched now, it is in cache by then.
    if (shared_sums_) __builtin_prefetch(shared_sums_ + g, 1, 1);
  }

  // Commits the staged adjoints to the sums, all or none, and clears the stage. Returns false
  // (and counts it in refused()) when a sum refused its addend: not finite, or out of range.
  bool commit();

  // Drops the staged adjoints (a unit whose gradient is not used).
  void discard() {
    if (dense_) {
      for (uint32_t g : touched_) {
        stage_[g] = 0.0;
        staged_[g] = 0;
      }
    } else {
      pending_.clear();
      values_.clear();
    }
    touched_.clear();
  }

  long refused() const { return refused_; }

 private:
  friend class ExactGradient;
  static constexpr size_t kDenseLimit = size_t(1) << 20;  // parameters staged densely up to this

  ThreadGradient(ExactGradient& owner, size_t n, bool plain)
      : owner_(&owner),
        dense_(n <= kDenseLimit),
        stage_(dense_ ? n : 0, 0.0),
        staged_(dense_ ? n : 0, 0),
        sums_(dense_ && !plain ? n : 0),
        plain_sums_(dense_ && plain ? n : 0) {}
  double staged(size_t k) const { return dense_ ? stage_[touched_[k]] : values_[k]; }

  ExactGradient* owner_;
  FixedSum* shared_sums_ = nullptr;  // the rank's sums (sparse staging), set by the owner
  bool dense_;
  std::vector<double> stage_;  // dense
  std::vector<uint8_t> staged_;
  // Sparse: the unit's (parameter, adjoint) pairs as staged, then summed per parameter in staging
  // order, each parameter listed at its first staging: an open-addressing table from parameter to
  // list position, sized for the unit (no allocation once warm; sorting the unit's keys instead
  // made a 1M-texel pass 3-5% slower).
  std::vector<std::pair<uint32_t, double>> pending_;
  std::vector<int32_t> table_;
  std::vector<double> values_;
  void gather_pending() {
    size_t size = 64;
    while (size < 2 * pending_.size()) size *= 2;
    table_.assign(size, -1);
    const size_t mask = size - 1;
    for (const auto& [g, x] : pending_) {
      size_t h = (size_t(g) * 0x9E3779B97F4A7C15ull) >> 40 & mask;
      while (table_[h] >= 0 && touched_[size_t(table_[h])] != g) h = (h + 1) & mask;
      if (table_[h] < 0) {
        table_[h] = int32_t(touched_.size());
        touched_.push_back(g);
        values_.push_back(x);
      } else {
        values_[size_t(table_[h])] += x;
      }
    }
    pending_.clear();
  }
  std::vector<uint32_t> touched_;
  FixedSums sums_;                   // dense: this thread's own sums
  std::vector<double> plain_sums_;
  long refused_ = 0;
};

// The rank's sums and one ThreadGradient per thread (thread(t) is used by thread t only).
class ExactGradient {
 public:
  // `plain`: commit into plain double sums instead (order-dependent: only for measuring what the
  // exact sums cost, tools/bench). `into` (n sums, or empty): a large parameter set's units are
  // committed straight into it, the caller's total, instead of an array of the object's own
  // (16 B a parameter less); merge_into(into) then adds the rest.
  ExactGradient(int threads, size_t n, bool plain = false, std::span<FixedSum> into = {})
      : n_(n),
        plain_(plain),
        shared_(n > ThreadGradient::kDenseLimit),
        sums_(shared_ && !plain && into.empty() ? n : 0),
        plain_sums_(shared_ && plain ? n : 0),
        locks_(new std::mutex[kStripes]) {
    per_thread_.reserve(size_t(threads));
    for (int t = 0; t < threads; ++t) per_thread_.push_back(ThreadGradient(*this, n, plain));
    if (shared_ && !plain) {
      shared_sums_ = into.empty() ? sums_.begin() : into.data();
      for (ThreadGradient& t : per_thread_) t.shared_sums_ = shared_sums_;
    }
  }
  ExactGradient(const ExactGradient&) = delete;
  ExactGradient& operator=(const ExactGradient&) = delete;

  ThreadGradient& thread(int t) { return per_thread_[size_t(t)]; }

  // Adds the sums to `out` (size n; with `into`, that span: the large set's are there already);
  // returns the units refused.
  long merge_into(std::span<FixedSum> out) const {
    for (size_t g = 0; g < sums_.size(); ++g) out[g] += sums_[g];
    for (const ThreadGradient& t : per_thread_)
      for (size_t g = 0; g < t.sums_.size(); ++g) out[g] += t.sums_[g];
    return refused();
  }
  // The sums, moved out when shared (no copy of n accumulators); the object is spent. Not with `into`.
  FixedSums take_sums() {
    if (shared_) return std::move(sums_);
    FixedSums out(n_);
    merge_into(out);
    return out;
  }
  long refused() const {
    long r = 0;
    for (const ThreadGradient& t : per_thread_) r += t.refused();
    return r;
  }
  // Plain mode: the double sums (threads added in thread order).
  std::vector<double> plain_total() const {
    std::vector<double> out = shared_ ? plain_sums_ : std::vector<double>(n_, 0.0);
    for (const ThreadGradient& t : per_thread_)
      for (size_t g = 0; g < t.plain_sums_.size(); ++g) out[g] += t.plain_sums_[g];
    return out;
  }

 private:
  friend class ThreadGradient;
  // Parameters are locked in stripes of 4096 consecutive ones, 64 stripes cycling.
  static constexpr int kStripes = 64, kStripeShift = 12;
  static int stripe(uint32_t g) { return int((g >> kStripeShift) % kStripes); }

  size_t n_;
  bool plain_, shared_;
  FixedSums sums_;  // shared (large parameter sets), unless the caller's
  FixedSum* shared_sums_ = nullptr;
  std::vector<double> plain_sums_;
  std::unique_ptr<std::mutex[]> locks_;
  std::vector<ThreadGradient> per_thread_;
};

inline bool ThreadGradient::commit() {
  ExactGradient& o = *owner_;
  const bool shared = o.shared_;
  FixedSum* sums = shared ? o.shared_sums_ : sums_.begin();
  std::vector<double>& plain = shared ? o.plain_sums_ : plain_sums_;
  if (!dense_) gather_pending();
  uint64_t stripes = 0;
  if (shared) {
    for (uint32_t g : touched_) stripes |= uint64_t(1) << ExactGradient::stripe(g);
    // Locked in ascending order (no deadlock); held for the whole unit (all or none).
    for (int s = 0; s < ExactGradient::kStripes; ++s)
      if (stripes >> s & 1) o.locks_[size_t(s)].lock();
  }
  bool ok = true;
  if (o.plain_) {
    for (size_t k = 0; k < touched_.size(); ++k) plain[touched_[k]] += staged(k);
  } else {
    size_t added = 0;
    for (; added < touched_.size(); ++added)
      if (!sums[touched_[added]].add(staged(added))) {
        ok = false;
        break;
      }
    // A refused unit: the sums it reached take their addends back (integer sums: exactly).
    if (!ok)
      for (size_t k = 0; k < added; ++k) sums[touched_[k]].bits -= FixedSum::scaled(staged(k));
  }
  for (int s = 0; s < ExactGradient::kStripes; ++s)
    if (stripes >> s & 1) o.locks_[size_t(s)].unlock();
  discard();
  if (!ok) ++refused_;
  return ok;
}

}  // namespace dray::ad
