#pragma once
// The parameter table: every continuous scalar of a scene lives in one flat float array under a
// stable dotted name (`materials.white.albedo`, `shapes.ball.radius`). Scene objects hold slots
// (offsets into the array); the kernel reads values through a ParamView<T>, so lifting a subset
// of parameters to a derivative-carrying scalar type needs no change in the kernel.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "renderer/core/param_domain.h"
#include "renderer/core/vec.h"

namespace dray {

using Slot = uint32_t;
inline constexpr Slot kNoSlot = UINT32_MAX;

// Whether `slot` is one of the n slots from `first` (none when first is kNoSlot).
inline bool in_block(Slot slot, Slot first, uint32_t n) { return first != kNoSlot && slot >= first && slot < first + n; }

struct ParamEntry {
  std::string name;
  Slot slot;
  uint32_t size;  // 1 for a scalar, 3 for a vector, the element count of a block
  std::vector<uint32_t> shape;  // a block's dimensions (H, W, C), row-major; empty otherwise
  Domain domain;                // every value's (core/param_domain.h)
  bool block() const { return !shape.empty(); }
};

class ParamTable {
 public:
  // A parameter and its domain (every component's), which scene_check.h enforces on every change.
  Slot add(const std::string& name, float v, Domain d = Domain::finite()) { return add(name, &v, 1, d); }
  Slot add(const std::string& name, const glm::vec3& v, Domain d = Domain::finite()) { return add(name, &v.x, 3, d); }

  // A parameter block: a large array (a texture's texels) under one name, listed by its shape,
  // its elements named NAME[i,j,c].
  Slot add_block(const std::string& name, const std::vector<float>& v, std::vector<uint32_t> shape,
                 Domain d = Domain::finite()) {
    const Slot s = add(name, v.data(), uint32_t(v.size()), d);
    entries_.back().shape = std::move(shape);
    return s;
  }

  // A block given values of another shape (a grid resampled, a mesh remeshed): its entry moves to
  // fresh slots at the table's end, keeping its name, domain and aliases; the old slots stay
  // unused (freed when they were the last). Returns the new slot; objects holding the old one
  // must take it.
  Slot reshape_block(const std::string& name, const std::vector<float>& v, std::vector<uint32_t> shape) {
    size_t i = 0;
    while (i < entries_.size() && entries_[i].name != name) ++i;
    if (i == entries_.size()) return add_block(name, v, std::move(shape));
    const Domain d = entries_[i].domain;
    if (entries_[i].slot + entries_[i].size == values_.size()) values_.resize(entries_[i].slot);
    entries_.erase(entries_.begin() + std::ptrdiff_t(i));
    return add_block(name, v, std::move(shape), d);
  }

  float get(Slot s) const { return values_[s]; }
  glm::vec3 get_vec3(Slot s) const { return {values_[s], values_[s + 1], values_[s + 2]}; }
  void set(Slot s, float v) { values_[s] = v; }

  const std::vector<float>& values() const { return values_; }
  // The n values from s, to write in place (an optimizer's gathered step).
  std::span<float> values_of(Slot s, size_t n) { return std::span(values_).subspan(s, n); }
  const std::vector<ParamEntry>& entries() const { return entries_; }
  // Another name for a parameter (an older spelling that scenes, jobs and scripts use: the
  // diffuse `albedo` of `reflectance`); `find` answers to both, `entries` lists the name only.
  void alias(const std::string& other, const std::string& name) { aliases_.push_back({other, name}); }
  // Mitsuba's key for a parameter (renderer/io/mitsuba_keys.h): an alias `dray params --mitsuba` lists.
  void mitsuba_alias(const std::string& key, const std::string& name) {
    alias(key, name);
    mitsuba_keys_.push_back({key, name});
  }
  // (Mitsuba's key, dray's name), in the order of the parameters.
  const std::vector<std::pair<std::string, std::string>>& mitsuba_keys() const { return mitsuba_keys_; }

  std::optional<ParamEntry> find(const std::string& name) const {
    for (const auto& e : entries_)
      if (e.name == name) return e;
    for (const auto& [other, target] : aliases_)
      if (other == name) return find(target);
    return std::nullopt;
  }

 private:
  Slot add(const std::string& name, const float* v, uint32_t n, Domain d) {
    Slot s = Slot(values_.size());
    // Grown geometrically: an exact reserve per add copied the whole table each time (quadratic:
    // the lego scene's 439 meshes took 68 s to load, 2 s now).
    values_.insert(values_.end(), v, v + n);
    entries_.push_back({name, s, n, {}, d});
    return s;
  }
  std::vector<float> values_;
  std::vector<ParamEntry> entries_;
  std::vector<std::pair<std::string, std::string>> aliases_, mitsuba_keys_;
};

// One scalar parameter: its display name (`materials.white.albedo[1]`) and slot.
struct ScalarParam {
  std::string name;
  Slot slot;
};

// Expands parameter names into scalars: a vector name gives its components (NAME[0..2]),
// NAME[i] one component; a block's NAME gives every element, NAME[i,j,c] one. Throws
// std::runtime_error for an unknown name or index.
std::vector<ScalarParam> resolve_scalars(const ParamTable& table, const std::vector<std::string>& names);

// Quantities derived from parameters alone (a mesh transform's entries, the camera's frame) that a
// reverse pass lifts once per pass (renderer/integrators/pass_lift.h): their float values, and the gradient
// index of the first, each one an input of the samples' tapes. `key` is a slot of the object they
// belong to (a transform's rotate, the camera's origin).
struct LiftedBlock {
  Slot key;
  int first_index;
  std::vector<float> values;
};

// Which slots a pass differentiates: per slot, its tangent or gradient index (-1: a constant), and
// the seeded slots as sorted ranges, so that a million-texel block is told constant at once.
struct Seeds {
  std::vector<std::pair<Slot, Slot>> ranges;  // [first, end), sorted, disjoint

