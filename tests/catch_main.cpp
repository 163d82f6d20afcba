// The unit tests' main: Catch2's session as CATCH_CONFIG_MAIN's main runs it.
#include "tests/catch_runner.h"

int main(int argc, char** argv) { return dray::test::run_catch(argc, argv); }
