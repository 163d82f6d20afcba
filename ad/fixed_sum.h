#pragma once
// Exact, order-independent sums of doubles (DESIGN.md invariant 3): each addend is rounded once
// to a multiple of 2^-80 and added as a 128-bit integer. Integer addition is associative, so a
// sum over samples split across any number of threads and ranks is bitwise the same.
//
// Range: one accumulator refuses an addend that would take it to 2^30 (1.07e9) or beyond, so
// that up to 2^16 accumulators (threads times ranks) merge without leaving the 128 bits. A
// gradient pass sums loss derivatives of order one over pixels: realistic sums stay below 1e4,
// and a contribution as small as 2^-80 (8.3e-25) still counts.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <span>
#include <utility>

namespace dray::ad {

__extension__ typedef __int128 int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet
__extension__ typedef unsigned __int128 uint128;

struct FixedSum {
  int128 bits = 0;

  static constexpr int kFractionBits = 80;  // one unit of the integer is 2^-80
  static constexpr double kLimit = 0x1p30;  // |sum| of one accumulator stays below this

  // Adds x (rounded to the nearest multiple of 2^-80, ties to even). A non-finite addend, or one
  // that would take the sum to kLimit or beyond, is refused (returns false) and leaves the sum
  // unchanged.
  bool add(double x) {
    if (!(std::fabs(x) < kLimit)) return false;
    const int128 sum = bits + scaled(x);
    constexpr int128 cap = int128(1) << (30 + kFractionBits);
    if (sum >= cap || sum <= -cap) return false;
    bits = sum;
    return true;
  }

  // x times 2^80 rounded to the nearest integer, ties to even, for |x| < 2^30: from x's bits, as
  // its 53-bit significand shifted (the gradient pass adds millions of addends a second; the
  // library's double-to-int128 conversion and nearbyint cost a tenth of a media gradient pass).
  static int128 scaled(double x) {
    uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    const int biased = int(u >> 52 & 0x7ff);
    if (biased == 0) return 0;  // zero or subnormal: below 2^-1022, far below half a unit
    const uint64_t mant = (u & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52);
    // x = mant 2^(biased - 1075), so x 2^80 = mant 2^shift.
    const int shift = biased - 1075 + kFractionBits;
    uint128 m;
    if (shift >= 0) {
      m = uint128(mant) << shift;  // shift <= 57 below kLimit: within 110 bits
    } else if (-shift >= 64) {
      m = 0;  // below 2^-11 of a unit
    } else {
      const int k = -shift;
      uint64_t q = mant >> k;
      const uint64_t rem = mant & ((uint64_t(1) << k) - 1), half = uint64_t(1) << (k - 1);
      if (rem > half || (rem == half && (q & 1))) ++q;
      m = q;
    }
    return u >> 63 ? -int128(m) : int128(m);
  }

  FixedSum& operator+=(const FixedSum& o) {
    bits += o.bits;
    return *this;
  }

  // The sum as a double (a function of the bits alone: the same bits give the same double).
  double value() const {
    if (bits == 0) return 0.0;
    const bool neg = bits < 0;
    const uint128 m = neg ? -static_cast<uint128>(bits) : static_cast<uint128>(bits);
    // Scaling by powers of two is exact: the same as ldexp, without its call.
    constexpr double hi_unit = 0x1p-16, lo_unit = 0x1p-80;  // 2^(64 - 80), 2^-80
    const double v = double(uint64_t(m >> 64)) * hi_unit + double(uint64_t(m)) * lo_unit;
    return neg ? -v : v;
  }
};

namespace detail {

// Large sum arrays freed, kept for the next array of about their size (FixedSums). A gradient
// pass over a million-texel block sums into 3M accumulators: fresh pages for them cost 12k page
// faults a pass (15-19 ms here, on one thread; faulting them from two threads at once was no
// faster), where zeroing a kept array costs a memset of pages already mapped.
class SumsCache {
 public:
  static constexpr size_t kMinBytes = size_t(1) << 20;  // smaller arrays are freed

