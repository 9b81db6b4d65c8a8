// add + rmsnorm, fp16 and bf16: v2 against v1, in place as vLLM's fused_add_rms_norm.
#include <kbench/compare.hpp>

#include "add_rmsnorm/add_rmsnorm_v1.hip"
#include "add_rmsnorm/add_rmsnorm_v2.hip"

template <class T>
static void add_rmsnorm(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.inout<T>("x", {rows, cols}, kbench::uniform(-2, 2));        // becomes y
  auto res = c.inout<T>("residual", {rows, cols}, kbench::normal(0, 1));  // becomes x + residual
  auto w = c.input<T>("w", {cols}, kbench::uniform(0.5, 1.5));
  c.reference([=](hipStream_t s) { add_rmsnorm_v1::launch<T>(x, res, w, rows, cols, 1e-6f, s); });
  c.optimized([=](hipStream_t s) { add_rmsnorm_v2::launch<T>(x, res, w, rows, cols, 1e-6f, s); });
  c.tolerance(x, kbench::tol::ulp{1});     // same fp32 expressions; only the order of the sum of squares differs
  c.tolerance(res, kbench::tol::exact{});  // both round the same fp32 sum x + residual
  c.bytes_moved(2.0 * (4.0 * rows * cols + cols));  // read x, residual, w; write x, residual
  c.flops(5.0 * rows * cols);  // in fp32: the add, the square summed (an FMA), times the scale and the weight
  // No scratch on AMD; on sm_90 <fp16, 8, 2> keeps 8 bytes of stack. The variants for long rows (8 values a
  // thread) trade occupancy for registers: bf16 <8, 8> holds 153 VGPRs and 1 wave per SIMD on gfx906, 3 on
  // gfx90a; fp16 <8, 8> 113 registers and 17 warps per SM on sm_90, bf16 146 and 13.
  c.expect_resources("add_rmsnorm_v2::").scratch_at_most(8);
  c.expect_resources("add_rmsnorm_v2::", "gfx90a").spills_none().waves_at_least(3);
  c.expect_resources("add_rmsnorm_v2::", "sm_90").warps_at_least(13);
}
KBENCH_REGISTER(add_rmsnorm<kbench::fp16_t>).name("add_rmsnorm_fp16").shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 16384}, {"cols", 8192}}).shape({{"rows", 5}, {"cols", 40000}});
KBENCH_REGISTER(add_rmsnorm<kbench::bf16_t>).name("add_rmsnorm_bf16").shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 16384}, {"cols", 8192}}).shape({{"rows", 5}, {"cols", 40000}});
