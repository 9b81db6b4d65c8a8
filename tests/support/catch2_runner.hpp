// Catch2's runner for kbench's own test programs (tests/support/catch2_runner.cpp), and what the main()
// of the self-tests that need a GPU (gpu_suite_main.cpp) asks of each of them.
#pragma once

namespace kbench_test {

enum class test_order { catch2_default, declaration };

// Catch2's session over the command line; `declaration` runs the tests in the order of their declaration
// whatever Catch2's default (Catch2 3 shuffles) unless the command line gives an --order.
int run_catch2(int argc, char** argv, test_order order = test_order::catch2_default);

// What a suite linked with gpu_suite_main.cpp is called in its skip message ("the trust tests").
extern const char* const suite_name;

}  // namespace kbench_test