  // seeded[k] (of a table of `slots` scalars) gets index k.
  Seeds(size_t slots, std::span<const Slot> seeded);
  // The table: index()[slot] is the slot's index, or -1.
  const int* index() const { return table_->data(); }
  // Whether any of the n slots from s is seeded: O(log ranges).
  bool any(Slot s, size_t n) const;

 private:
  // Shared with the last large table built (renderer/scene.cpp): an optimization's passes seed
  // the same slots, and a million-texel block's table took 5% of its gradient pass to write.
  std::shared_ptr<const std::vector<int>> table_;
};

// How the kernel reads parameters in scalar type T: through ad::lift, which seeds the slots
// that `seeds` marks (seeds[slot] = tangent or input index, -1 = constant). Without seeds, or for
// float, every parameter is a constant. Lifting any subset of parameters to a derivative-carrying
// type therefore needs no change in the kernel.
template <class T>
struct ParamView {
  const float* values;
  const int* seeds = nullptr;  // one per slot, or nullptr: nothing seeded
  const std::vector<LiftedBlock>* lifted_blocks = nullptr;  // a reverse pass's lifted quantities
  const Seeds* seed_set = nullptr;  // the seeds' ranges, when known

  explicit ParamView(const ParamTable& t, const int* seeds_ = nullptr) : values(t.values().data()), seeds(seeds_) {}
  explicit ParamView(const float* values_, const int* seeds_ = nullptr) : values(values_), seeds(seeds_) {}
  ParamView(const ParamTable& t, const Seeds& s) : values(t.values().data()), seeds(s.index()), seed_set(&s) {}
  // The same values as plain constants: for decisions and weights that carry no derivative.
  ParamView<float> values_only() const { return ParamView<float>(values); }
  T scalar(Slot s) const { return ad::lift<T>(values[s], seeds ? seeds[s] : -1); }
  Vec3<T> vec3(Slot s) const {
    if (!seeds) return {T(values[s]), T(values[s + 1]), T(values[s + 2])};
    const float v[3] = {values[s], values[s + 1], values[s + 2]};
    const int g[3] = {seeds[s], seeds[s + 1], seeds[s + 2]};
    T out[3];
    ad::lift3<T>(v, g, out);
    return {out[0], out[1], out[2]};
  }
  // sum_k scalar(s[k]) w[k] with constant weights (summed as weighted_sum): reverse mode records
  // one statement for the four reads (ad::weighted_lift).
  T weighted(const Slot (&s)[4], const float (&w)[4]) const {
    const float v[4] = {values[s[0]], values[s[1]], values[s[2]], values[s[3]]};
    if constexpr (!ad::is_differentiable_v<T>) {
      return ad::weighted_sum(v, w);
    } else {
      const int g[4] = {seeds ? seeds[s[0]] : -1, seeds ? seeds[s[1]] : -1, seeds ? seeds[s[2]] : -1, seeds ? seeds[s[3]] : -1};
      return ad::weighted_lift<T>(v, g, w);
    }
  }
  // The lifted block of the object keyed by `key`, or nullptr (then derive it from parameters).
  const LiftedBlock* lifted(Slot key) const {
    if (lifted_blocks)
      for (const LiftedBlock& b : *lifted_blocks)
        if (b.key == key) return &b;
    return nullptr;
  }
  // Entry k of a lifted block, an input of differentiation.
  T lifted_input(const LiftedBlock& b, int k) const { return ad::lift<T>(b.values[size_t(k)], b.first_index + k); }
  // Whether any of the n slots from s is seeded.
  bool active(Slot s, uint32_t n) const {
    if (!seeds || s == kNoSlot) return false;
    // A few slots (a colour, a light's parameters: the kernel's per-vertex questions) are read
    // directly; a block's range through the sorted ranges.
    if (seed_set && n > 4) return seed_set->any(s, n);
    for (uint32_t i = 0; i < n; ++i)
      if (seeds[s + i] >= 0) return true;
    return false;
  }
  // Whether the n slots from s are surely constants (a block to read in float), when that is
  // cheap to tell: nothing seeded, or the seeds' ranges known. False when it would take a scan.
  bool constant(Slot s, size_t n) const { return !seeds || (seed_set && !seed_set->any(s, n)); }
};

}  // namespace dray
