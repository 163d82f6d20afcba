#pragma once
// The reverse-mode tape: one flat, per-thread record of every operation on differentiated
// values, in the order executed. Each operation (a statement) stores its arguments as
// (statement index, partial derivative) pairs of 8 bytes in one array, and the end of its
// arguments (4 bytes) in another: no heap node per operation. The arrays keep their capacity
// when cleared, so a warm tape allocates nothing; clearing after every path sample bounds its
// size by the path length.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace dray::ad {

class Tape {
 public:
  struct Arg {
    int32_t index;  // the argument's statement
    float partial;  // d result / d argument
  };
  static_assert(sizeof(Arg) == 8);

  // This thread's tape. The fast path reads a plain thread-local pointer (no initialisation
  // guard on every operation); the owner frees the tape when the thread ends.
  static Tape& local() {
    if (!current_) create();
    return *current_;
  }

  // Records a statement with one or two arguments (a constant, index < 0, is left out); returns
  // its index.
  int32_t record(Arg a) {
    Arg* out = args_.room(1);
    if (a.index >= 0) *out++ = a;
    return end_statement(out);
  }
  int32_t record(Arg a, Arg b) {
    Arg* out = args_.room(2);
    if (a.index >= 0) *out++ = a;
    if (b.index >= 0) *out++ = b;
    return end_statement(out);
  }
  // Records a statement with n arguments (constants left out).
  int32_t record_n(const Arg* a, int n) {
    Arg* out = args_.room(size_t(n));
    for (int k = 0; k < n; ++k)
      if (a[k].index >= 0) *out++ = a[k];
    return end_statement(out);
  }
  // An input: a statement without arguments whose adjoint goes to gradient entry `gradient_index`.
  // A parameter read again (a colour by both of a vertex's BSDF evaluations) is the same input:
  // one statement and one adjoint handed on, not one per read.
  int32_t input(int gradient_index) {
    Memo* slot = memo(gradient_index);
    if (slot && slot->stamp == stamp_) return slot->statement;
    const int32_t s = fresh_input(gradient_index);
    if (slot) *slot = {gradient_index, s, stamp_};
    return s;
  }
  // An input that no other read names (a replayed vertex's carried state): no memo probe.
  int32_t fresh_input(int gradient_index) {
    int32_t s = end_statement(args_.end());
    inputs_.push_back({s, gradient_index, 1.f});
    return s;
  }
  // Four parameters read with constant weights, as one input statement: its adjoint goes to
  // gradient entry g[k] (those >= 0) times w[k]. The same read again (a texel lookup by both of a
  // vertex's BSDF evaluations) is the same statement.
  int32_t weighted_inputs(const int (&g)[4], const float (&w)[4]) {
    for (const GroupMemo& m : group_memo_)
      if (m.stamp == stamp_ && std::equal(g, g + 4, m.g) && std::memcmp(w, m.w, sizeof m.w) == 0) return m.statement;
    int32_t s = end_statement(args_.end());
    for (int k = 0; k < 4; ++k)
      if (g[k] >= 0) inputs_.push_back({s, g[k], w[k]});
    GroupMemo& m = group_memo_[group_next_++ % group_memo_.size()];
    std::copy(g, g + 4, m.g);
    std::copy(w, w + 4, m.w);
    m.statement = s;
    m.stamp = stamp_;
    return s;
  }

  size_t statements() const { return ends_.size(); }
  size_t bytes() const { return args_.size() * sizeof(Arg) + ends_.size() * sizeof(uint32_t) + inputs_.size() * sizeof(Input); }

  // Starts a reverse sweep: zero adjoints for every statement.
  void begin_adjoints() { adjoint_.assign(ends_.size(), 0.f); }
  void seed(int32_t index, float adjoint) {
    if (index >= 0) adjoint_[size_t(index)] += adjoint;
  }
  // Propagates adjoints from the last statement to the first, then adds each input's adjoint
  // to gradient[its index] (scaled by `scale`). Returns false, adding nothing, when an input's
  // adjoint is not finite.
  bool backward(std::span<double> gradient, double scale = 1.0) {
    return backward_to([&](int g, float adjoint) { gradient[size_t(g)] += scale * double(adjoint); });
  }
  // The same, handing each input's adjoint to sink(gradient index, adjoint).
  template <class Sink>
  bool backward_to(Sink&& sink) {
    for (size_t s = ends_.size(); s-- > 0;) {
      const float adj = adjoint_[s];
      if (adj == 0.f) continue;
      for (uint32_t k = s == 0 ? 0 : ends_[s - 1]; k < ends_[s]; ++k)
        adjoint_[size_t(args_[k].index)] += adj * args_[k].partial;
    }
    for (const Input& in : inputs_)
      if (!std::isfinite(adjoint_[size_t(in.statement)])) return false;
    for (const Input& in : inputs_) sink(in.gradient, adjoint_[size_t(in.statement)] * in.weight);
    return true;
  }

