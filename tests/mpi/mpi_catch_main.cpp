// Catch2 under MPI: every rank runs the same test cases; tests combine their conditions across
// ranks (mpi::all_ranks) before REQUIRE so that no rank leaves a collective behind. Only rank 0
// reports. Catch2's implementation is compiled once, in tests/catch_runner.cpp.
#include "mpi/context.h"
#include "mpi/errors.h"
#include "tests/catch_runner.h"

dray::mpi::Context* g_ctx = nullptr;

int main(int argc, char** argv) {
  dray::mpi::Context ctx(&argc, &argv);
  g_ctx = &ctx;
  const int rc = dray::test::run_catch(argc, argv, ctx.is_root());
  return dray::mpi::all_ranks(ctx, rc == 0) ? 0 : 1;
}
