// quant, int8: per-token dynamic quantization of fp16 activations, v2 (one DRAM pass, row in registers) against v1.
#include <kbench/compare.hpp>

#include "quant/quant_v1.hip"
#include "quant/quant_v2.hip"

static void quant_int8(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<kbench::fp16_t>("x", {rows, cols}, kbench::normal(0, 2));
  auto codes = c.output<std::int8_t>("codes", {rows, cols});
  auto scales = c.output<float>("scales", {rows});
  c.reference([=](hipStream_t s) { quant_v1::launch<std::int8_t, kbench::fp16_t>(x, codes, scales, rows, cols, s); });
  c.optimized([=](hipStream_t s) { quant_v2::launch<std::int8_t, kbench::fp16_t>(x, codes, scales, rows, cols, s); });
  c.tolerance(kbench::tol::exact{});  // same fp32 ops in v1 and v2: rintf(x * (127 / amax)), ties to even, so identical codes
  c.bytes_moved(2.0 * rows * cols + 1.0 * rows * cols + 4.0 * rows);
  c.flops(2.0 * rows * cols);  // in fp32: the running maximum of |x|, then x times the scale
  // Memory-bound: no scratch, and enough waves (warps) in flight to cover the latency of memory.
  c.expect_resources("quant_v2::").spills_none().scratch_at_most(0).waves_at_least(4).warps_at_least(32);
}
KBENCH_REGISTER(quant_int8).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 37}, {"cols", 10000}}).shape({{"rows", 16384}, {"cols", 8192}});
