// Catch2 under MPI: every rank runs the same test cases; tests combine their conditions across
// ranks (mpi::all_ranks) before REQUIRE so that no rank leaves a collective behind. Only rank 0
// reports.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "mpi/context.h"
#include "mpi/errors.h"

dray::mpi::Context* g_ctx = nullptr;

int main(int argc, char** argv) {
  dray::mpi::Context ctx(&argc, &argv);
  g_ctx = &ctx;
  Catch::Session session;
  int rc = session.applyCommandLine(argc, argv);
  if (rc != 0) return rc;
  if (!ctx.is_root()) session.configData().outputFilename = "/dev/null";
  rc = session.run();
  return dray::mpi::all_ranks(ctx, rc == 0) ? 0 : 1;
}
