// studies/compile-floor/rmsnorm_lightest.hip: tests/kernels/rmsnorm_test.hip's case written against the
// lightest contract (lightest_contract.hpp): what its compile would cost if the contract weighed nothing.
#include "lightest_contract.hpp"
#include "rmsnorm/rmsnorm_v1.hip"
#include "rmsnorm/rmsnorm_v2.hip"
static void rmsnorm(kbench::kernel_case_m& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<kbench::fp16_t>("x", {rows, cols}, kbench::uniform_m(-2, 2));
  auto w = c.input<kbench::fp16_t>("w", {cols}, kbench::uniform_m(0.5, 1.5));
  auto y = c.output<kbench::fp16_t>("y", {rows, cols});
  c.reference([=](hipStream_t s) { rmsnorm_v1::launch(x, w, y, rows, cols, 1e-6f, s); });
  c.optimized([=](hipStream_t s) { rmsnorm_v2::launch<kbench::fp16_t>(x, w, y, rows, cols, 1e-6f, s); });
  c.tolerance(kbench::tolm::ulp{1});
  c.bytes_moved(2.0 * (2.0 * rows * cols + cols));
  c.flops(4.0 * rows * cols);
  c.expect_resources("rmsnorm_v2::").spills_none().scratch_at_most(0).waves_at_least(4).warps_at_least(32);
}
KBENCH_REGISTER_M(rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 16384}, {"cols", 8192}});