  // The most statements the tape has held since reset_peak(): bounded by the path length.
  size_t peak_statements() const { return std::max(peak_, ends_.size()); }
  void reset_peak() { peak_ = 0; }

  void clear() {
    peak_ = std::max(peak_, ends_.size());
    if (++stamp_ == 0) {  // the stamps wrapped: forget every entry
      memo_.fill({});
      group_memo_.fill({});
      stamp_ = 1;
    }
    args_.clear();
    ends_.clear();
    inputs_.clear();
  }

 private:
  // An array that keeps its capacity: room(n) makes space for n more elements past the end
  // (growing out of line), resize_to sets the end. Statements are written without a capacity
  // test per argument.
  template <class T>
  class Buffer {
   public:
    Buffer() { grow(256); }  // never empty: room() always points into an array
    T* room(size_t n) {
      if (size_ + n > capacity_) grow(size_ + n);
      return data_.get() + size_;
    }
    void resize_to(T* end) { size_ = size_t(end - data_.get()); }
    T* end() { return data_.get() + size_; }
    size_t size() const { return size_; }
    void clear() { size_ = 0; }
    T& operator[](size_t k) { return data_[k]; }
    const T& operator[](size_t k) const { return data_[k]; }

   private:
    [[gnu::noinline]] void grow(size_t need) {
      const size_t capacity = std::max(need, 2 * capacity_ + 256);
      std::unique_ptr<T[]> bigger(new T[capacity]);
      std::copy(data_.get(), data_.get() + size_, bigger.get());
      data_ = std::move(bigger);
      capacity_ = capacity;
    }
    std::unique_ptr<T[]> data_;
    size_t size_ = 0, capacity_ = 0;
  };
  Buffer<Arg> args_;
  Buffer<uint32_t> ends_;
  struct Input {
    int32_t statement, gradient;  // the statement, the gradient entry its adjoint goes to
    float weight;                 // times this (1 for a parameter read alone)
  };
  std::vector<Input> inputs_;
  // The inputs of this tape (since clear()) by gradient index: open addressing over a few
  // entries, an entry valid when its stamp is the tape's; past that many inputs, reads repeat.
  struct Memo {
    int32_t gradient_index = -1, statement = -1;
    uint32_t stamp = 0;
  };
  std::array<Memo, 64> memo_{};
  // The last weighted input statements (a vertex's colour lookups: three channels, read twice).
  struct GroupMemo {
    int g[4] = {-1, -1, -1, -1};
    float w[4] = {};
    int32_t statement = -1;
    uint32_t stamp = 0;
  };
  std::array<GroupMemo, 8> group_memo_{};
  uint32_t group_next_ = 0;
  uint32_t stamp_ = 1;
  // The entry of gradient_index (found, or free to take), or nullptr when the probe finds neither.
  Memo* memo(int gradient_index) {
    size_t h = (uint32_t(gradient_index) * 2654435761u) >> 26;
    for (int probe = 0; probe < 8; ++probe, h = (h + 1) & 63) {
      Memo& m = memo_[h];
      if (m.stamp != stamp_ || m.gradient_index == gradient_index) return &m;
    }
    return nullptr;
  }
  // Ends a statement whose arguments were written up to `end` (from args_.room).
  int32_t end_statement(Arg* end) {
    args_.resize_to(end);
    *ends_.room(1) = uint32_t(args_.size());
    ends_.resize_to(ends_.end() + 1);
    return int32_t(ends_.size() - 1);
  }
  static void create() {
    thread_local std::unique_ptr<Tape> owner;
    owner = std::make_unique<Tape>();
    current_ = owner.get();
  }
  static inline thread_local Tape* current_ = nullptr;

  std::vector<float> adjoint_;
  size_t peak_ = 0;
};

}  // namespace dray::ad
