#pragma once
// Error agreement: every rank reports its own status, every rank learns the same outcome, so
// that all ranks exit together with one code and the message is printed once (DESIGN.md
// invariant 5). Call it after any step that can fail on some ranks only, before the next
// collective that could otherwise hang.
#include <functional>
#include <string>

#include "mpi/context.h"

namespace dray::mpi {

struct Status {
  int code = 0;  // 0: success
  std::string message;
};

// Collective. Returns the status of the lowest-numbered failing rank, or success.
Status agree(const Context& ctx, const Status& local);

// Runs `step`, turning exceptions into a status (LoadError and std::runtime_error: code 2,
// anything else: code 3), then agrees across ranks.
Status agree_on(const Context& ctx, const std::function<void()>& step);

// Collective. True when `condition` holds on every rank (for tests and checks that must not
// leave some ranks behind).
bool all_ranks(const Context& ctx, bool condition);

}  // namespace dray::mpi
