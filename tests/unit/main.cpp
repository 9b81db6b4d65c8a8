// Catch2's main for the host-side unit tests (the runner itself: tests/support/catch2_runner.cpp).
#include "../support/catch2_runner.hpp"

int main(int argc, char** argv) { return kbench_test::run_catch2(argc, argv); }
