// Catch2's implementation, compiled once for every test program: the unit tests' main
// (catch_main.cpp) and the MPI tests' (mpi/mpi_catch_main.cpp) run it through run_catch.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "tests/catch_runner.h"

namespace dray::test {

int run_catch(int argc, char** argv, bool report) {
  Catch::Session session;
  const int rc = session.applyCommandLine(argc, argv);
  if (rc != 0) return rc;
  if (!report) session.configData().outputFilename = "/dev/null";
  return session.run();
}

}  // namespace dray::test
