// What a kernel test file includes holds the contract only (style.md: the header every test includes
// stays light). A compile-time check: each #error names what crept in.
#include <kbench/compare.hpp>

#if defined(KBENCH_COMPARISON_ENGINE)
#error "kbench/compare.hpp pulls in the comparison engine (kbench/engines/comparison.hpp)"
#endif
#if defined(_GLIBCXX_RANDOM) || defined(_LIBCPP_RANDOM)
#error "kbench/compare.hpp pulls in <random>"
#endif
#if defined(CLI11_VERSION) || defined(NLOHMANN_JSON_VERSION_MAJOR) || defined(CATCH_VERSION_MAJOR) || defined(BENCHMARK_BENCHMARK_H_)
#error "kbench/compare.hpp pulls in a library of the runner (CLI11, nlohmann/json, Catch2 or Google Benchmark)"
#endif

// The contract is there: a case can be declared and registered.
namespace {
void declared(kbench::kernel_case& c) {
  auto x = c.input<float>("x", {4});
  auto y = c.output<float>("y", {4});
  c.reference([=](hipStream_t) { (void)x, (void)y; });
  c.optimized([=](hipStream_t) {});
  c.tolerance(kbench::tol::exact{});
}
}  // namespace
KBENCH_REGISTER(declared);
