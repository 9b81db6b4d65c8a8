// Catch2's runner, compiled once per build as plain C++ and linked into every test program of kbench's
// own: with Catch2 2, whose implementation is a single header that takes some 20 s to compile, it is no
// longer compiled again in each program (and, with hipcc, for each GPU target).
#if KBENCH_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <string>
#include <vector>

#include "catch2_runner.hpp"

namespace kbench_test {

int run_catch2(int argc, char** argv, test_order order) {
  std::vector<char*> args(argv, argv + argc);
  bool ordered = false;
  for (int i = 1; i < argc; ++i) ordered = ordered || std::string(argv[i]).rfind("--order", 0) == 0;
  static char order_option[] = "--order", declaration[] = "decl";
  if (order == test_order::declaration && !ordered) args.insert(args.begin() + 1, {order_option, declaration});
  return Catch::Session().run(static_cast<int>(args.size()), args.data());
}

}  // namespace kbench_test
