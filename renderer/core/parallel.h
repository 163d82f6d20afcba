#pragma once
// The OpenMP loop over tiles, with exceptions carried out of the parallel region: an exception
// must not leave an OpenMP region (the program would terminate), so the first one is kept,
// the remaining iterations are skipped, and it is rethrown on the calling thread. The caller
// (mpi/) then agrees on it with the other ranks instead of leaving them waiting.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

namespace dray {

template <class Body>
void parallel_for(int n, int threads, Body&& body) {
  std::exception_ptr first;
  std::atomic<bool> failed{false};
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int i = 0; i < n; ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      body(i);
    } catch (...) {
#pragma omp critical(dray_parallel_for_error)
      if (!first) first = std::current_exception();
      failed = true;
    }
  }
  if (first) std::rethrow_exception(first);
}

// Samples first, first + stride, ... < n (one rank's share of n) in batches of kSampleBatch over
// threads: body(j, k) for sample k in batch j, which holds samples first + stride * (j*B ... j*B+B-1).
inline constexpr long kSampleBatch = 256;

// How many of samples first, first + stride, ... < n there are, and in how many batches.
inline long samples_of(long n, int first, int stride) { return n > first ? (n - first + stride - 1) / stride : 0; }
inline int batches_of(long n, int first, int stride) { return int((samples_of(n, first, stride) + kSampleBatch - 1) / kSampleBatch); }

template <class Body>
void for_each_sample(long n, int first, int stride, int threads, Body&& body) {
  const long mine = samples_of(n, first, stride);
  const int batches = batches_of(n, first, stride);
  parallel_for(batches, threads, [&](int j) {
    for (long i = long(j) * kSampleBatch; i < std::min(mine, long(j + 1) * kSampleBatch); ++i)
      body(j, uint64_t(first + i * stride));
  });
}

// Fault injection for the failing-rank tests: with DRAY_FAULT_TILE=K in the environment, the
// kernel throws while rendering tile K, so that exactly the rank that owns tile K fails. Read
// per tile (negligible next to a tile's samples), so that a test can set it at run time.
inline void inject_fault(int tile) {
  const char* env = std::getenv("DRAY_FAULT_TILE");
  if (env && std::atoi(env) == tile)
    throw std::logic_error("injected fault in tile " + std::to_string(tile) + " (DRAY_FAULT_TILE)");
}

}  // namespace dray
