// main() of kbench's self-tests that need a GPU (the mutation, trust, device comparison and multi-device
// suites): plain C++ over the procedure compiled once per build. Without a usable GPU the suite is
// skipped (exit 77, with the reason), or fails where KBENCH_REQUIRE_GPU=1 asks for one. The tests run in
// declaration order: a suite may put last a test that can leave the device unusable.
#include <kbench/procedure.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "catch2_runner.hpp"

int main(int argc, char** argv) {
  const kbench::gpu_info& g = kbench::detail::open_gpu(0);
  if (!g.usable) {
    const char* require = std::getenv("KBENCH_REQUIRE_GPU");
    std::printf("kbench: skipped %s: %s\n", kbench_test::suite_name, g.reason.c_str());
    return require && std::string(require) == "1" ? 1 : 77;
  }
  return kbench_test::run_catch2(argc, argv, kbench_test::test_order::declaration);
}
