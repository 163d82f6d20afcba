// The host of the unit tests' precompiled header (tests/CMakeLists.txt, DRAY_PCH): a test
// program without tests of its own.
