#pragma once
// Error agreement: every rank reports its own status, every rank learns the same outcome, so
// that all ranks exit together with one code and the message is printed once (DESIGN.md
// invariant 5). Call it after any step that can fail on some ranks only, before the next
// collective that could otherwise hang.
#include <functional>
#include <stdexcept>
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
// anything else: code 3, "internal error on rank R: ..."), then agrees across ranks.
Status agree_on(const Context& ctx, const std::function<void()>& step);

// An outcome every rank has agreed on, thrown on every rank alike by a collective operation
// that failed on some rank (a kernel exception, say): the command line prints it once and
// exits with its code.
struct AgreedError : std::runtime_error {
  Status status;
  explicit AgreedError(Status s) : std::runtime_error(s.message), status(std::move(s)) {}
};

// Collective. Runs `step` like agree_on and throws AgreedError on every rank if any rank failed.
void run_agreed(const Context& ctx, const std::function<void()>& step);

// Collective. True when `condition` holds on every rank (for tests and checks that must not
// leave some ranks behind).
bool all_ranks(const Context& ctx, bool condition);

}  // namespace dray::mpi
