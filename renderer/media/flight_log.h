#pragma once
// Path replay's memory of tracked flights. Delta and ratio tracking through a grid draw a
// distance (a logarithm) and walk the majorant supergrid for each tentative collision; the float
// pass that records paths for replay (renderer/integrators/prb.h) also records each collision's
// distance, majorant and the sampler's dimension after drawing it, so that the replay in ad::Var
// evaluates the same collisions without walking the supergrid or drawing distances again. A
// flight is replayed from the log only when it starts where the recorded one started (the same
// sampler dimension and end distance); otherwise it is tracked again: the log saves work, it
// never decides.
//
// The cursor is the thread's, as the tape is (ad/tape.h): set around a recorded radiance call
// or a replayed path by RecordFlights / ReplayFlights, off everywhere else.
#include <cstdint>
#include <span>
#include <vector>

namespace dray {

// A flight's header (mu = kHeader: t the flight's end distance, dimension the sampler's at its
// start), each tentative collision (t, mu, the dimension after its distance draw), its footer
// (mu = kFooter: the dimension after the flight).
struct FlightStep {
  static constexpr float kHeader = -1.f, kFooter = -2.f;
  float t = 0.f, mu = 0.f;
  uint32_t dimension = 0;
};

struct FlightCursor {
  std::vector<FlightStep>* write = nullptr;  // recording: appended to
  std::span<const FlightStep> read;          // replaying: read from `at`
  size_t at = 0;
  bool replaying = false;

  static FlightCursor& local() {
    thread_local FlightCursor c;
    return c;
  }
  // Where the next recorded flight goes (a vertex's first flight, for its replay).
  uint32_t position() const { return write ? uint32_t(write->size()) : 0u; }
};

// Records the flights of the float pass into `steps` while alive (nullptr: records nothing).
class RecordFlights {
 public:
  explicit RecordFlights(std::vector<FlightStep>* steps) : saved_(FlightCursor::local()) {
    FlightCursor::local() = {steps, {}, 0, false};
  }
  ~RecordFlights() { FlightCursor::local() = saved_; }
  RecordFlights(const RecordFlights&) = delete;
  RecordFlights& operator=(const RecordFlights&) = delete;

 private:
  FlightCursor saved_;
};

// Replays flights from `steps` while alive; seek(at) before each vertex.
class ReplayFlights {
 public:
  explicit ReplayFlights(std::span<const FlightStep> steps) : saved_(FlightCursor::local()) {
    FlightCursor::local() = {nullptr, steps, 0, !steps.empty()};
  }
  ~ReplayFlights() { FlightCursor::local() = saved_; }
  void seek(uint32_t at) const { FlightCursor::local().at = at; }
  ReplayFlights(const ReplayFlights&) = delete;
  ReplayFlights& operator=(const ReplayFlights&) = delete;

 private:
  FlightCursor saved_;
};

}  // namespace dray