  // A kept block of `want` to 2 x `want` bytes, its first `want` bytes zeroed (its size in `got`);
  // else nullptr.
  void* take(size_t want, size_t& got) {
    if (want < kMinBytes) return nullptr;
    void* b = nullptr;
    {
      std::lock_guard<std::mutex> hold(lock_);
      int best = -1;
      for (int k = 0; k < kSlots; ++k)
        if (block_[k] && bytes_[k] >= want && bytes_[k] / 2 <= want && (best < 0 || bytes_[k] < bytes_[best])) best = k;
      if (best < 0) return nullptr;
      b = std::exchange(block_[best], nullptr);
      got = bytes_[best];
    }
    std::memset(b, 0, want);
    return b;
  }
  // Keeps block `b` (from operator new) of `bytes` in place of the least recently kept one, which
  // is freed (or frees `b`, when small).
  void give(void* b, size_t bytes) {
    if (bytes >= kMinBytes) {
      std::lock_guard<std::mutex> hold(lock_);
      int slot = 0;  // an empty slot, else the oldest
      for (int k = 0; k < kSlots; ++k) {
        if (!block_[k]) {
          slot = k;
          break;
        }
        if (kept_at_[k] < kept_at_[slot]) slot = k;
      }
      std::swap(b, block_[slot]);
      bytes_[slot] = bytes;
      kept_at_[slot] = ++clock_;
    }
    release(b, bytes);
  }
  // Large blocks are aligned to 2 MB and asked to be backed by huge pages: commits land anywhere in
  // a 48 MB block, and on 4 KB pages most of them missed the TLB.
  static constexpr std::align_val_t kHugeAlign{size_t(2) << 20};
  static void* allocate(size_t bytes) {
    if (bytes < kMinBytes) return ::operator new(bytes);
    void* b = ::operator new(bytes, kHugeAlign);
#ifdef MADV_HUGEPAGE
    madvise(b, bytes, MADV_HUGEPAGE);
#endif
    return b;
  }
  static void release(void* b, size_t bytes) {
    if (bytes < kMinBytes) ::operator delete(b);
    else ::operator delete(b, kHugeAlign);
  }

 private:
  static constexpr int kSlots = 2;  // a pass's sums and the MPI pipeline's total
  std::mutex lock_;
  void* block_[kSlots] = {};
  size_t bytes_[kSlots] = {};
  uint64_t kept_at_[kSlots] = {}, clock_ = 0;
};

// The process's cache, never destroyed (an array freed during exit still finds it).
inline SumsCache& sums_cache() {
  static SumsCache& cache = *new SumsCache;
  return cache;
}

}  // namespace detail

// A fixed-length array of exact sums, all zero at first. A large array's memory is one that was
// freed, when there is one of about its size (detail::SumsCache).
class FixedSums {
 public:
  FixedSums() = default;
  explicit FixedSums(size_t n) : size_(n) {
    if (n == 0) return;
    data_ = static_cast<FixedSum*>(detail::sums_cache().take(n * sizeof(FixedSum), bytes_));
    if (data_) return;
    bytes_ = n * sizeof(FixedSum);
    data_ = static_cast<FixedSum*>(detail::SumsCache::allocate(bytes_));
    // Zeroed by writing, not as calloc's fresh pages (GCC turns malloc and a zero memset into
    // calloc; it does not with operator new): the first commit to such a page would read it,
    // mapping the shared zero page, then write it, and that second fault costs every other thread
    // of the process a TLB shootdown (a 1M-texel pass took 0.39 s instead of 0.21).
    std::memset(static_cast<void*>(data_), 0, bytes_);
  }
  FixedSums(const FixedSums& o) : FixedSums(o.size_) {
    if (size_) std::memcpy(static_cast<void*>(data_), o.data_, size_ * sizeof(FixedSum));
  }
  FixedSums(FixedSums&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}
  FixedSums& operator=(FixedSums o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~FixedSums() {
    if (data_) detail::sums_cache().give(data_, bytes_);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  FixedSum& operator[](size_t k) { return data_[k]; }
  const FixedSum& operator[](size_t k) const { return data_[k]; }
  FixedSum* begin() { return data_; }
  FixedSum* end() { return data_ + size_; }
  const FixedSum* begin() const { return data_; }
  const FixedSum* end() const { return data_ + size_; }
  operator std::span<FixedSum>() { return {data_, size_}; }
  operator std::span<const FixedSum>() const { return {data_, size_}; }
  // Keeps the first n sums (n <= size()).
  void truncate(size_t n) { size_ = n < size_ ? n : size_; }

 private:
  FixedSum* data_ = nullptr;
  size_t size_ = 0;
  size_t bytes_ = 0;  // the block's size
};

}  // namespace dray::ad
