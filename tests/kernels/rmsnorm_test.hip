// rmsnorm: v2 (one pass, 16-byte accesses) against v1 (the straightforward kernel).
#include <kbench/compare.hpp>

#include "rmsnorm/rmsnorm_v1.hpp"
#include "rmsnorm/rmsnorm_v2.hpp"

static void rmsnorm(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<kbench::fp16_t>("x", {rows, cols}, kbench::uniform(-2, 2));
  auto w = c.input<kbench::fp16_t>("w", {cols}, kbench::uniform(0.5, 1.5));
  auto y = c.output<kbench::fp16_t>("y", {rows, cols});
  c.reference([=](hipStream_t s) { rmsnorm_v1::launch(x, w, y, rows, cols, 1e-6f, s); });
  c.optimized([=](hipStream_t s) { rmsnorm_v2::launch<kbench::fp16_t>(x, w, y, rows, cols, 1e-6f, s); });
  c.tolerance(kbench::tol::ulp{1});  // both round the same fp32 value up to reduction order
  c.bytes_moved(2.0 * (2.0 * rows * cols + cols));
  c.flops(4.0 * rows * cols);  // in fp32: the square summed (an FMA), then times the scale and the weight
  c.calls_per_layer(2);  // two rmsnorms per transformer layer: the report gives the time saved per layer
  // Memory-bound: no scratch, and enough waves (warps) in flight to cover the latency of memory.
  c.expect_resources("rmsnorm_v2::").spills_none().scratch_at_most(0).waves_at_least(4).warps_at_least(32);
}
KBENCH_REGISTER(rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 16384}, {"cols", 8192}});
