#pragma once
// Catch2's session, run from a test program's main (tests/catch_runner.cpp compiles Catch2's
// implementation once for every test program).

namespace dray::test {

// Applies the command line and runs the test cases; without `report`, the results go nowhere
// (the MPI tests' ranks but the first). Returns Catch2's exit code.
int run_catch(int argc, char** argv, bool report = true);

}  // namespace dray::test
